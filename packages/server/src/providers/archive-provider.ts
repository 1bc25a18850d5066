import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { DEFAULT_ARCHIVE_LIMITS, DEFAULT_LIMITS, formatBytes, inspectSkillArchive, resolveArchiveLimits, sha256Digest } from '@skillport/core';
import type { ArchiveLimits, FolderProblem, SkillLimits } from '@skillport/core';
import type { CatalogSkill } from '../catalog/model.js';
import { ProviderBase, storedCatalogSkill } from './stored-skill.js';

/**
 * Skills packed as archives (`.skill`, `.zip`, `.tar.gz`, `.tgz`, `.tar`) given by path: each archive is read with
 * the safe reader of @skillport/core (links, path tricks, bombs refused), checked with the skill rules, and served
 * from memory at `skill://[<prefix>/]<skill name>/SKILL.md` with a stored origin (every byte verified against its
 * digest when served). A bad archive is reported and not served; the others keep serving.
 *
 * Watching is per archive file (its folder is watched, so an editor's write-and-rename is seen): a changed archive is
 * read again after a short quiet period and swapped in; an archive whose bytes did not change costs one hash.
 */
export interface ArchiveProviderOptions {
  archives: readonly string[];
  /** URI prefix segments, as `--prefix` gives folders. */
  prefix?: string;
  limits?: SkillLimits;
  archiveLimits?: Partial<ArchiveLimits>;
  onProblem?: (problem: FolderProblem) => void;
  /** Quiet period before a changed archive is read again (ms). */
  debounceMs?: number;
}

interface ArchiveState {
  path: string;
  /** Digest of the archive bytes last read (undefined: never read; empty: unreadable). */
  digest?: string;
  skill?: CatalogSkill;
}

export class ArchiveProvider extends ProviderBase {
  readonly label = 'archives';
  /** Problems found by the first load (what `--strict` looks at). */
  readonly startupProblems: FolderProblem[] = [];
  readonly #options: ArchiveProviderOptions;
  readonly #archiveLimits: ArchiveLimits;
  readonly #states: ArchiveState[];
  readonly #prefix: string[];
  #watchers: FSWatcher[] = [];
  #timers = new Map<string, NodeJS.Timeout>();
  #reported = new Set<string>();
  #closed = false;
  #starting = true;
  #loading: Promise<void> = Promise.resolve();

  private constructor(options: ArchiveProviderOptions) {
    super();
    this.#options = options;
    // The archive may be as large as the skill it holds (a stored zip) and never inflate past the skill limit.
    const skillBytes = options.limits?.maxBytes ?? DEFAULT_LIMITS.maxBytes;
    this.#archiveLimits = resolveArchiveLimits({
      maxArchiveBytes: skillBytes,
      maxUncompressedBytes: skillBytes,
      maxEntries: Math.max(DEFAULT_ARCHIVE_LIMITS.maxEntries, 2 * (options.limits?.maxFiles ?? 0)),
      ...options.archiveLimits,
    });
    this.#states = [...new Set(options.archives.map((path) => resolve(path)))].map((path) => ({ path }));
    this.#prefix = (options.prefix ?? '').split('/').filter((segment) => segment !== '');
  }

  static async open(options: ArchiveProviderOptions): Promise<ArchiveProvider> {
    const provider = new ArchiveProvider(options);
    await Promise.all(provider.#states.map((state) => provider.#load(state, (problem) => provider.#report(problem))));
    provider.#publishAll();
    provider.#starting = false;
    return provider;
  }

  /** The archives served, as given (resolved paths). */
  get archives(): string[] {
    return this.#states.map((state) => state.path);
  }

  /** Reads the given archives again (all when none is given) and publishes what changed. */
  reload(paths?: readonly string[]): Promise<void> {
    const wanted = paths === undefined ? undefined : new Set(paths.map((path) => resolve(path)));
    // One reload at a time, in order: a slow read must not publish over a newer one.
    this.#loading = this.#loading
      .then(async () => {
        if (this.#closed) return;
        const states = this.#states.filter((state) => wanted === undefined || wanted.has(state.path));
        await Promise.all(states.map((state) => this.#load(state, (problem) => this.#report(problem))));
        if (!this.#closed) this.#publishAll();
      })
      .catch((error: unknown) => {
        // Runs from a watcher: reported, never left to crash the server (nor to block the next reload).
        this.#report({
          severity: 'error',
          message: `reload failed: ${String((error as Error)?.message ?? error).split('\n')[0]}`,
          path: [...(wanted ?? [])].join(', '),
        });
      });
    return this.#loading;
  }

  watch(): void {
    const byDir = new Map<string, Set<string>>();
    for (const state of this.#states) {
      const names = byDir.get(dirname(state.path)) ?? new Set<string>();
      names.add(basename(state.path));
      byDir.set(dirname(state.path), names);
    }
    for (const [dir, names] of byDir) {
      try {
        const watcher = watch(dir, { persistent: false }, (_event, filename) => {
          // No file name: something in the folder changed, look at every archive in it.
          const changed = filename === null ? [...names] : names.has(filename.toString()) ? [filename.toString()] : [];
          for (const name of changed) this.#schedule(resolve(dir, name));
        });
        watcher.on('error', () => {
          for (const name of names) this.#schedule(resolve(dir, name));
        });
        this.#watchers.push(watcher);
      } catch (error) {
        this.#report({ severity: 'warning', message: `cannot watch for changes (${(error as Error).message}); restart to pick up changes`, path: dir });
      }
    }
  }

  close(): void {
    this.#closed = true;
    for (const watcher of this.#watchers) watcher.close();
    this.#watchers = [];
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  #schedule(path: string): void {
    if (this.#closed) return;
    clearTimeout(this.#timers.get(path));
    this.#timers.set(
      path,
      setTimeout(() => {
        this.#timers.delete(path);
        void this.reload([path]);
      }, this.#options.debounceMs ?? 150),
    );
  }

  /** Reads one archive; leaves the state as it was when its bytes did not change. */
  async #load(state: ArchiveState, report: (problem: FolderProblem) => void): Promise<void> {
    let bytes: Buffer;
    try {
      const info = await stat(state.path);
      if (!info.isFile()) throw new Error('not a regular file');
      if (info.size > this.#archiveLimits.maxArchiveBytes)
        throw new Error(`archive is larger than ${formatBytes(this.#archiveLimits.maxArchiveBytes)} (the limit)`);
      bytes = await readFile(state.path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const message =
        code === 'ENOENT' ? 'archive not found; its skill is not served' : `cannot read archive: ${code ?? (error as Error).message}; its skill is not served`;
      // Said when the archive goes away, not at every event of a folder it is missing from.
      if (state.digest !== '') report({ severity: 'error', message, path: state.path });
      state.digest = '';
      state.skill = undefined;
      return;
    }
    const digest = sha256Digest(bytes);
    if (digest === state.digest) return;
    state.digest = digest;
    state.skill = undefined;
    const inspected = await inspectSkillArchive(bytes, { limits: this.#archiveLimits, ...(this.#options.limits ? { skillLimits: this.#options.limits } : {}) });
    for (const problem of inspected.problems) {
      report({ severity: problem.severity, message: problem.message, path: problem.path ? `${state.path}!/${problem.path}` : state.path });
    }
    if (!inspected.skill) return;
    const packed = inspected.format === undefined || inspected.skill.folderName !== undefined ? undefined : { bytes, format: inspected.format, digest };
    const built = storedCatalogSkill(inspected.skill, inspected.files, [...this.#prefix, inspected.skill.name], `archive:${state.path}`, packed);
    if (typeof built === 'string') {
      report({ severity: 'error', message: built, path: state.path });
      return;
    }
    state.skill = built;
  }

  /** Publishes every served archive's skill; two archives holding skills at one URI: the first given wins. */
  #publishAll(): void {
    const byUri = new Map<string, ArchiveState>();
    for (const state of this.#states) {
      if (state.skill === undefined) continue;
      const first = byUri.get(state.skill.uri);
      if (first === undefined) byUri.set(state.skill.uri, state);
      else
        this.#report({
          severity: 'error',
          code: 'archive-conflict',
          message: `two archives hold ${state.skill.uri}: ${first.path} and ${state.path}; serving the first`,
          path: state.path,
        });
    }
    this.publish([...byUri.values()].map((state) => state.skill!));
  }

  #report(problem: FolderProblem): void {
    const key = `${problem.path}\0${problem.message}`;
    // A clash is re-detected at every publish: say it once.
    if (this.#reported.has(key) && problem.code === 'archive-conflict') return;
    this.#reported.add(key);
    if (this.#starting) this.startupProblems.push(problem);
    this.#options.onProblem?.(problem);
  }
}
