import { statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { FolderProblem, SkillLimits } from '@skillport/core';
import type { SkillProvider } from '@skillport/server';
import type { RemoteSpec } from './config.js';

/**
 * What `serve` is given on its command line (and in a config's `dirs`): folders, and archive files (`.skill`,
 * `.zip`, `.tar.gz`, ...), told apart by what is on disk: a regular file is an archive (its format is read from its
 * bytes), anything else is a folder (a path that does not exist stays a folder, so it gets the folder's clear
 * "does not exist" error). Archives inside served folders are not served as skills: there they may be a skill's
 * own asset (an `assets/template.zip`); name an archive to serve it (ADR 0010).
 */
export function splitSources(paths: readonly string[]): { folders: string[]; archives: string[] } {
  const folders: string[] = [];
  const archives: string[] = [];
  for (const path of paths) {
    let isFile = false;
    try {
      isFile = statSync(path).isFile();
    } catch {
      /* missing: reported as a folder that does not exist */
    }
    // A skill's SKILL.md is not an archive: as a folder source it gets "pass its folder" (rootProblem).
    (isFile && !/^skill\.md$/i.test(basename(path)) ? archives : folders).push(path);
  }
  return { folders, archives };
}

export interface SourceOptions {
  prefix?: string;
  strict?: boolean;
  cache: boolean;
  cacheDir?: string;
  limits: SkillLimits;
}

/**
 * The folders to scan and the providers for everything else (archives, remote hosts), opened at once (remote hosts
 * in parallel). Returns a one-line error instead when one cannot be used at all (a bad URL), or when `--strict`
 * and any of them reported a problem; whatever was opened is closed again then.
 */
export async function openSources(
  paths: readonly string[],
  remotes: readonly RemoteSpec[],
  options: SourceOptions,
  onProblem: (problem: FolderProblem) => void,
): Promise<{ folders: string[]; providers: SkillProvider[] } | string> {
  const { folders, archives } = splitSources(paths);
  const providers: SkillProvider[] = [];
  const fail = async (message: string) => {
    for (const provider of providers) await provider.close?.();
    return message;
  };
  // Loaded only when needed, like the server itself.
  const { ArchiveProvider, HttpProvider, defaultCacheDir } = await import('@skillport/server');
  if (archives.length > 0) {
    const provider = await ArchiveProvider.open({
      archives,
      ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
      limits: options.limits,
      onProblem,
    });
    providers.push(provider);
    if (options.strict === true && provider.startupProblems.length > 0)
      return fail(`--strict: ${provider.startupProblems.length} problem(s) in the skill archives`);
  }
  const opened = await Promise.allSettled(
    remotes.map((remote) =>
      HttpProvider.open({
        ...remote,
        ...(remote.prefix === undefined && options.prefix !== undefined ? { prefix: options.prefix } : {}),
        limits: options.limits,
        ...(options.cache ? { cacheDir: join(options.cacheDir ?? defaultCacheDir(), 'blobs') } : {}),
        onProblem,
      }),
    ),
  );
  for (const result of opened) if (result.status === 'fulfilled') providers.push(result.value);
  for (const result of opened) if (result.status === 'rejected') return fail((result.reason as Error).message);
  for (const result of opened) {
    if (result.status === 'fulfilled' && options.strict === true && result.value.startupProblems.length > 0) {
      return fail(`--strict: ${result.value.startupProblems.length} problem(s) with ${result.value.label}`);
    }
  }
  return { folders, providers };
}
