import { availableSkillsXml as catalogXml, escapeXml } from '@skillport/core';
import type { CatalogSkill } from '../catalog/model.js';

/**
 * The compact catalog a model reads (the Agent Skills client guide's `<available_skills>` form), with XML
 * escaping so a description cannot close the element or inject markup.
 */
export { escapeXml };

export function availableSkillsXml(skills: readonly CatalogSkill[]): string {
  return catalogXml(skills.map((skill) => ({ name: skill.name, description: skill.description, location: skill.uri })));
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
