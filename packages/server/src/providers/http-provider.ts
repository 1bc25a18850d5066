import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_LIMITS,
  DiscoveryIndexError,
  inspectSkillArchive,
  inspectSkillFiles,
  parseDiscoveryIndex,
  resolveArchiveLimits,
  sha256Digest,
} from '@skillport/core';
import type { ArchiveLimits, DiscoveryEntry, FolderProblem, SkillLimits } from '@skillport/core';
import type { CatalogSkill } from '../catalog/model.js';
import { FetchError, displayUrl, fetchWithRetries } from './http-fetch.js';
import type { FetchPolicy } from './http-fetch.js';
import { ProviderBase, storedCatalogSkill } from './stored-skill.js';

/**
 * Skills published on a static HTTP host with an Agent Skills discovery index (format 0.2.0, see
 * core/src/discovery-index.ts): `skill-md` entries (a lone SKILL.md) and `archive` entries (.tar.gz or .zip, read
 * with the safe archive reader). Every artifact is checked against the index's SHA-256 digest before anything in
 * it is used, so the host (or anything between) cannot change a skill without changing the index. Artifacts are
 * cached by digest, in memory (a skill whose digest did not change is not fetched again) and, when a cache folder
 * is given, on disk (a restart serves from the cache; cached bytes are verified again when read back).
 *
 * The index is fetched again every `refreshMs` (with If-None-Match when the host gave an ETag). A refresh that fails
 * keeps the last good skills; an artifact that fails keeps its previous version, if any. Problems are reported once
 * per distinct message, with URLs shown without query strings (the credentials never appear; see http-fetch.ts).
 */
export interface HttpProviderOptions {
  /** The index URL (`.../index.json`), or a base URL under which to look for one (see indexCandidates). */
  url: string;
  /** Sent with every request to the index's origin (e.g. Authorization); never logged. */
  headers?: Record<string, string>;
  /** Added to the query of every request to the index's origin (e.g. a signed-URL token); never logged. */
  params?: Record<string, string>;
  /** Other hosts artifacts may be fetched from (a CDN); credentials are not sent to them. */
  allowHosts?: string[];
  /** Serve only these skills of the index (agentskills-mcp-server's `id`). */
  only?: string[];
  prefix?: string;
  timeoutMs?: number;
  retries?: number;
  backoffMs?: number;
  /** How often the index is fetched again once watching (ms; 0: never). */
  refreshMs?: number;
  maxIndexBytes?: number;
  limits?: SkillLimits;
  archiveLimits?: Partial<ArchiveLimits>;
  /** Folder for artifacts cached by digest (none: memory only). */
  cacheDir?: string;
  /** Parallel artifact fetches. */
  concurrency?: number;
  /**
   * How long open() waits for the first load (ms). Past it the server starts without these skills, and they are
   * published (and announced) when they arrive: a slow host must not keep a stdio client waiting for the server.
   */
  startupWaitMs?: number;
  onProblem?: (problem: FolderProblem) => void;
}

export const HTTP_DEFAULTS = {
  timeoutMs: 15_000,
  retries: 3,
  backoffMs: 500,
  refreshMs: 300_000,
  maxIndexBytes: 1024 * 1024,
  concurrency: 4,
  startupWaitMs: 20_000,
} as const;

interface EntryState {
  digest: string;
  skill: CatalogSkill;
}

export class HttpProvider extends ProviderBase {
  readonly label: string;
  readonly startupProblems: FolderProblem[] = [];
  readonly #options: HttpProviderOptions;
  readonly #policy: FetchPolicy;
  readonly #archiveLimits: ArchiveLimits;
  readonly #limits: SkillLimits;
  readonly #prefix: string[];
  readonly #closing = new AbortController();
  #indexUrl: string | undefined;
  #etag: string | undefined;
  #served = new Map<string, EntryState>();
  #reported = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #starting = true;
  #refreshing: Promise<void> | undefined;

  private constructor(options: HttpProviderOptions) {
    super();
    let base: URL;
    try {
      base = new URL(options.url);
    } catch {
      throw new Error(`remote source: ${JSON.stringify(options.url.slice(0, 200))} is not a URL`);
    }
    if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new Error(`remote source ${displayUrl(base)}: only http and https are supported`);
    if (base.username !== '' || base.password !== '') throw new Error(`remote source ${displayUrl(base)}: put credentials in headers, not in the URL`);
    this.#options = options;
    this.label = base.origin;
    const allowed = new Set([base.origin]);
    for (const host of options.allowHosts ?? []) {
      try {
        allowed.add(new URL(/^https?:\/\//.test(host) ? host : `https://${host}`).origin);
      } catch {
        throw new Error(`remote source ${displayUrl(base)}: allowHosts entry ${JSON.stringify(host)} is not a host name`);
      }
    }
    this.#policy = {
      headers: options.headers ?? {},
      params: options.params ?? {},
      credentialOrigin: base.origin,
      allowedOrigins: allowed,
      timeoutMs: options.timeoutMs ?? HTTP_DEFAULTS.timeoutMs,
      retries: options.retries ?? HTTP_DEFAULTS.retries,
      backoffMs: options.backoffMs ?? HTTP_DEFAULTS.backoffMs,
      signal: this.#closing.signal,
    };
    this.#limits = options.limits ?? DEFAULT_LIMITS;
    this.#archiveLimits = resolveArchiveLimits({
      maxArchiveBytes: this.#limits.maxBytes,
      maxUncompressedBytes: this.#limits.maxBytes,
      ...options.archiveLimits,
    });
    this.#prefix = (options.prefix ?? '').split('/').filter((segment) => segment !== '');
  }

  /** Fetches the index and its skills. Network trouble is reported, not thrown: the server starts without them. */
  static async open(options: HttpProviderOptions): Promise<HttpProvider> {
    const provider = new HttpProvider(options);
    const first = provider.refresh().finally(() => (provider.#starting = false));
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      first.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), options.startupWaitMs ?? HTTP_DEFAULTS.startupWaitMs))),
    ]);
    clearTimeout(timer);
    if (!waited)
      provider.#report(
        'warning',
        `still loading after ${Math.round((options.startupWaitMs ?? HTTP_DEFAULTS.startupWaitMs) / 1000)} s; starting without its skills, which will be announced when they arrive`,
        displayUrl(options.url),
      );
    return provider;
  }

  /** Fetches the index again and whatever changed in it; one refresh at a time. */
  refresh(): Promise<void> {
    // A refresh runs from a timer: whatever goes wrong is reported, never left to crash the server.
    this.#refreshing ??= this.#refresh()
      .catch((error: unknown) =>
        this.#report('error', `refresh failed: ${String((error as Error)?.message ?? error).split('\n')[0]}`, displayUrl(this.#options.url)),
      )
      .finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  /** Refreshes on the interval. */
  watch(): void {
    const every = this.#options.refreshMs ?? HTTP_DEFAULTS.refreshMs;
    if (every <= 0 || this.#timer !== undefined || this.#closing.signal.aborted) return;
    this.#timer = setInterval(() => void this.refresh(), every);
    this.#timer.unref();
  }

  close(): void {
    this.#closing.abort();
    clearInterval(this.#timer);
  }

  async #refresh(): Promise<void> {
    const index = await this.#fetchIndex();
    if (index === undefined || this.#closing.signal.aborted) return;
    const { entries, skipped } = index;
    for (const reason of skipped) this.#report('warning', `index entry ${reason}`, displayUrl(this.#indexUrl!));
    const wanted = this.#options.only === undefined ? entries : entries.filter((entry) => this.#options.only!.includes(entry.name));
    for (const name of this.#options.only ?? []) {
      if (!entries.some((entry) => entry.name === name))
        this.#report('error', `the index has no skill named ${JSON.stringify(name)}`, displayUrl(this.#indexUrl!));
    }
    const next = new Map<string, EntryState>();
    const queue = [...wanted];
    const work = async () => {
      for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) {
        const previous = this.#served.get(entry.name);
        if (previous !== undefined && previous.digest === entry.digest) {
          next.set(entry.name, previous);
          continue;
        }
        const skill = await this.#load(entry);
        if (skill !== undefined) next.set(entry.name, { digest: entry.digest, skill });
        else if (previous !== undefined) {
          next.set(entry.name, previous);
          this.#report('warning', `serving the previous version of ${entry.name} until the new one can be loaded`, displayUrl(entry.url));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(wanted.length, this.#options.concurrency ?? HTTP_DEFAULTS.concurrency) }, work));
    if (this.#closing.signal.aborted) return;
    // The index's order, first entry wins a URI (two names cannot share one: the name is the last segment).
    this.#served = new Map(wanted.filter((entry) => next.has(entry.name)).map((entry) => [entry.name, next.get(entry.name)!]));
    this.publish([...this.#served.values()].map((state) => state.skill));
  }

  /** The parsed index, or undefined when it could not be had (reported) or did not change (304). */
  async #fetchIndex(): Promise<ReturnType<typeof parseDiscoveryIndex> | undefined> {
    const maxBytes = this.#options.maxIndexBytes ?? HTTP_DEFAULTS.maxIndexBytes;
    const candidates = this.#indexUrl !== undefined ? [this.#indexUrl] : indexCandidates(this.#options.url);
    for (const candidate of candidates) {
      let fetched;
      try {
        fetched = await fetchWithRetries(
          candidate,
          maxBytes,
          this.#policy,
          this.#etag !== undefined && candidate === this.#indexUrl ? { 'if-none-match': this.#etag } : {},
        );
      } catch (error) {
        const message = error instanceof FetchError ? error.detail : String(error);
        this.#report('error', `cannot fetch the skills index: ${message}${this.#served.size > 0 ? '; serving the last copy' : ''}`, displayUrl(candidate));
        return undefined;
      }
      // Reachable again: a later failure is worth saying again.
      for (const key of this.#reported) if (key.includes('cannot fetch the skills index')) this.#reported.delete(key);
      if (fetched.status === 304) return undefined;
      if (fetched.status !== 200) continue;
      try {
        const parsed = parseDiscoveryIndex(fetched.bytes.toString('utf8'), candidate);
        this.#indexUrl = candidate;
        this.#etag = fetched.etag;
        return parsed;
      } catch (error) {
        if (!(error instanceof DiscoveryIndexError)) throw error;
        this.#report('error', `${error.message}${this.#served.size > 0 ? '; serving the last copy' : ''}`, displayUrl(candidate));
        return undefined;
      }
    }
    this.#report('error', `no skills index found (looked for ${candidates.map(displayUrl).join(', ')})`, displayUrl(this.#options.url));
    return undefined;
  }

  /** Fetches (or takes from the cache), verifies and inspects one entry's artifact. */
  async #load(entry: DiscoveryEntry): Promise<CatalogSkill | undefined> {
    const maxBytes = entry.type === 'archive' ? this.#archiveLimits.maxArchiveBytes : this.#limits.maxBytes;
    let bytes = this.#cached(entry.digest);
    if (bytes === undefined) {
      try {
        const fetched = await fetchWithRetries(entry.url, maxBytes, this.#policy);
        if (fetched.status !== 200) throw new FetchError(`${displayUrl(entry.url)}: HTTP ${fetched.status}`, false, fetched.status);
        bytes = fetched.bytes;
      } catch (error) {
        this.#report('error', `${entry.name}: ${error instanceof FetchError ? error.detail : String(error)}`, displayUrl(entry.url));
        return undefined;
      }
      const actual = sha256Digest(bytes);
      if (actual !== entry.digest) {
        this.#report(
          'error',
          `${entry.name}: the content does not match the index's digest (index ${entry.digest.slice(0, 19)}…, content ${actual.slice(0, 19)}…); not served`,
          displayUrl(entry.url),
        );
        return undefined;
      }
      this.#store(entry.digest, bytes);
    }
    const where = displayUrl(entry.url);
    const inspected =
      entry.type === 'archive'
        ? await inspectSkillArchive(bytes, { limits: this.#archiveLimits, skillLimits: this.#limits })
        : { ...inspectSkillFiles([{ path: 'SKILL.md', bytes }], { limits: this.#limits }), files: [{ path: 'SKILL.md', bytes }], format: undefined };
    for (const problem of inspected.problems)
      this.#report(problem.severity, `${entry.name}: ${problem.message}`, problem.path ? `${where}!/${problem.path}` : where);
    if (!inspected.skill) return undefined;
    if (inspected.skill.name !== entry.name) {
      this.#report('warning', `the index calls it ${entry.name} but its SKILL.md says ${inspected.skill.name}; served as ${inspected.skill.name}`, where);
    }
    if (inspected.skill.description !== entry.description) {
      this.#report('warning', `${entry.name}: the index's description differs from its SKILL.md's; the SKILL.md's is served`, where);
    }
    const packed =
      entry.type === 'archive' && inspected.format !== undefined && inspected.skill.folderName === undefined
        ? { bytes, format: inspected.format, digest: entry.digest }
        : undefined;
    const built = storedCatalogSkill(inspected.skill, inspected.files, [...this.#prefix, inspected.skill.name], `http:${where}`, packed);
    if (typeof built === 'string') {
      this.#report('error', built, where);
      return undefined;
    }
    if (entry.type === 'skill-md') built.filesUnlisted = 'the host publishes only its SKILL.md';
    return built;
  }

  /** Cached artifact bytes for a digest, verified again (a cache file can be damaged or tampered with). */
  #cached(digest: string): Buffer | undefined {
    if (this.#options.cacheDir === undefined) return undefined;
    try {
      const bytes = readFileSync(join(this.#options.cacheDir, digest.replace(':', '-')));
      return sha256Digest(bytes) === digest ? bytes : undefined;
    } catch {
      return undefined;
    }
  }

  #store(digest: string, bytes: Buffer): void {
    if (this.#options.cacheDir === undefined) return;
    try {
      mkdirSync(this.#options.cacheDir, { recursive: true });
      const path = join(this.#options.cacheDir, digest.replace(':', '-'));
      writeFileSync(`${path}.tmp`, bytes);
      renameSync(`${path}.tmp`, path);
    } catch {
      /* a cache that cannot be written only costs a fetch next time */
    }
  }

  #report(severity: 'error' | 'warning', message: string, path: string): void {
    const key = `${severity}\0${path}\0${message}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    const problem = { severity, message, path };
    if (this.#starting) this.startupProblems.push(problem);
    this.#options.onProblem?.(problem);
  }
}

/**
 * Where to look for the index under a configured URL: the URL itself when it names a `.json` file; otherwise
 * `<url>/index.json`, then the well-known locations under the URL and at the origin's root (0.2.0's
 * `agent-skills`, then the earlier `skills`).
 */
export function indexCandidates(url: string): string[] {
  const base = new URL(url);
  if (base.pathname.endsWith('.json')) return [base.href];
  const dir = new URL(base.href.endsWith('/') ? base.href : `${base.href}/`);
  const candidates = [
    new URL('index.json', dir),
    new URL('.well-known/agent-skills/index.json', dir),
    new URL('.well-known/skills/index.json', dir),
    new URL('/.well-known/agent-skills/index.json', dir),
    new URL('/.well-known/skills/index.json', dir),
  ];
  return [...new Set(candidates.map((candidate) => candidate.href))];
}
