import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { CliError } from './kit.js';
import { configDir } from './user-config.js';
import type { Scope } from './agents.js';

/**
 * The install lockfile (ADR 0212): `skillport-lock.json` in the project root (the working folder), where npm keeps
 * package-lock.json and the `skills` CLI keeps skills-lock.json; for `--scope user`, in the user config folder.
 * The first lockfile format (version 1, `<dir>/skillport.lock.json` beside the skills) is still read.
 */
export const LOCKFILE = 'skillport-lock.json';
export const LEGACY_LOCKFILE = 'skillport.lock.json';

export interface LockTarget {
  /** The folder the skill was written into: relative to the lockfile's folder, `~/…` under the home folder, or absolute. */
  dir: string;
  agent?: string;
}

export interface LockedSkill {
  source: string;
  uri: string;
  version?: string;
  /** What was asked for: a tag (`latest`), an exact version or a semver range; `update` stays within it. */
  wanted?: string;
  packageDigest?: string;
  /** For a skill installed from a git repository (docs/git.md): the commit its files were read at. */
  commit?: string;
  files: Record<string, string>;
  /** Where it is installed (a lockfile of version 1 held one folder: the one beside it). */
  targets?: LockTarget[];
}

export interface Lockfile {
  version: 2;
  skills: Record<string, LockedSkill>;
}

export interface OpenedLock {
  path: string;
  lock: Lockfile;
  /** The version 1 file it was read from, when that is where it was. */
  legacy?: string;
}

/** Where the lockfile is: `--lockfile`, else beside a version 1 file in `--to` when there is one, else the default. */
export function lockfilePath(options: { lockfile?: string; to?: string; scope?: Scope }): { path: string; legacy?: string } {
  if (options.lockfile !== undefined) return { path: resolve(options.lockfile) };
  const path = options.scope === 'user' ? join(configDir(), LOCKFILE) : resolve(LOCKFILE);
  if (options.to !== undefined && !existsSync(path)) {
    const legacy = resolve(options.to, LEGACY_LOCKFILE);
    if (existsSync(legacy)) return { path, legacy };
  }
  return { path };
}

export function readLock(where: { path: string; legacy?: string }): OpenedLock {
  const from = existsSync(where.path) ? where.path : where.legacy;
  if (from === undefined || !existsSync(from)) return { path: where.path, lock: { version: 2, skills: {} } };
  let data: { version?: unknown; skills?: unknown };
  try {
    data = JSON.parse(readFileSync(from, 'utf8')) as typeof data;
  } catch (error) {
    throw new CliError(`${from}: not valid JSON (${(error as Error).message})`);
  }
  if ((data.version !== 1 && data.version !== 2) || data.skills === null || typeof data.skills !== 'object')
    throw new CliError(`${from}: not a skillport lockfile (version 1 or 2)`);
  const skills = data.skills as Record<string, LockedSkill>;
  if (data.version === 1) {
    // Version 1 lived beside the skills it installed: that folder is each skill's target.
    const beside = dirname(from);
    for (const entry of Object.values(skills)) entry.targets ??= [{ dir: targetDir(beside, where.path) }];
  }
  return { path: where.path, lock: { version: 2, skills }, ...(from !== where.path ? { legacy: from } : {}) };
}

export function writeLock(opened: OpenedLock): void {
  const sorted: Lockfile = {
    version: 2,
    skills: Object.fromEntries(Object.entries(opened.lock.skills).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
  mkdirSync(dirname(opened.path), { recursive: true });
  const temp = `${opened.path}.tmp-${process.pid}`;
  writeFileSync(temp, `${JSON.stringify(sorted, null, 2)}\n`);
  renameSync(temp, opened.path);
}

/** A folder as the lockfile records it: relative to the lockfile's folder inside it, `~/…` under home, else absolute. */
export function targetDir(folder: string, lockPath: string): string {
  const absolute = resolve(folder);
  const base = dirname(lockPath);
  const rel = relative(base, absolute);
  if (rel === '') return '.';
  if (!rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/');
  const home = relative(homedir(), absolute);
  if (!home.startsWith('..') && !isAbsolute(home)) return `~/${home.split(sep).join('/')}`;
  return absolute;
}

/** A recorded folder back to an absolute path. */
export function targetPath(dir: string, lockPath: string): string {
  if (dir === '~' || dir.startsWith('~/')) return join(homedir(), dir.slice(2));
  return resolve(dirname(lockPath), dir);
}
