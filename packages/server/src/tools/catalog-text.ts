import { availableSkillsXml as catalogXml, escapeXml } from '@skillport/core';
import type { CatalogSkill } from '../catalog/model.js';

/**
 * The compact catalog a model reads (the Agent Skills client guide's `<available_skills>` form), with XML
 * escaping so a description cannot close the element or inject markup.
 */
export { escapeXml };

/** `availability`: a short line for a skill that is not plainly ready (`needs MCP server "rube"`), shown in its entry. */
export function availableSkillsXml(skills: readonly CatalogSkill[], availability?: (skill: CatalogSkill) => string | undefined): string {
  return catalogXml(
    skills.map((skill) => {
      const line = availability?.(skill);
      return { name: skill.name, description: skill.description, location: skill.uri, ...(line !== undefined ? { availability: line } : {}) };
    }),
  );
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
