import { canonicalSkillUri } from '@skillport/core';
import type { CatalogSkill } from '../../catalog/model.js';
import type { CatalogSnapshot } from '../../catalog/snapshot.js';
import { closestNames } from '../resolve.js';

/**
 * agentskills-mcp-server addresses a skill by `skill_id`, its registry key, which is the skill's name. Here a name
 * may be shared by skills in different folders, so a skill's id is its name when the name means it in the caller's
 * view (the only one, or the best-ranked by the policy's precedence), and otherwise its path (the `skill://` URI
 * without the scheme and `/SKILL.md`, e.g. `team-a/pdf`; the whole URI when that path is a single segment). Either form is accepted back, as is the whole `skill://…/SKILL.md` URI. Everything is looked up in
 * the caller's view only, so a hidden skill and a skill that never existed get the same answer.
 */
export function skillId(snapshot: CatalogSnapshot, skill: CatalogSkill): string {
  // A view may rank skills of one name (access/views.ts): the name means the best-ranked one, as everywhere else.
  const named = snapshot.named(skill.name);
  if (named.length === 1 && named[0] === skill) return skill.name;
  const path = skillPath(skill);
  // A path of one segment is a name, maybe the one the best-ranked skill goes by: then the whole URI.
  return path.includes('/') ? path : skill.uri;
}

export function skillPath(skill: CatalogSkill): string {
  return skill.uri.slice('skill://'.length).replace(/\/SKILL\.md$/, '');
}

export type FoundSkill = { skill: CatalogSkill } | { error: string };

export function findSkill(snapshot: CatalogSnapshot, rawId: unknown): FoundSkill {
  const id = typeof rawId === 'string' ? rawId.trim() : '';
  if (id === '') return { error: 'Error: Give the skill_id, as the catalog lists it (skills://catalog/xml).' };
  const named = snapshot.named(id);
  if (named.length === 1) return { skill: named[0]! };
  if (named.length > 1) {
    return {
      error: `Error: ${named.length} skills are named '${printable(id)}'; call again with one of these skill_id values: ${named.map((skill) => skillId(snapshot, skill)).join(', ')}`,
    };
  }
  // A path (`team-a/pdf`, or an exact registry version `1.2.0/pdf`) or the whole URI.
  const uri = /^skill:/i.test(id) ? id : `skill://${id.replace(/^\/+|\/+$/g, '')}/SKILL.md`;
  const canonical = canonicalSkillUri(uri);
  if (canonical !== undefined) {
    const skill = snapshot.skill(canonical) ?? snapshot.skill(`${canonical.replace(/\/$/, '')}/SKILL.md`);
    if (skill !== undefined) return { skill };
    const refused = snapshot.refusal(canonical);
    if (refused !== undefined) return { error: `Error: ${refused}` };
  }
  return { error: notFound(snapshot, id) };
}

/** The one answer for a skill id the caller cannot reach, whether it is hidden from them or never existed. */
export function notFound(snapshot: CatalogSnapshot, id: string): string {
  const wanted =
    id
      .replace(/\/SKILL\.md$/i, '')
      .split('/')
      .at(-1) ?? id;
  const close = closestNames(snapshot, wanted, 3);
  return `Error: Skill '${printable(id)}' not found.${close.length > 0 ? ` Did you mean: ${close.join(', ')}?` : ' The skills are listed in skills://catalog/xml.'}`;
}

export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, '?').slice(0, 200);
}
