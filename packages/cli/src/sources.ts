import { existsSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { FolderProblem, SkillLimits } from '@skillport/core';
import type { GitProvider, SkillProvider } from '@skillport/server';
import type { RemoteSpec } from './config.js';
import { displayPath } from './output.js';
import { environment } from './environment.js';

/**
 * What `serve` is given on its command line (and in a config's `dirs`): folders, and archive files (`.skill`,
 * `.zip`, `.tar.gz`, ...), told apart by what is on disk: a regular file is an archive (its format is read from its
 * bytes), anything else is a folder (a path that does not exist stays a folder, so it gets the folder's clear
 * "does not exist" error). Archives inside served folders are not served as skills: there they may be a skill's
 * own asset (an `assets/template.zip`); name an archive to serve it (ADR 0010).
 */
export function splitSources(paths: readonly string[]): { folders: string[]; archives: string[]; git: string[]; marketplaces: string[] } {
  const folders: string[] = [];
  const archives: string[] = [];
  const git: string[] = [];
  const marketplaces: string[] = [];
  for (const path of paths) {
    // git+https://…, git:./repo#main: a repository (docs/git.md); a folder named so is written ./git:…
    if (GIT_SOURCE.test(path)) {
      git.push(path);
      continue;
    }
    let isFile = false;
    try {
      isFile = statSync(path).isFile();
    } catch {
      /* missing: reported as a folder that does not exist */
    }
    // A folder with .claude-plugin/marketplace.json is a plugin marketplace: its listed plugins' skills (docs/git.md).
    if (!isFile && existsSync(join(path, '.claude-plugin', 'marketplace.json'))) {
      marketplaces.push(path);
      continue;
    }
    // A skill's SKILL.md is not an archive: as a folder source it gets "pass its folder" (rootProblem).
    (isFile && !/^skill\.md$/i.test(basename(path)) ? archives : folders).push(path);
  }
  return { folders, archives, git, marketplaces };
}

const GIT_SOURCE = /^git(\+[a-z]+:\/\/|:)/;

/** A source as messages name it: a path shown as given, a git URL without its user info (a token). */
export function sourceLabel(source: string): string {
  return GIT_SOURCE.test(source) ? source.replace(/(:\/\/)[^/@\s]+@/, '$1') : displayPath(source);
}

export interface SourceOptions {
  prefix?: string;
  strict?: boolean;
  cache: boolean;
  cacheDir?: string;
  limits: SkillLimits;
  /** How often a git source's ref is asked for (ms; 0: only on webhooks and, for a local one, its ref files). */
  gitIntervalMs?: number;
  /** Lines about git fetches (a new commit served, a failure, a recovery). */
  onEvent?: (line: string) => void;
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
): Promise<{ folders: string[]; providers: SkillProvider[]; git: GitProvider[] } | string> {
  const { folders, archives, git, marketplaces } = splitSources(paths);
  const providers: SkillProvider[] = [];
  const fail = async (message: string) => {
    for (const provider of providers) await provider.close?.();
    return message;
  };
  // Loaded only when needed, like the server itself.
  const { ArchiveProvider, GitProvider, HttpProvider, MarketplaceProvider, defaultCacheDir } = await import('@skillport/server');
  for (const dir of marketplaces) {
    const provider = await MarketplaceProvider.open({
      dir,
      ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
      limits: options.limits,
      onProblem,
    });
    providers.push(provider);
    if (options.strict === true && provider.startupProblems.length > 0)
      return fail(`--strict: ${provider.startupProblems.length} problem(s) in the marketplace ${dir}`);
  }
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
        ...(options.cache ? { cacheDir: join(options.cacheDir ?? defaultCacheDir(environment().xdgCacheHome), 'blobs') } : {}),
        onProblem,
      }),
    ),
  );
  const env = environment();
  const repositories = await Promise.allSettled(
    git.map((source) =>
      GitProvider.open({
        source,
        ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
        limits: options.limits,
        ...(options.cache ? { cacheDir: join(options.cacheDir ?? defaultCacheDir(environment().xdgCacheHome), 'git') } : {}),
        ...(options.gitIntervalMs !== undefined ? { intervalMs: options.gitIntervalMs } : {}),
        // Credentials come from the environment (or a file it names), never from the command line.
        ...(env.gitToken !== undefined ? { token: env.gitToken } : {}),
        ...(env.gitUsername !== undefined ? { username: env.gitUsername } : {}),
        ...(env.gitCredentials !== undefined ? { credentialsFile: env.gitCredentials } : {}),
        onProblem,
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      }),
    ),
  );
  const gitProviders: GitProvider[] = [];
  for (const result of [...opened, ...repositories]) if (result.status === 'fulfilled') providers.push(result.value);
  for (const result of repositories) if (result.status === 'fulfilled') gitProviders.push(result.value);
  for (const result of [...opened, ...repositories]) if (result.status === 'rejected') return fail((result.reason as Error).message);
  for (const result of [...opened, ...repositories]) {
    if (result.status === 'fulfilled' && options.strict === true && result.value.startupProblems.length > 0) {
      return fail(`--strict: ${result.value.startupProblems.length} problem(s) with ${result.value.label}`);
    }
  }
  return { folders, providers, git: gitProviders };
}
