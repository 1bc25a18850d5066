import { canonicalSkillUri, editDistance } from '@skillport/core';
import type { CatalogSkill } from '../catalog/model.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';

/**
 * Finds the skill a tool call means. A URI names exactly one skill; a name may be shared by skills in different
 * folders, and then the caller must say which by URI. Failures are one line a model can act on.
 */
export type Resolved = { skill: CatalogSkill } | { error: string };

export function resolveSkill(snapshot: CatalogSnapshot, args: { name?: string | undefined; uri?: string | undefined }): Resolved {
  if (args.uri !== undefined && args.uri !== '') {
    const canonical = canonicalSkillUri(args.uri);
    const skill = canonical === undefined ? undefined : (snapshot.skill(canonical) ?? snapshot.skill(`${canonical.replace(/\/$/, '')}/SKILL.md`));
    const refused = skill === undefined && canonical !== undefined ? snapshot.refusal(canonical) : undefined;
    if (refused !== undefined) return { error: `Error: ${refused}` };
    if (skill === undefined) return { error: `Error: No skill is served at '${args.uri}'.${hint(snapshot, lastName(args.uri))}` };
    return { skill };
  }
  const name = args.name?.trim();
  if (!name) return { error: "Error: Give the skill's name (or its uri)." };
  const named = snapshot.named(name);
  if (named.length === 1) return { skill: named[0]! };
  if (named.length > 1) {
    return { error: `Error: ${named.length} skills are named '${name}'; call again with one uri: ${named.map((skill) => skill.uri).join(', ')}` };
  }
  return { error: `Error: Skill '${name}' not found.${hint(snapshot, name)}` };
}

function lastName(uri: string): string {
  const parts = uri.replace(/\/SKILL\.md$/i, '').split('/');
  return parts.at(-1) ?? uri;
}

/**
 * " Did you mean: a, b?" with the closest names the caller can see (the snapshot is its view), else a pointer to
 * list_skills: a name hidden from the caller gets exactly the answer of a name that never existed.
 */
export function hint(snapshot: CatalogSnapshot, wanted: string): string {
  const close = closestNames(snapshot, wanted, 3);
  return close.length > 0 ? ` Did you mean: ${close.join(', ')}?` : ' Call list_skills to see what is available.';
}

export function closestNames(snapshot: CatalogSnapshot, wanted: string, count: number): string[] {
  const target = wanted.toLowerCase();
  const scored: Array<{ name: string; score: number }> = [];
  const seen = new Set<string>();
  for (const skill of snapshot.skills) {
    if (seen.has(skill.name)) continue;
    seen.add(skill.name);
    const name = skill.name;
    let score: number;
    if (name.includes(target) || target.includes(name)) score = Math.abs(name.length - target.length) * 0.1;
    else {
      // Close means a few edits for the name's length (at most 4); editDistance answers limit + 1 past its limit, so
      // the limit must be the threshold itself, or every long name would be "close" to everything.
      const threshold = Math.min(4, Math.max(2, Math.floor(target.length / 3)));
      const distance = editDistance(name, target, threshold);
      if (distance > threshold) continue;
      score = distance;
    }
    scored.push({ name, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : 1));
  return scored.slice(0, count).map((item) => item.name);
}
