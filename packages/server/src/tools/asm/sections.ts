import { UniqueNames } from '@skillport/core';
import { findSection, outlineSkill } from '../../sections.js';
import type { SkillOutline, SkillSection } from '../../sections.js';
import type { CatalogSkill } from '../../catalog/model.js';
import type { SkillsService } from '../../mcp/skills-service.js';
import { skillBody } from '../activation.js';
import { moreLine, shownTitle } from '../outline-pages.js';
import type { OutlinePage } from '../outline-pages.js';

/**
 * get_skill_outline and get_skill_section as agentskills-mcp-server defines them: keys are flat slugs (a heading's
 * own slug, `-2`, `-3` for repeats), and a section is its heading and the text up to the next heading of any level,
 * so sections do not nest. The split and the token counts are core's (sections.ts: real tokenizer, fences and
 * comments understood); only the keys are flattened. A section is also found by core's path key or its title.
 */
export interface FlatSection {
  key: string;
  section: SkillSection;
}

export interface FlatOutline {
  outline: SkillOutline;
  sections: FlatSection[];
}

const cache = new Map<string, Promise<FlatOutline>>();

export function flatOutline(service: SkillsService, skill: CatalogSkill): Promise<FlatOutline> {
  // The same bytes always give the same outline: cached by package digest.
  let found = cache.get(skill.packageDigest);
  if (found === undefined) {
    found = skillBody(service, skill).then(async (body) => flatten(await outlineSkill(body)));
    cache.set(skill.packageDigest, found);
    found.catch(() => cache.delete(skill.packageDigest));
    if (cache.size > 1000) cache.delete(cache.keys().next().value!);
  }
  return found;
}

/** Flat keys: each section's own slug, `-2`, `-3` for repeats (linear in the sections: core's UniqueNames). */
export function flatten(outline: SkillOutline): FlatOutline {
  const taken = new UniqueNames();
  const sections = outline.sections.map((section) => ({ key: taken.take(section.key.slice(section.key.lastIndexOf('/') + 1)), section }));
  return { outline, sections };
}

export function findFlatSection(flat: FlatOutline, key: string): FlatSection | undefined {
  const wanted = key.trim();
  const exact = flat.sections.find((entry) => entry.key === wanted) ?? flat.sections.find((entry) => entry.key === wanted.toLowerCase().replace(/^#+\s*/, ''));
  if (exact !== undefined) return exact;
  const section = findSection(flat.outline, wanted);
  return section === undefined ? undefined : flat.sections.find((entry) => entry.section === section);
}

/** The outline as text: the whole body's cost, each section's, and which call is cheaper. */
export function renderOutline(id: string, flat: FlatOutline, page: OutlinePage<FlatSection>): string {
  const { outline, sections } = flat;
  if (sections.length === 0) return `'${id}' has an empty body; there is nothing to fetch.`;
  const lines = [`'${id}': ~${outline.totalTokens} tokens in ${sections.length} section${sections.length === 1 ? '' : 's'}.`, ''];
  for (const entry of page.items) lines.push(outlineLine(entry));
  const more = moreLine(page, sections.length);
  if (more) lines.push(more);
  lines.push('');
  lines.push(
    outline.wholeBodyCheaper
      ? `Call get_skill_body instead: the whole body is only ~${outline.totalTokens} tokens, less than this outline plus a section fetch and the turn it costs.`
      : `Fetch a section with get_skill_section and its key. Sections do not nest: a section is its own text up to the next heading of any level, so fetching a parent does not include what is indented under it. Past about three sections, call get_skill_body instead (~${outline.totalTokens} tokens).`,
  );
  return lines.join('\n');
}

/** One section's line of the outline, its title shown up to a bound (outline-pages.ts). */
export function outlineLine({ key, section }: FlatSection): string {
  return `${'  '.repeat(Math.max(section.level - 1, 0))}- ${key} (~${section.tokens}) — ${shownTitle(section.title)}`;
}
