import { canonicalSkillUri } from '@skillport/core';
import type { CatalogFile, CatalogSkill } from '@skillport/server';

/**
 * Page addresses for skills and files. A skill `skill://a/b/SKILL.md` lives at `/skills/a/b`; its pages below
 * `/-/` (a segment no skill URI path holds on its own, since URI segments are skill and folder names):
 * `/skills/a/b/-/files/<path>` (a file's page), `/-/raw/<path>` (its bytes, as a download), `/-/compare`.
 * URI segments are already percent-encoded canonically, so they are reused as they are.
 */
export function skillPath(skill: Pick<CatalogSkill, 'rootUri'>): string {
  return `/skills/${skill.rootUri.slice('skill://'.length)}`;
}

export function relativeFileUri(skill: CatalogSkill, file: CatalogFile): string {
  return file.uri.slice(skill.rootUri.length + 1);
}

export function filePath(skill: CatalogSkill, file: CatalogFile): string {
  return `${skillPath(skill)}/-/files/${relativeFileUri(skill, file)}`;
}

export function rawPath(skill: CatalogSkill, file: CatalogFile): string {
  return `${skillPath(skill)}/-/raw/${relativeFileUri(skill, file)}`;
}

export type SkillRoute = { kind: 'skill'; uri: string } | { kind: 'file' | 'raw'; uri: string; file: string } | { kind: 'compare'; uri: string };

/** Parses `/skills/...` into the skill URI and what is asked of it; undefined for anything malformed. */
export function parseSkillRoute(path: string): SkillRoute | undefined {
  const rest = path.slice('/skills/'.length);
  const split = rest.indexOf('/-/');
  const skillPart = (split < 0 ? rest : rest.slice(0, split)).replace(/\/$/, '');
  if (skillPart === '') return undefined;
  const uri = canonicalSkillUri(`skill://${skillPart}/SKILL.md`);
  if (uri === undefined) return undefined;
  if (split < 0) return { kind: 'skill', uri };
  const tail = rest.slice(split + 3);
  if (tail === 'compare') return { kind: 'compare', uri };
  const match = /^(files|raw)\/(.+)$/.exec(tail);
  if (!match) return undefined;
  return { kind: match[1] === 'files' ? 'file' : 'raw', uri, file: match[2]! };
}

/** Resolves a path written inside SKILL.md (`references/x.md`, `./a.png`) against the skill's files. */
export function resolveRelative(skill: CatalogSkill, relative: string): CatalogFile | undefined {
  const clean = relative.split('#')[0]!.split('?')[0]!;
  if (clean === '') return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(clean);
  } catch {
    return undefined;
  }
  const parts: string[] = [];
  for (const part of decoded.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.pop() === undefined) return undefined;
    } else parts.push(part);
  }
  const path = parts.join('/');
  return skill.files.find((file) => file.path === path);
}
