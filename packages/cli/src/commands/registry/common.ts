import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { declaredVersion, inspectSkillFolder, refusedAtPublish, resolveLimits, sha256Digest } from '@skillport/core';
import type { SkillFileEntry } from '@skillport/core';
import type { ArchiveManifest, Provenance, RegistryClient } from '@skillport/registry/client';
import { CliError, action } from '../../kit.js';
import type { ExitCode } from '../../kit.js';
import { displayPath } from '../../output.js';
import { environment } from '../../environment.js';
import type { Environment } from '../../environment.js';
import { probeHealth, withoutHtml } from '../../server-url.js';
import { tokenFor } from '../../user-config.js';

/** Failures a registry command reports as one line (exit 1), or as a usage error (exit 2): the kit's CliError. */
export class CommandError extends CliError {
  override name = 'CommandError';
}

/** `name@version` -> parts; a usage error otherwise. */
export function parseRef(text: string): { name: string; version: string } {
  const at = text.lastIndexOf('@');
  if (at <= 0 || at === text.length - 1) throw new CommandError(`expected NAME@VERSION (e.g. pdf-tools@1.2.0), got ${JSON.stringify(text)}`, 2);
  return { name: text.slice(0, at), version: text.slice(at + 1) };
}

export interface TargetOptions {
  registry?: string;
  token?: string;
  data?: string;
}

/** Where a command acts: a server (`--registry URL`, token from --token or SKILLPORT_TOKEN) or a local store (`--data DIR`). */
export type Target = { kind: 'http'; client: RegistryClient } | { kind: 'local'; dir: string };

export async function target(options: TargetOptions): Promise<Target> {
  if (options.registry !== undefined && options.data !== undefined) throw new CommandError('give either --registry URL or --data DIR, not both', 2);
  if (options.data !== undefined) return { kind: 'local', dir: options.data };
  const registry = options.registry ?? environment().registry;
  if (registry === undefined || registry === '')
    throw new CommandError('give the registry: --registry URL (or SKILLPORT_REGISTRY), or --data DIR for a local store', 2);
  const { RegistryClient, ApiError } = await import('@skillport/registry/client');
  const { token } = /^https?:\/\//i.test(registry) ? tokenFor(registry, options.token) : { token: options.token };
  try {
    const client = new RegistryClient({ registry, ...(token ? { token } : {}) });
    registryBase = client.base;
    return { kind: 'http', client };
  } catch (error) {
    if (error instanceof ApiError) throw new CommandError(error.message, 2);
    throw error;
  }
}

/** How to name a store in messages: a folder as a path, a PostgreSQL URL without its password. */
export function displayStore(data: string): string {
  if (!/^postgres(ql)?:\/\//i.test(data)) return displayPath(resolve(data));
  try {
    const url = new URL(data);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/**
 * Runs `work` against a local store in DIR, or on PostgreSQL (opened and closed around it). Only publish creates a
 * store: a mistyped --data folder must not leave an empty one behind and answer "no such skill".
 */
export async function withLocal<T>(
  dir: string,
  work: (registry: import('@skillport/registry').OpenRegistry) => Promise<T>,
  options: { create?: boolean } = {},
): Promise<T> {
  if (!options.create && !/^postgres(ql)?:\/\//i.test(dir) && !existsSync(join(dir, 'registry.db')))
    throw new CommandError(`no registry data at ${displayStore(dir)} (no registry.db): check --data, or publish into it first`);
  const { openRegistry } = await import('@skillport/registry');
  const registry = await openRegistry({ dir, pollMs: 0 });
  try {
    return await work(registry);
  } finally {
    await registry.close();
  }
}

export interface LoadedPackage {
  name: string;
  files: SkillFileEntry[];
  manifest: ArchiveManifest;
}

/**
 * A skill to pack or publish, from a folder (inspected with validate's rules: errors refuse it, warnings are
 * reported through `onWarning` and refuse it only with `strict`) or from a .skill / tar.gz file (read with the
 * archive reader's protections; the registry applies the rules to it).
 */
export async function loadPackage(
  path: string,
  options: {
    version?: string;
    provenance?: Provenance;
    maxFiles?: number;
    maxBytes?: number;
    strict?: boolean;
    allowFields?: readonly string[];
    onWarning?: (line: string) => void;
  },
): Promise<LoadedPackage> {
  const registry = await import('@skillport/registry/client');
  const limits = resolveLimits({ ...(options.maxFiles ? { maxFiles: options.maxFiles } : {}), ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}) });
  let stat;
  try {
    stat = statSync(path);
  } catch {
    throw new CommandError(`${path}: no such file or folder`);
  }
  let name: string;
  let files: SkillFileEntry[];
  let fromArchive: ArchiveManifest | undefined;
  // The version the registry would read (metadata.version, else a top-level version): pack names the file with it.
  let declared: string | undefined;
  if (stat.isDirectory()) {
    const inspection = inspectSkillFolder(path, { limits, ...(options.allowFields ? { allowFields: options.allowFields } : {}) });
    const refused = refusedAtPublish(inspection.problems, inspection.skill?.files.map((file) => file.path) ?? [], options.strict);
    if (inspection.skill === undefined || refused.length > 0) {
      const lines = refused.map((problem) => `  error: ${problem.message}`).join('\n');
      throw new CommandError(`${path} does not validate${options.strict ? ' strictly (--strict: warnings refuse it too)' : ''}:\n${lines}`);
    }
    for (const problem of inspection.problems) options.onWarning?.(`${displayPath(problem.path)}: ${problem.message}`);
    const skill = inspection.skill;
    name = skill.name;
    declared = declaredVersion(skill.frontmatter);
    files = skill.files.map((file) => {
      const bytes = readFileSync(file.target ?? join(skill.realDir, file.path));
      if (sha256Digest(bytes) !== file.digest) throw new CommandError(`${join(path, file.path)} changed while it was being packed; try again`);
      return { path: file.path, bytes };
    });
  } else {
    let read;
    try {
      read = await registry.readSkillPackage(readFileSync(path), limits);
    } catch (error) {
      if (error instanceof registry.ArchiveError) throw new CommandError(`${basename(path)}: ${error.message}`);
      throw error;
    }
    files = read.files;
    fromArchive = read.manifest;
    name = read.manifest?.name ?? read.folderName ?? basename(path).replace(/(\.skill|\.tar\.gz|\.tgz)$/, '');
  }
  const version = options.version ?? fromArchive?.version ?? declared;
  const provenance = { ...fromArchive?.provenance, ...options.provenance };
  const manifest = registry.manifestFor(name, files, { ...(version !== undefined ? { version } : {}), provenance, signatures: fromArchive?.signatures ?? [] });
  return { name, files, manifest };
}

/** Adds a signature by the private key in `keyFile` over the package digest. */
export async function sign(pkg: LoadedPackage, keyFile: string): Promise<void> {
  const { signDigest } = await import('@skillport/registry/client');
  let pem: string;
  try {
    pem = readFileSync(keyFile, 'utf8');
  } catch (error) {
    throw new CommandError(`cannot read the signing key ${keyFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let signature;
  try {
    signature = signDigest(pkg.manifest.packageDigest, pem);
  } catch (error) {
    throw new CommandError(`${keyFile}: ${(error as Error).message}`);
  }
  pkg.manifest.signatures = [...(pkg.manifest.signatures ?? []).filter((s) => s.keyId !== signature.keyId), signature];
}

/** Provenance from flags, else from the CI environment (GitHub Actions, GitLab CI) when it says. */
export function provenanceFrom(
  options: { sourceRepo?: string; sourceCommit?: string },
  ci: Pick<Environment, 'ciRepository' | 'ciCommit'> = environment(),
): Provenance {
  const provenance: Provenance = {};
  const repo = options.sourceRepo ?? ci.ciRepository;
  const commit = options.sourceCommit ?? ci.ciCommit;
  if (repo) provenance.repository = repo;
  if (commit) provenance.commit = commit;
  return provenance;
}

/** Prints the result: JSON on stdout with --json, else the given lines. */
export function report(json: boolean | undefined, value: unknown, lines: string[]): void {
  if (json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  else for (const line of lines) process.stdout.write(`${line}\n`);
}

/** Runs a registry command with the kit's action wrapper: registry and API failures are one line and exit 1. */
export async function run(exit: ExitCode, work: () => Promise<void>): Promise<void> {
  await action(exit, work, describeError)();
}

/** The registry server the command talks to, for messages about it. */
let registryBase: string | undefined;

/** A registry or API failure as one line; undefined for anything else. */
export async function describeError(error: unknown): Promise<string | undefined> {
  const { ApiError, RegistryError } = await import('@skillport/registry/client');
  if (error instanceof ApiError) {
    // A skillport server without --data has no /api/v1: say what it is and how to make it a registry.
    if (error.status === 404 && error.code === 'not_found' && /no such API path/.test(error.message) && registryBase !== undefined) {
      const health = await probeHealth(registryBase);
      if (health !== undefined && health['registry'] === undefined)
        return `${registryBase} is a skillport server without a registry: it serves folders; start it with --data DIR to publish`;
    }
    return withoutHtml(`${error.message}${error.status ? ` (HTTP ${error.status})` : ''}`);
  }
  if (error instanceof RegistryError) return error.message;
  return undefined;
}
