import { readdirSync, realpathSync, statSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import { join } from 'node:path';
import { holdsPath } from './holds-path.js';
import type { FolderProblem } from './skill-folder.js';

/**
 * Finds skill folders under a root: the root itself when it holds a SKILL.md, otherwise every folder below it that
 * does, at any depth (a folder of skills, or a tree such as one folder per source repository). A SKILL.md nested
 * inside a skill is one of the outer skill's files (as the extension says) and also a skill of its own.
 * Symlinked folders are followed once (cycles are cut by real path) until a skill folder is reached; below a
 * skill folder, only real folders are searched. `.git` and `node_modules` are skipped.
 */
export interface DiscoveredSkill {
  /** Absolute path of the skill folder (as reached, links not resolved). */
  dir: string;
  /** Folder names from the root down to the skill folder; empty when the root is the skill. */
  segments: string[];
}

export interface Discovery {
  skills: DiscoveredSkill[];
  problems: FolderProblem[];
}

const SKIPPED = new Set(['.git', 'node_modules']);
/** Folders below the root searched for skills; deeper ones are named in a warning, never dropped silently. */
export const MAX_DISCOVERY_DEPTH = 16;

export interface DiscoverOptions {
  /** How many folders `root` already sits below the served root (a rescan from inside a tree): the depth counts from there. */
  depth?: number;
  /** The folder being served, when `root` is a folder inside it (a rescan): links that hold it are not followed. */
  servedRoot?: string;
}

export function discoverSkills(root: string, options: DiscoverOptions = {}): Discovery {
  const startDepth = options.depth ?? 0;
  const served = options.servedRoot ?? root;
  let servedReal: string | undefined;
  try {
    servedReal = realpathSync(served);
  } catch {
    servedReal = undefined;
  }
  const skills: DiscoveredSkill[] = [];
  const problems: FolderProblem[] = [];
  const seen = new Set<string>();
  try {
    if (!statSync(root).isDirectory()) {
      problems.push({ severity: 'error', code: 'not-a-directory', message: `Not a directory: ${root}`, path: root });
      return { skills, problems };
    }
  } catch {
    problems.push({ severity: 'error', code: 'path-missing', message: `Path does not exist: ${root}`, path: root });
    return { skills, problems };
  }

  // Plain folders form a tree (no cycles); only a symlinked folder can loop back, so only those are resolved.
  const visit = (dir: string, segments: string[], viaLink: boolean, insideSkill: boolean, isLink = false): void => {
    if (viaLink || segments.length === 0) {
      let real: string;
      try {
        real = realpathSync(dir);
      } catch {
        return;
      }
      if (dir !== served && servedReal !== undefined && holdsPath(real, servedReal)) {
        problems.push({ severity: 'warning', message: `symbolic link to ${real}, a folder that holds the served folder; not followed`, path: dir });
        return;
      }
      // A link out of the served folder brings in one skill (a skills folder made of links to skills), never a tree
      // to search: a cloned repository's `docs -> ../..` must not serve whatever skill folders the machine holds.
      if (isLink && servedReal !== undefined && !holdsPath(servedReal, real) && !holdsSkillMd(dir)) {
        problems.push({
          severity: 'warning',
          message: `symbolic link to ${real}, outside the served folder and not a skill folder; not followed (link a skill folder itself, or serve that folder too)`,
          path: dir,
        });
        return;
      }
      if (seen.has(real)) return;
      seen.add(real);
    }
    const step = folderStep(dir, segments, insideSkill, startDepth, problems);
    if (step === undefined) return;
    if (step.isSkill) skills.push({ dir, segments });
    for (const next of step.next) visit(next.dir, next.segments, viaLink || next.link, next.insideSkill, next.link);
  };
  visit(root, [], false, false);
  return { skills, problems };
}

/** One folder of the walk: whether it is a skill, and the folders below it to walk, in name order. */
export interface FolderStep {
  isSkill: boolean;
  /** `link`: reached through a symbolic link (the walk checks its real path before going in). */
  next: Array<{ dir: string; segments: string[]; link: boolean; insideSkill: boolean }>;
}

/**
 * One folder as `discoverSkills` reads it (its problems added to `problems`); undefined when it cannot be read.
 * Exported for a walk in another order (the server's first page, best-first by URI), so the rules stay in one place.
 */
export function folderStep(dir: string, segments: string[], insideSkill: boolean, startDepth: number, problems: FolderProblem[]): FolderStep | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    problems.push({ severity: 'warning', message: `folder could not be read: ${(error as Error).message}`, path: dir });
    return undefined;
  }
  // A folder with a SKILL.md is a skill. Its sub-folders are still searched: published repositories nest
  // skills inside skills (the nested SKILL.md is then both a file of the outer skill and a skill of its own).
  // `skill.md` counts when there is no `SKILL.md`, as the reference validator accepts it (served as SKILL.md).
  const manifest = entries.find((entry) => entry.name === 'SKILL.md') ?? entries.find((entry) => entry.name === 'skill.md');
  const isSkill = manifest !== undefined && (manifest.isFile() || (manifest.isSymbolicLink() && isFile(join(dir, manifest.name))));
  if (!isSkill && manifest !== undefined && !insideSkill && (manifest.isDirectory() || (manifest.isSymbolicLink() && isDirectory(join(dir, manifest.name))))) {
    // Someone meant a skill here: say why it is not one rather than pass over it.
    problems.push({ severity: 'warning', message: `${manifest.name} is a folder, not a file; not a skill`, path: join(dir, manifest.name) });
  }
  // Inside a skill, links to folders are never followed (skill-folder.ts leaves them out of the skill, and a
  // nested skill reached through one would serve files from outside the folder).
  const within = insideSkill || isSkill;
  const next: FolderStep['next'] = [];
  if (startDepth + segments.length >= MAX_DISCOVERY_DEPTH) {
    // Only worth a word where a skill could still be found: outside a skill (its own deep folders are its files,
    // checked by skill-folder.ts), below a folder that has folders.
    if (!within && entries.some((entry) => entry.isDirectory() && !SKIPPED.has(entry.name))) {
      problems.push({
        severity: 'warning',
        message: `folders deeper than ${MAX_DISCOVERY_DEPTH} levels are not searched for skills`,
        path: dir,
      });
    }
    return { isSkill, next };
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (SKIPPED.has(entry.name)) continue;
    const child = join(dir, entry.name);
    if (entry.isDirectory()) next.push({ dir: child, segments: [...segments, entry.name], link: false, insideSkill: within });
    else if (!within && entry.isSymbolicLink() && isDirectory(child))
      next.push({ dir: child, segments: [...segments, entry.name], link: true, insideSkill: false });
  }
  return { isSkill, next };
}

/** Whether a folder holds a SKILL.md (or skill.md) file: a skill folder. */
function holdsSkillMd(dir: string): boolean {
  return isFile(join(dir, 'SKILL.md')) || isFile(join(dir, 'skill.md'));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
