import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FolderProblem } from './skill-folder.js';

/**
 * Finds skill folders under a root: the root itself when it holds a SKILL.md, otherwise every folder below it that
 * does, at any depth (a folder of skills, or a tree such as one folder per source repository). A SKILL.md nested
 * inside a skill is one of the outer skill's files (as the extension says) and also a skill of its own.
 * Symlinked folders are followed once (cycles are cut by real path). `.git` and `node_modules` are skipped.
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
const MAX_DEPTH = 16;

export function discoverSkills(root: string): Discovery {
  const skills: DiscoveredSkill[] = [];
  const problems: FolderProblem[] = [];
  const seen = new Set<string>();
  try {
    if (!statSync(root).isDirectory()) {
      problems.push({ severity: 'error', message: `Not a directory: ${root}`, path: root });
      return { skills, problems };
    }
  } catch {
    problems.push({ severity: 'error', message: `Path does not exist: ${root}`, path: root });
    return { skills, problems };
  }

  const visit = (dir: string, segments: string[]): void => {
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      return;
    }
    if (seen.has(real)) return;
    seen.add(real);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (error) {
      problems.push({ severity: 'warning', message: `folder could not be read: ${(error as Error).message}`, path: dir });
      return;
    }
    // A folder with a SKILL.md is a skill. Its sub-folders are still searched: published repositories nest
    // skills inside skills (the nested SKILL.md is then both a file of the outer skill and a skill of its own).
    if (names.includes('SKILL.md') && isFile(join(dir, 'SKILL.md'))) skills.push({ dir, segments });
    if (segments.length >= MAX_DEPTH) return;
    names.sort();
    for (const name of names) {
      if (SKIPPED.has(name)) continue;
      const child = join(dir, name);
      if (isDirectory(child)) visit(child, [...segments, name]);
    }
  };
  visit(root, []);
  return { skills, problems };
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
