import { existsSync, lstatSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { DigestCache, discoverSkills } from '@skillport/core';
import type { FolderProblem, InspectedSkill, SkillLimits } from '@skillport/core';
import { CompactSkill, PackedFiles } from './packed-files.js';
import { CatalogSnapshot } from './snapshot.js';
import type { SnapshotDelta } from './snapshot.js';
import { PersistedCatalog } from './persisted-catalog.js';
import type { BaseWrite } from './persisted-catalog.js';
import { EarlyScan, scanInWorkers } from './parallel-scan.js';
import type { ParallelScan, ScanProgress } from './parallel-scan.js';
import { StringPool, compactFolder } from './intern.js';
import { Assembly } from './assembly.js';
import { firstPageBudget } from './first-page.js';
import { scanFolder, scanRoot, segmentsUnder } from './folder-scan.js';
import type { FolderRoot, ScannedFolder } from './folder-scan.js';
import { TreeWatcher } from './tree-watcher.js';
import type { WatchPace, WatchState } from './tree-watcher.js';

export interface CatalogChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/** How long a slice of writing the persisted catalog's base may hold the event loop (ms). */
const BASE_SLICE_MS = 8;

/** No file-system event for this long (ms) makes the next one "after a quiet spell" (see #schedule). */
const QUIET_MS = 250;

/** See `LiveCatalogOptions.inlineCheckMax` (issue 20: the bundled examples and most personal skill folders). */
export const INLINE_CHECK_MAX = 64;

/** Told after each swap: what changed (by package digest and place), the new snapshot, and the delta that made it. */
export type CatalogListener = (changes: CatalogChanges, snapshot: CatalogSnapshot, delta?: SnapshotDelta) => void;

/** Folders a rescan took out and put in (a rescanned folder is both: its old object out, its new one in). */
interface FolderChange {
  removed: ScannedFolder[];
  added: ScannedFolder[];
}

export interface LiveCatalogOptions {
  roots: FolderRoot[];
  limits: SkillLimits;
  /** Frontmatter fields accepted without a warning. */
  allowFields?: readonly string[];
  /** The persistent digest cache file; scans reuse the digests of unchanged files. */
  digestCachePath?: string;
  /** Where the last catalog is kept (persisted-catalog.ts): a restart answers from it while a background scan checks. */
  persistPath?: string;
  /**
   * Worker threads for a full scan (0: scan on the calling thread). Default: the first scan of a cold start (nothing
   * is served yet) uses up to two (the cores there are: a helper is started only for a catalog large enough), later
   * full scans and the check of a restored catalog one (they run while serving). See parallel-scan.ts.
   */
  scanThreads?: number;
  /**
   * A restored catalog of at most this many skill folders is checked against the disk on this thread (default
   * INLINE_CHECK_MAX): a worker thread (a V8 isolate of its own, loading the scanner again) costs more CPU and memory
   * at start than checking a few dozen folders, whose digests and frontmatter the caches already hold.
   */
  inlineCheckMax?: number;
  /** Called with every problem the first time it is seen (warnings and errors). */
  onProblem?: (problem: FolderProblem) => void;
  /** Debounce for file-system events while they keep coming (a checkout, an unpacked archive), in ms (default 75). */
  debounceMs?: number;
  /**
   * Delay for the first event after a quiet spell (ms, default 10): a lone edit or safe-save is served at once
   * rather than after the full debounce, while the few events of one write or rename still arrive together.
   */
  firstDebounceMs?: number;
  /**
   * Quiet time after a burst of changes before everything the burst touched is scanned once more (ms, default
   * 1000): the listing then equals a fresh scan even if a scan raced a half-done change (issue 17).
   */
  settleMs?: number;
  /**
   * A cold start answers its first `skills/list` page before the whole scan is in (ADR 0276): the page's size. The
   * first snapshot then holds only the folders that decide that page (first-page.ts) and `complete` resolves once
   * the full scan has been swapped in; until then the server answers nothing else from it.
   */
  firstPage?: number;
  /** That scan, started earlier over the same roots and digest cache (app.ts); else it starts here. Cancelled when not used. */
  earlyScan?: EarlyScan;
  /** Told as the first full scan goes (skills found, inspected, files hashed): for a progress line. */
  onScanProgress?: (progress: ScanProgress) => void;
  /** Watch each folder on its own (default: on Linux; see tree-watcher.ts). */
  perFolderWatch?: boolean;
  /** How the first walk of the watcher is sliced (tests; defaults in tree-watcher.ts). */
  watchSlices?: { startBudgetMs: number; sliceMs: number };
  /** The most watches held while folders inside skills want one (default in tree-watcher.ts: half the user's). */
  watchLimit?: number;
  /** How folders not watched are swept (tests; defaults in tree-watcher.ts). */
  sweep?: { sweepSliceMs: number; sweepIntervalMs: number; sweepOnWorkerFrom?: number };
  /** From how many known folders a restored catalog's watches are opened by a worker (tests; default in tree-watcher.ts). */
  knownWatchesOnWorkerFrom?: number;
  /**
   * `watch` will be called (serve with watching on): a restored catalog's folders start being watched as soon as it
   * is read, while its first snapshot is built, instead of when `watch` is called.
   */
  watchEarly?: boolean;
}

/**
 * The catalog `serve` runs on. A full scan runs in worker threads (both cores, and the parser's garbage stays in
 * the workers); after that, file-system events rescan only the skill folders they touched, on this thread. Each
 * change builds a new snapshot that is swapped in at once: readers hold one snapshot for a whole request, so
 * nobody sees a manifest from one scan with bytes from another.
 */
export class LiveCatalog {
  #snapshot!: CatalogSnapshot;
  #folders = new Map<string, ScannedFolder>();
  #assembly: Assembly;
  #reported = new Set<string>();
  #listeners = new Set<CatalogListener>();
  #watcher: TreeWatcher | undefined;
  #pending = new Set<string>();
  /** Paths rescanned since the catalog last settled: looked at once more after a quiet spell (see #settle). */
  #touched = new Set<string>();
  #touchedFull = false;
  #settleTimer: NodeJS.Timeout | undefined;
  #full = false;
  #timer: NodeJS.Timeout | undefined;
  /** When the last file-system event arrived (performance.now()): an event after a quiet spell is applied sooner. */
  #lastEvent = -Infinity;
  #saveTimer: NodeJS.Timeout | undefined;
  #persisted: PersistedCatalog | undefined;
  /** Folders changed since the last save (by folder path: the latest object seen), for the journal. */
  #dirty = new Map<string, ScannedFolder>();
  /** A whole base must be written at the next save (after a full scan: every folder may have changed). */
  #needsBase = false;
  /** A base being written in slices between requests (see #persist). */
  #baseWrite: BaseWrite | undefined;
  #reloading: Promise<void> = Promise.resolve();
  /** The restored catalog's check against the disk while it runs (see `verify`), and the paths changed meanwhile. */
  #checking: Promise<void> | undefined;
  #pace: WatchPace | undefined;
  #touchedInCheck = new Set<string>();
  #generation = 0;
  #pool = new StringPool();
  /** True while the catalog is the persisted copy and the background check has not finished. */
  unverified = false;
  /** True when the first snapshot came from the persisted catalog (ADR 0004). */
  restoredAtStart = false;
  /**
   * Resolves once the whole catalog is in: at once, or, after a cold start that answered its first page early
   * (`firstPage`), when the full scan has been swapped in (rejects when that scan failed).
   */
  complete: Promise<void> = Promise.resolve();
  /** True while the snapshot holds only the folders of the first page (see `firstPage`). */
  partial = false;
  #watchAfterComplete: (() => void) | undefined;
  #closed = false;
  /** Aborted by `close`: a scan still running in workers (the rest of a first page's, a restored catalog's check) stops. */
  readonly #stop = new AbortController();
  #early: EarlyScan | undefined;

  private constructor(readonly options: LiveCatalogOptions) {
    this.#assembly = new Assembly(this.#order);
    if (options.persistPath) this.#persisted = new PersistedCatalog(options.persistPath, options.roots, options.limits, options.allowFields);
  }

  /** The precedence of folders in a URI clash: the root given first, then the folder path. */
  readonly #order = (a: ScannedFolder, b: ScannedFolder): number => {
    const ra = this.options.roots.indexOf(a.root);
    const rb = this.options.roots.indexOf(b.root);
    return ra !== rb ? ra - rb : a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0;
  };

  /** Scans the roots (or restores the last catalog, see `verify`) and builds the first snapshot. */
  static async open(options: LiveCatalogOptions): Promise<LiveCatalog> {
    const catalog = new LiveCatalog(options);
    const pool = catalog.#pool;
    const restored = await catalog.#persisted?.loadChecked(
      (folder) => compactFolder(folder, pool),
      undefined,
      (path) => pool.intern(path),
    );
    // An early scan started for a cold start that is not one (a catalog was restored after all) would run to its end.
    if (restored || options.firstPage === undefined || (options.scanThreads ?? 1) === 0) options.earlyScan?.cancel();
    if (restored) {
      for (const folder of restored) catalog.#folders.set(folder.dir, folder);
      catalog.unverified = true;
      catalog.restoredAtStart = true;
      if (options.watchEarly) catalog.#newWatcher().prepare(catalog.#knownFolders(catalog.#watcher!.limit), catalog.#folders.keys());
    } else if (options.firstPage !== undefined && (options.scanThreads ?? 1) !== 0) {
      if (await catalog.#openFirstPage(options.firstPage)) return catalog;
    } else {
      await catalog.#scanAll(options.scanThreads ?? Math.min(2, availableParallelism()), options.onScanProgress);
    }
    catalog.#snapshot = catalog.#build();
    if (!restored) {
      catalog.#needsBase = true;
      catalog.#persistSoon();
    }
    return catalog;
  }

  /**
   * The full scan, its shard 0 inspecting the first page's folders first (scan-worker.ts, first-page.ts) while this
   * thread loads the HTTP stack; true when the page was found (the snapshot is partial until `complete`), false when
   * it was not (the scan has been awaited and the caller builds the snapshot as after any cold scan). The page's
   * folders are the scan's own: nothing is walked or read twice, and the helpers start on the rest at once.
   */
  async #openFirstPage(pageSize: number): Promise<boolean> {
    const threads = this.options.scanThreads ?? Math.min(2, availableParallelism());
    const { roots, limits, allowFields, digestCachePath, onScanProgress } = this.options;
    let started = this.options.earlyScan;
    if (started !== undefined && (started.roots !== roots || started.digestCachePath !== digestCachePath)) {
      started.cancel();
      started = undefined;
    }
    started ??= new EarlyScan(roots, digestCachePath, {
      limits,
      shards: threads,
      pageSize,
      maxInspected: firstPageBudget(pageSize),
      allowFields,
      onProgress: onScanProgress,
    });
    started.take((folder) => compactFolder(folder, this.#pool));
    this.#early = started;
    const scan = this.#scanAll(threads, onScanProgress, started.scan);
    const early = await Promise.race([started.page, scan.then(() => undefined)]);
    if (early === undefined) {
      await scan;
      return false;
    }
    for (const folder of early) this.#folders.set(folder.dir, compactFolder(folder, this.#pool));
    // Problems are the whole scan's to report, once each: the same verdicts, but a parser's message can differ by
    // thread (a stack overflow's column), and two spellings of one problem would both be printed.
    this.partial = true;
    this.#snapshot = this.#build();
    this.complete = scan.then(() => {
      if (this.#closed) return;
      this.partial = false;
      this.#swapFull();
      this.#needsBase = true;
      this.#persistSoon();
      this.#watchAfterComplete?.();
    });
    // Unhandled otherwise until someone waits: the server's `verified` does, and reports it.
    this.complete.catch(() => {});
    return true;
  }

  get snapshot(): CatalogSnapshot {
    return this.#snapshot;
  }

  /** Every problem of the current catalog: per-folder problems and URI conflicts. */
  get problems(): FolderProblem[] {
    const problems: FolderProblem[] = [];
    for (const folder of this.#folders.values()) problems.push(...folder.inspection.problems);
    problems.push(...this.#assembly.problems);
    return problems;
  }

  /**
   * Resolves once the folders a restored catalog serves from are watched (`watch` may leave them to a worker): a
   * change to a served file after this is heard. At once when nothing is watched or the catalog was scanned.
   */
  watchArmed(): Promise<void> {
    return this.#watcher?.knownArmed ?? Promise.resolve();
  }

  /** Folders watched one by one so far, whether the first walk is still arming them, and those swept instead (tree-watcher.ts). */
  get watching(): WatchState | undefined {
    return this.#watcher?.state();
  }

  /** Folders found with a SKILL.md (served or not). */
  get folderCount(): number {
    return this.#folders.size;
  }

  onChange(listener: CatalogListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Checks a restored catalog against the disk (in a worker, or here when small) and swaps in what changed; at once when scanned. */
  verify(): Promise<void> {
    if (!this.unverified) return this.#reloading;
    if (this.#checking !== undefined) return this.#checking;
    const threads = this.#folders.size <= (this.options.inlineCheckMax ?? INLINE_CHECK_MAX) ? 0 : 1;
    // Not queued with the changes: a change heard meanwhile is applied at once (the check of 100,000 folders takes
    // minutes), and the paths it touched are scanned again once the check's own scan is in.
    const check = async () => {
      // The check starts once the folders are watched (`watch` is called right after `open`; a large tree is armed
      // in slices): a change made before its folder's watch is found by this scan, one made after is heard.
      await new Promise((resolve) => setImmediate(resolve));
      await this.#watcher?.armed;
      await this.#scanAll(threads, undefined, undefined, true);
      // The worker may have read a folder before a change that was applied here since: the disk decides again.
      const touched = [...this.#touchedInCheck];
      this.#touchedInCheck.clear();
      if (touched.length > 0) this.#rescanPaths(touched);
      this.unverified = false;
      this.#swapFull();
    };
    this.#checking = this.#reloading.then(check).finally(() => (this.#checking = undefined));
    return this.#checking;
  }

  /**
   * Starts watching every root (tree-watcher.ts: edits in place, files replaced by a rename, folders created, renamed
   * or deleted). An event without a path, or a watcher error, means a full rescan. `walkAfter`: the first walk's
   * slices (after the known folders and a first budget) start once it resolves (serve: once it listens).
   */
  watch(walkAfter?: Promise<unknown>): void {
    // A first page served early: the watch starts once the full scan is in, as it does after any cold scan.
    if (this.partial) {
      this.#watchAfterComplete = () => this.watch(walkAfter);
      return;
    }
    const roots = this.options.roots.map((root) => root.dir);
    const prepared = this.#watcher !== undefined; // opened with watchEarly: the known folders are being armed already
    const watcher = this.#watcher ?? this.#newWatcher();
    try {
      // A restored catalog names the folders it serves from: they are watched before the first answer (the walk that
      // arms the rest runs in slices), so a change to a served file is heard at once, not only by the check.
      const restored = this.restoredAtStart && this.unverified && !prepared;
      watcher.start(restored ? this.#knownFolders(watcher.limit) : [], restored ? this.#folders.keys() : [], walkAfter);
    } catch (error) {
      this.#report({
        severity: 'warning',
        message: `cannot watch for changes (${(error as Error).message}); restart to pick up changes`,
        path: roots.join(', '),
      });
    }
  }

  #newWatcher(): TreeWatcher {
    this.#watcher = new TreeWatcher(
      this.options.roots.map((root) => root.dir),
      (path) => {
        if (path === undefined) this.#full = true;
        else this.#pending.add(path);
        this.#schedule();
      },
      {
        onWarning: (message, path) => this.#report({ severity: 'warning', message, path }),
        ...(this.options.perFolderWatch !== undefined ? { perFolder: this.options.perFolderWatch } : {}),
        ...(this.options.watchLimit !== undefined ? { watchLimit: this.options.watchLimit } : {}),
        ...this.options.watchSlices,
        ...this.options.sweep,
        ...(this.options.knownWatchesOnWorkerFrom !== undefined ? { knownOnWorkerFrom: this.options.knownWatchesOnWorkerFrom } : {}),
      },
    );
    this.#watcher.pace(this.#pace);
    return this.#watcher;
  }

  /** Tells the watches when the server is answering requests (../activity.ts): their first walk yields to them. */
  pace(pace: WatchPace): void {
    this.#pace = pace;
    this.#watcher?.pace(pace);
  }

  /**
   * Every skill folder and the folders on the way from its root (top down), then, when fewer than `limit`, the
   * folders holding its files (inside skills: watched only while there is room, ADR 0252, so at 100,000 skills their
   * 450,000 file paths are not split and joined before the first answer for nothing).
   */
  #knownFolders(limit: number): Set<string> {
    const known = new Set<string>();
    const chain: string[] = [];
    for (const folder of this.#folders.values()) {
      // Up from the skill folder until a folder already known (its parents are too): a lookup per folder, no joins.
      for (let dir = folder.dir; dir.length > folder.root.dir.length && !known.has(dir); dir = dirname(dir)) chain.push(dir);
      for (let i = chain.length - 1; i >= 0; i--) known.add(chain[i]!);
      chain.length = 0;
    }
    if (known.size >= limit) return known;
    for (const folder of this.#folders.values()) {
      const skill = folder.inspection.skill;
      const files = skill instanceof CompactSkill ? skill.packed : PackedFiles.from(skill?.files ?? []);
      for (let index = 0; index < files.length; index++) {
        if (files.target(index) !== undefined) continue; // a link's target: its folder is watched where it lives, if served
        // The folders on the way to the file, by string (a file's path is relative and normalised, `/`-separated).
        const path = files.path(index);
        for (let slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1))
          known.add(folder.dir + sep + (sep === '/' ? path.slice(0, slash) : path.slice(0, slash).replaceAll('/', sep)));
      }
    }
    return known;
  }

  close(): void {
    this.#closed = true;
    this.#watchAfterComplete = undefined;
    this.#early?.cancel();
    this.#stop.abort();
    this.#watcher?.close();
    this.#watcher = undefined;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#settleTimer) clearTimeout(this.#settleTimer);
    if (this.#saveTimer) clearTimeout(this.#saveTimer);
    this.#saveTimer = undefined;
    // On the way out, whatever the timing of the last save (pending, done, or never scheduled yet): the next start
    // must find the catalog this run ended with (a base and journal already saying so are left as they are).
    this.#persist(true);
  }

  /** Rescans everything now (or only what changed under `paths`) and swaps the result in. */
  reload(paths?: string[]): Promise<void> {
    if (paths === undefined) this.#full = true;
    else for (const path of paths) this.#pending.add(path);
    this.#reloading = this.#reloading.then(() => this.#apply());
    return this.#reloading;
  }

  /** Resolves once every change seen so far has been applied. */
  settled(): Promise<void> {
    return this.#checking === undefined ? this.#reloading : Promise.all([this.#reloading, this.#checking]).then(() => undefined);
  }

  /**
   * Applies pending events after a delay: short for the first event after a quiet spell (one edit, one safe-save:
   * served in milliseconds, not after the debounce), the full debounce while events keep coming (a burst becomes few
   * rescans). Correctness never rests on the delay: an apply that catches a write half done is followed by the
   * write's next event, and the settle pass (#settleSoon) scans every touched path again once the tree is quiet.
   */
  #schedule(): void {
    const now = performance.now();
    const debounce = this.options.debounceMs ?? 75;
    const quiet = now - this.#lastEvent > QUIET_MS;
    this.#lastEvent = now;
    if (this.#timer) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#reloading = this.#reloading.then(() => this.#apply());
      },
      quiet ? Math.min(debounce, this.options.firstDebounceMs ?? 10) : debounce,
    );
  }

  async #apply(): Promise<void> {
    const full = this.#full;
    const paths = [...this.#pending];
    this.#full = false;
    this.#pending.clear();
    if (!full && paths.length === 0) return;
    if (this.#watcher !== undefined) {
      if (full) this.#touchedFull = true;
      for (const path of paths) this.#touched.add(path);
      this.#settleSoon();
    }
    await this.#rescan(full || paths.length > 256, paths);
  }

  /** A full rescan (a burst of events, a checkout, an unpacked archive: cheaper as one) or only the paths given. */
  async #rescan(full: boolean, paths: string[]): Promise<void> {
    // A full scan waits for the check (one scan of everything at a time); a few paths are applied during it.
    if (full && this.#checking !== undefined) await this.#checking.catch(() => {});
    if (!full && this.#checking !== undefined) for (const path of paths) this.#touchedInCheck.add(path);
    try {
      if (full) {
        await this.#scanAll();
        this.#swapFull();
      } else this.#swapDelta(this.#rescanPaths(paths));
    } catch (error) {
      this.#report({ severity: 'error', message: `rescan failed (${(error as Error).message}); still serving the previous catalog`, path: '' });
    }
  }

  /**
   * A scan can race a change in progress (a folder renamed while it was read, a file replaced between its listing
   * and its hashing) and the change's own events may already have been handled: so once the tree has been quiet
   * for a moment, every path the burst touched is scanned once more, without waiting for a reader to trip on it.
   */
  #settleSoon(): void {
    if (this.#settleTimer) clearTimeout(this.#settleTimer);
    this.#settleTimer = setTimeout(() => {
      this.#settleTimer = undefined;
      if (this.#timer !== undefined || this.#pending.size > 0 || this.#full) return this.#settleSoon(); // not quiet yet
      const full = this.#touchedFull || this.#touched.size > 256;
      const paths = [...this.#touched];
      this.#touched.clear();
      this.#touchedFull = false;
      this.#reloading = this.#reloading.then(() => this.#rescan(full, paths));
    }, this.options.settleMs ?? 1000);
    this.#settleTimer.unref();
  }

  /** Builds a snapshot from every folder (after a full scan) and, when it differs, swaps it in and tells the listeners. */
  #swapFull(): void {
    const previous = this.#snapshot;
    const next = this.#build();
    const changes = diff(previous, next);
    if (changes.added.length + changes.removed.length + changes.changed.length === 0) return;
    this.#snapshot = next;
    this.#needsBase = true;
    this.#persistSoon();
    for (const listener of this.#listeners) listener(changes, next);
  }

  /**
   * Applies the folders a rescan changed: the assembly re-decides only the URIs they touch, and the next snapshot
   * is derived from this one (snapshot.ts), so the cost follows the change, not the catalog (ADR 0130).
   */
  #swapDelta(change: FolderChange): void {
    // Persisted even when nothing served changes (a folder's problems did): the journal gets these folders.
    for (const folder of [...change.removed, ...change.added]) this.#dirty.set(folder.dir, folder);
    if (change.removed.length + change.added.length > 0) this.#persistSoon();
    const delta = this.#assembly.update(change.removed, change.added);
    if (!this.unverified) {
      for (const folder of change.added) for (const problem of folder.inspection.problems) this.#report(problem);
      for (const problem of this.#assembly.problemsAt(delta.uris, change.added)) this.#report(problem);
    }
    if (delta.upsert.length + delta.remove.length === 0) return;
    const previous = this.#snapshot;
    const next = previous.withChanges(delta, ++this.#generation);
    const changes = changesOf(previous, delta);
    this.#snapshot = next;
    for (const listener of this.#listeners) listener(changes, next, delta);
  }

  /** A full scan of every root, in worker threads when there are any, with the persistent digest cache. */
  async #scanAll(
    threads = this.options.scanThreads,
    onProgress?: (progress: ScanProgress) => void,
    started?: Promise<ParallelScan>,
    background = false,
  ): Promise<void> {
    const { roots, limits, digestCachePath, allowFields } = this.options;
    let folders: ScannedFolder[];
    if (threads === 0) {
      const cache = new DigestCache(digestCachePath);
      folders = [];
      for (const root of roots) {
        const scan = scanRoot(root, { limits, cache, allowFields });
        for (const problem of scan.problems) this.#report(problem);
        folders.push(...scan.folders);
      }
      cache.save();
    } else {
      const scan = await (started ??
        scanInWorkers(
          roots,
          limits,
          digestCachePath,
          threads,
          onProgress,
          allowFields,
          (folder) => compactFolder(folder, this.#pool),
          undefined,
          this.#stop.signal,
          background,
        ));
      for (const problem of scan.problems) this.#report(problem);
      folders = scan.folders;
    }
    // A folder found as it was keeps its object: the snapshot and the assembly hold the old one, and a second copy
    // of every unchanged folder (a restart's check finds most unchanged) would double the catalog's memory.
    const previous = this.#folders;
    this.#folders = new Map();
    for (const folder of folders) {
      const known = previous.get(folder.dir);
      this.#folders.set(folder.dir, known !== undefined && sameFolder(known, folder) ? known : compactFolder(folder, this.#pool));
    }
  }

  /** Rescans the skill folders that hold a changed path, and looks for new skills below the nearest folder that still exists. */
  #rescanPaths(paths: string[]): FolderChange {
    const change: FolderChange = { removed: [], added: [] };
    const affected = new Set<string>();
    const searchFrom = new Set<string>();
    for (const path of paths) {
      for (const dir of this.#foldersAt(path)) affected.add(dir);
      let existing = path;
      while (!existsSync(existing) && existing !== dirname(existing)) existing = dirname(existing);
      searchFrom.add(existing);
    }
    // Changed folders are few: they are hashed again without the persistent cache (which stays off this thread).
    const options = { limits: this.options.limits, allowFields: this.options.allowFields };
    for (const dir of affected) {
      const folder = this.#folders.get(dir)!;
      change.removed.push(folder);
      if (!existsSync(join(dir, 'SKILL.md'))) this.#folders.delete(dir);
      else {
        const scanned = scanFolder(folder.root, dir, folder.segments, options);
        this.#folders.set(dir, scanned);
        change.added.push(scanned);
      }
    }
    // A search from a folder covers every folder below it: search each subtree once (a burst often names many).
    const starts = [...searchFrom].sort();
    const covered = (path: string) => starts.some((other) => other !== path && path.startsWith(other + sep));
    for (const start of starts.filter((path) => !covered(path))) {
      const root = this.options.roots.find((candidate) => segmentsUnder(candidate, start) !== undefined);
      if (root === undefined) continue;
      const base = segmentsUnder(root, start)!;
      // Depth counts from the root, as in a full scan, so that a rescan finds exactly what a fresh scan would.
      const discovery = discoverSkills(start, { depth: base.length, servedRoot: root.dir });
      // A search starts from an event's path, often a file or a path gone since: that is no problem of the tree.
      for (const problem of discovery.problems) if (problem.code !== 'not-a-directory' && problem.code !== 'path-missing') this.#report(problem);
      for (const found of discovery.skills) {
        if (this.#folders.has(found.dir)) continue;
        const scanned = scanFolder(root, found.dir, [...base, ...found.segments], options);
        this.#folders.set(found.dir, scanned);
        change.added.push(scanned);
      }
    }
    return change;
  }

  /**
   * The skill folders a changed path touches: the folder holding it (the path itself or a folder above it; nested
   * skills: every one), and, when the path is or was a folder, every skill folder below it. Looked up by the path's
   * ancestors, so an edited file costs its depth, not the catalog; only a folder (or a path now gone, which may have
   * been one) walks the folders.
   */
  #foldersAt(path: string): string[] {
    const found: string[] = [];
    for (let dir = path; ; ) {
      if (this.#folders.has(dir)) found.push(dir);
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
    let file = false;
    try {
      file = lstatSync(path).isFile();
    } catch {
      // gone: it may have been a folder holding skills (a link to a folder is walked too: it may lead to some)
    }
    if (!file) for (const dir of this.#folders.keys()) if (dir.startsWith(path + sep)) found.push(dir);
    return found;
  }

  /** A fresh assembly of every folder, and a snapshot built from it. */
  #build(): CatalogSnapshot {
    const ordered = [...this.#folders.values()].sort(this.#order);
    // A restored catalog's problems are the last run's: only what the disk shows is reported (after `verify`).
    const report = !this.unverified && !this.partial;
    if (report) for (const folder of ordered) for (const problem of folder.inspection.problems) this.#report(problem);
    this.#assembly = new Assembly(this.#order, this.#assembly);
    this.#assembly.update([], ordered);
    if (report) for (const problem of this.#assembly.problems) this.#report(problem);
    return new CatalogSnapshot([...this.#assembly.served.values()], ++this.#generation);
  }

  /**
   * Saves what changed since the last save: the changed folders appended to the journal (cost: the change), or a
   * whole base after a full scan, when none was written yet, or when the journal is full (persisted-catalog.ts).
   * A base is written in slices of BASE_SLICE_MS between requests (at 10,000 skills it is tens of megabytes of JSON);
   * `now` (on the way out) writes everything at once.
   */
  #persist(now = false): void {
    const persisted = this.#persisted;
    if (persisted === undefined) return;
    if (this.#baseWrite !== undefined) {
      if (!now) {
        this.#persistSoon(); // one base at a time; what changed meanwhile is saved after it
        return;
      }
      this.#baseWrite.step(Infinity);
      this.#baseWrite = undefined;
    }
    if (!this.#needsBase && this.#dirty.size === 0) return;
    if (!this.#needsBase && persisted.append(this.#dirty.values(), this.#folders, this.#folders.size)) {
      this.#dirty.clear();
      return;
    }
    // The base is of the folders as they are now: what changes while it is written is journalled after it.
    const write = persisted.beginBase([...this.#folders.values()]);
    this.#needsBase = false;
    this.#dirty.clear();
    if (now) {
      write.step(Infinity);
      return;
    }
    this.#baseWrite = write;
    const slice = () => {
      if (this.#baseWrite !== write) return; // finished on the way out
      if (!write.step(BASE_SLICE_MS)) {
        setImmediate(slice);
        return;
      }
      this.#baseWrite = undefined;
      if (this.#needsBase || this.#dirty.size > 0) this.#persistSoon();
    };
    slice();
  }

  /** Writes the catalog a moment later, off the path of whatever just happened (start-up, a reload). */
  #persistSoon(): void {
    if (!this.options.persistPath || this.#saveTimer) return;
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = undefined;
      this.#persist();
    }, 1000);
    this.#saveTimer.unref();
  }

  #report(problem: FolderProblem): void {
    const key = `${problem.severity}\u0000${problem.path}\u0000${problem.message}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    this.options.onProblem?.(problem);
  }
}

/** Whether a folder scanned again says exactly what `known` says (same place, package, links and problems). */
function sameFolder(known: ScannedFolder, scanned: ScannedFolder): boolean {
  const a = known.inspection.skill;
  const b = scanned.inspection.skill;
  if (known.root !== scanned.root || known.segments.join('/') !== scanned.segments.join('/')) return false;
  if (JSON.stringify(known.inspection.problems) !== JSON.stringify(scanned.inspection.problems)) return false;
  if (a === undefined || b === undefined) return a === b;
  // The package digest covers every path, size and content (SKILL.md: the frontmatter); links are not in it.
  return a.packageDigest === b.packageDigest && a.realDir === b.realDir && sameTargets(a, b);
}

/** Same links, file by file (packed skills compare their columns: no record is made for it). */
function sameTargets(a: InspectedSkill, b: InspectedSkill): boolean {
  if (a instanceof CompactSkill && b instanceof CompactSkill) return a.packed.sameTargets(b.packed);
  const [first, second] = [a.files, b.files];
  return first.length === second.length && first.every((file, index) => file.target === second[index]!.target);
}

/** The changes a delta makes to `previous`: new URIs, gone URIs, and replaced skills (new bytes or a new place). */
export function changesOf(previous: CatalogSnapshot, delta: SnapshotDelta): CatalogChanges {
  const changes: CatalogChanges = { added: [], removed: [], changed: [] };
  for (const skill of delta.upsert) {
    if (previous.listed(skill.uri) === undefined) changes.added.push(skill.uri);
    else changes.changed.push(skill.uri);
  }
  for (const uri of delta.remove) if (previous.listed(uri) !== undefined) changes.removed.push(uri);
  return changes;
}

export function diff(previous: CatalogSnapshot, next: CatalogSnapshot): CatalogChanges {
  const changes: CatalogChanges = { added: [], removed: [], changed: [] };
  for (const skill of next.skills) {
    const before = previous.skill(skill.uri);
    if (before === undefined) changes.added.push(skill.uri);
    // The package digest covers SKILL.md, so it also covers the frontmatter parsed from it.
    else if (before.packageDigest !== skill.packageDigest) changes.changed.push(skill.uri);
  }
  for (const skill of previous.skills) if (next.skill(skill.uri) === undefined) changes.removed.push(skill.uri);
  return changes;
}
