import { statSync } from 'node:fs';
import { basename, dirname, resolve, sep } from 'node:path';
import { discoverSkills, inspectSkillFolder } from '@skillport/core';
import type { DigestCache, FolderProblem, InspectedSkill, Inspection, SkillLimits } from '@skillport/core';
import { buildCatalogSkill } from './catalog-skill.js';
import type { CatalogSkill } from './model.js';

/** A folder given to `serve`, and the URI prefix its skills go under. */
export interface FolderRoot {
  dir: string;
  prefix: string[];
}

/** One skill folder found under a root, with what inspecting it found. */
export interface ScannedFolder {
  root: FolderRoot;
  dir: string;
  /** Folder names from the root to the skill. */
  segments: string[];
  inspection: Inspection;
}

export interface ScanOptions {
  limits: SkillLimits;
  cache?: DigestCache;
  /** Frontmatter fields accepted without a warning (`serve --allow-field`, the `allowFields` setting). */
  allowFields?: readonly string[] | undefined;
}

export function normaliseRoot(dir: string, prefix: string | undefined): FolderRoot {
  const segments = (prefix ?? '').split('/').filter((segment) => segment !== '');
  for (const segment of segments) {
    if (segment === '.' || segment === '..' || segment.includes('\\')) throw new Error(`--prefix must be plain path segments (got ${JSON.stringify(prefix)})`);
  }
  return { dir: resolve(dir), prefix: segments };
}

/**
 * Why a root cannot be served at all, from the disk: it does not exist, it is a skill's SKILL.md (its folder was
 * meant), or it is another file. Undefined for a folder.
 */
export function rootProblem(dir: string): FolderProblem | undefined {
  let stats;
  try {
    stats = statSync(dir);
  } catch {
    return { severity: 'error', code: 'path-missing', message: `Path does not exist: ${dir}`, path: dir };
  }
  if (stats.isDirectory()) return undefined;
  if (/^skill\.md$/i.test(basename(dir))) {
    return { severity: 'error', code: 'skill-md-file', message: `${dir} is a skill's SKILL.md: pass its folder, ${dirname(dir)}`, path: dir };
  }
  return { severity: 'error', code: 'not-a-directory', message: `Not a directory: ${dir}`, path: dir };
}

/** Finds and inspects every skill under a root. */
export function scanRoot(root: FolderRoot, options: ScanOptions): { folders: ScannedFolder[]; problems: FolderProblem[] } {
  const discovery = discoverSkills(root.dir);
  const folders = discovery.skills.map((found) => scanFolder(root, found.dir, found.segments, options));
  return { folders, problems: discovery.problems };
}

export function scanFolder(root: FolderRoot, dir: string, segments: string[], options: ScanOptions): ScannedFolder {
  const inspection = inspectSkillFolder(dir, {
    limits: options.limits,
    servedRoot: root.dir,
    ...(options.cache ? { cache: options.cache } : {}),
    ...(options.allowFields?.length ? { allowFields: options.allowFields } : {}),
  });
  return { root, dir, segments, inspection };
}

/** Folder names from `root` down to `dir`, or undefined when `dir` is not inside `root`. */
export function segmentsUnder(root: FolderRoot, dir: string): string[] | undefined {
  if (dir === root.dir) return [];
  if (!dir.startsWith(root.dir + sep)) return undefined;
  return dir.slice(root.dir.length + 1).split(sep);
}

export interface Assembly {
  skills: CatalogSkill[];
  /** Problems of assembling (URI clashes, URIs that cannot be written), per skill folder. */
  problems: FolderProblem[];
}

/**
 * Gives every servable skill its URI. A skill's URI path mirrors where it sits under its root (after the prefix),
 * and the last segment is its name. When a folder's name differs from the skill's name (a spec warning), the skill
 * is served as `<parent>/<name>`; if that spot is taken by another skill, as `<parent>/<folder>/<name>`, so that
 * both stay reachable. Two skills that still land on one URI are a conflict: the first root (then folder) wins.
 */
export function assemble(folders: readonly ScannedFolder[]): Assembly {
  const problems: FolderProblem[] = [];
  const servable = folders.filter((folder) => folder.inspection.skill !== undefined);
  const key = (segments: string[]) => segments.join('\u0000');
  const pathOf = new Map<ScannedFolder, string[]>();
  const renamed: ScannedFolder[] = [];
  const taken = new Set<string>(); // paths of skills whose folder is named like the skill
  const wanted = new Map<string, number>(); // how many renamed skills want each path
  for (const folder of servable) {
    const skill = folder.inspection.skill!;
    const folderName = folder.segments.at(-1);
    const path = [...folder.root.prefix, ...folder.segments.slice(0, -1), skill.name];
    pathOf.set(folder, path);
    if (folderName === undefined || folderName.normalize('NFKC') === skill.name) taken.add(key(path));
    else {
      renamed.push(folder);
      wanted.set(key(path), (wanted.get(key(path)) ?? 0) + 1);
    }
  }
  for (const folder of renamed) {
    const path = key(pathOf.get(folder)!);
    if (taken.has(path) || wanted.get(path)! > 1) pathOf.set(folder, [...folder.root.prefix, ...folder.segments, folder.inspection.skill!.name]);
  }

  const byUri = new Map<string, CatalogSkill>();
  for (const folder of servable) {
    const skill = toCatalogSkill(folder, pathOf.get(folder)!);
    if (typeof skill === 'string') {
      problems.push({ severity: 'error', message: skill, path: folder.dir });
      continue;
    }
    const existing = byUri.get(skill.uri);
    if (existing !== undefined) {
      problems.push({
        severity: 'error',
        code: 'uri-conflict',
        message: `two skills at ${skill.uri}: ${originText(existing)} and ${folder.dir}; serving the first (use --prefix to separate folders)`,
        path: folder.dir,
      });
      continue;
    }
    byUri.set(skill.uri, skill);
  }
  return { skills: [...byUri.values()], problems };
}

/** The catalog skill of a folder served at `path`, or why that path cannot be a skill:// URI. */
export function toCatalogSkill(folder: ScannedFolder, path: string[]): CatalogSkill | string {
  const skill: InspectedSkill = folder.inspection.skill!;
  const built = buildCatalogSkill(skill, path, { kind: 'folder', root: folder.root.dir, dir: folder.dir, realDir: skill.realDir });
  return typeof built === 'string' ? `${built}; serve it with --prefix` : built;
}

/** Where a skill comes from, for messages: its folder, or its store's source. */
export function originText(skill: CatalogSkill): string {
  return skill.origin.kind === 'folder' ? skill.origin.dir : skill.origin.source;
}
