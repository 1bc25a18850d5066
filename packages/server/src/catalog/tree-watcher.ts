import { lstatSync, readFileSync, readdirSync, realpathSync, statSync, watch } from 'node:fs';
import type { Dirent, FSWatcher } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { holdsPath } from '@skillport/core';
import { SKIPPED, fingerprint } from './folder-fingerprint.js';
import { RemoteSweep } from './remote-sweep.js';
import { RemoteWatches } from './remote-watches.js';

/** What the watcher reports: a path that changed (a file or folder, maybe gone), or `undefined`: rescan everything. */
export type TreeEvent = (path: string | undefined) => void;

export interface TreeWatcherOptions {
  /** Told once per kind of trouble (a folder that cannot be watched: the inotify limit, permissions). */
  onWarning?: (message: string, path: string) => void;
  /** Watch each folder on its own even where a native recursive watch exists (tests; default: only on Linux). */
  perFolder?: boolean;
  /**
   * How long `start` may arm watches before it returns (ms, default 50); the rest of a large tree is armed in slices
   * of `sliceMs` (default 10) between other work, and `armed` resolves when every folder found at start is watched.
   */
  startBudgetMs?: number;
  sliceMs?: number;
  /**
   * While the server is answering requests (`pace`), the walk's slices shrink to `busySliceMs` (default 2) and each is
   * followed by a pause `busyPause` times its length (default 3): the walk then takes about a quarter of the main thread.
   */
  busySliceMs?: number;
  busyPause?: number;
  /**
   * The most watches held while folders inside skills want one (default `defaultWatchLimit()`): folders outside
   * skills and skill folders are always watched; folders inside skills only while there is room, the rest swept.
   */
  watchLimit?: number;
  /** The sweep of folders not watched: a slice of `sweepSliceMs` (default 5) every `sweepIntervalMs` (default 45). */
  sweepSliceMs?: number;
  sweepIntervalMs?: number;
  /** From this many swept folders on (default 256), a worker thread sweeps them (remote-sweep.ts), at a lower priority. */
  sweepOnWorkerFrom?: number;
  /**
   * From this many known folders on (default 32,768), `start` has them watched by a worker thread (remote-watches.ts)
   * instead of opening the watches itself: `knownArmed` says when they are all open.
   */
  knownOnWorkerFrom?: number;
}

/** Whether the server is answering anyone (../activity.ts): milliseconds since it last was, 0 while it is. */
export interface WatchPace {
  idleFor(): number;
}

/** The server counts as busy for the walk's pacing when a request was in flight this recently (ms). */
const BUSY_WITHIN_MS = 50;

/** What /healthz says of the watches: held, swept, the limit, and why folders are swept (when they are). */
export interface WatchState {
  folders: number;
  arming: boolean;
  swept: number;
  limit: number;
  /** The last full sweep's length (ms): how long a change in a swept folder may wait to be found. */
  sweepCycleMs?: number;
  /** Which thread sweeps (once folders are swept): the main thread for a few, a worker for many. */
  sweptOn?: 'main' | 'worker';
  /** Set once folders are swept: the limit was reached, or the kernel refused a watch (ENOSPC, EACCES...). */
  degraded?: string;
}

/**
 * A worker isolate is ~15 MB of resident memory: worth it where opening the watches takes seconds (100,000 skills:
 * 100,000 folders and more), not at 10,000 skills (19,000 folders, ~0.3 s), where memory is the tighter budget.
 */
const KNOWN_ON_WORKER_FROM = 32_768;
/**
 * Swept folders take this thread's 5 ms in every 45 once there are a few hundred (~40 µs each): from then on a worker
 * sweeps them, worth its isolate (a tree past the watch limit has tens of thousands).
 */
const SWEEP_ON_WORKER_FROM = 256;

/** A known folder's watch held by the watch worker: closing it closes the worker's. */
class RemoteWatch {
  constructor(
    readonly depth: number,
    readonly close: () => void,
  ) {}
}
/** A folder of the first walk still to be watched (with its real path when derived from its parent's). */
interface Pending {
  dir: string;
  depth: number;
  real?: string;
  /** Below a skill folder (its files' folders, nested skills): watched only while there is room. */
  inside: boolean;
}
/** A folder not watched: what its entries looked like when last listed (see `fingerprint`). */
interface Swept {
  depth: number;
  inside: boolean;
  print: number;
}
/** Deeper than discovery goes (16 folders to a skill), so that folders inside deep skills are watched too. */
const MAX_DEPTH = 32;

/**
 * The default watch limit: half the user's inotify watches (the other half is left to every other process of the
 * user: editors, other servers, their tests), else no limit (no inotify here).
 */
export function defaultWatchLimit(): number {
  try {
    const max = Number(readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8').trim());
    if (Number.isSafeInteger(max) && max > 0) return Math.floor(max / 2);
  } catch {
    // not Linux: the native recursive watch needs no per-folder budget
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * Watches folder trees for changes, whatever way a file is changed: written in place, replaced by a rename (`sed -i`,
 * an editor's safe-save, `git checkout`), deleted and created again, or moved with its folder.
 *
 * Node 20's recursive `fs.watch` on Linux polls each file by stat and follows the file it first saw: once a file is
 * replaced by another (a rename over it), its later edits are never reported. So on Linux each folder gets a watch of
 * its own (inotify on a folder reports every change to the entries in it, whichever file now holds the name); a new
 * folder is watched as soon as it is seen, before it is scanned, and a folder that is gone (deleted, renamed) has its
 * watches closed. Elsewhere the native recursive watch (FSEvents, ReadDirectoryChangesW) already behaves so.
 *
 * Watches are a per-user kernel resource (`fs.inotify.max_user_watches`), so they go where skills are found first
 * (ADR 0252): every folder outside skills (a new skill may appear in any) and every skill folder (its SKILL.md) is
 * watched; folders inside skills (`references/`, nested skills) are watched only while fewer than `watchLimit` are
 * held. Every other folder, and any the kernel refused (ENOSPC), is swept: listed again in small slices, its
 * entries' inode, size, mtime and ctime compared with the last listing's. So every folder is watched or swept, and a
 * change anywhere is reported, at once or within one sweep cycle (`state().sweepCycleMs`).
 *
 * Arming is not free: a readdir, a stat and an inotify watch per folder. So `start` arms for a short budget and the
 * rest of the first walk runs in slices between requests; `armed` says when it is done (a restored catalog is
 * checked against the disk only after that, so a change made meanwhile is either heard or found by that check).
 * Folders that events reveal are still armed at once, whole: they are few.
 */
export class TreeWatcher {
  #watches = new Map<string, FSWatcher | RemoteWatch>();
  /** The worker holding the known folders' watches, when `start` gave them to one. */
  #remote: RemoteWatches | undefined;
  #prepared = false;
  /** Watched folders inside skills, oldest first: the ones given up (swept instead) when a folder outside needs room. */
  #inner = new Set<string>();
  #swept = new Map<string, Swept>();
  /** Folders whose last listing held a SKILL.md: the folders below them are inside a skill. */
  #skillDirs = new Set<string>();
  /** Each folder's real path and inode: a folder replaced under the same name needs a new watch. */
  #identity = new Map<string, { real: string; ino: number | undefined }>();
  /** Folders armed from a known list before the walk reached them: still to be listed (and their inode taken) by it. */
  #unlisted = new Set<string>();
  /** Real paths watched or swept, to the path they are at: a folder reached twice through links is covered once. */
  #byReal = new Map<string, string>();
  #warned = new Set<string>();
  /** The roots' real paths: a link to a folder that holds one (`/`, `..`) is never watched (discovery does not follow it). */
  #rootReals: string[] = [];
  /** Each root followed by the separator: what a folder below it starts with. */
  #rootPrefixes: string[] = [];
  #closed = false;
  /**
   * The first walk's folders not armed yet (stacks: depth first, as a recursive walk): those outside skills and skill
   * folders first, then those inside skills (which then take only the room left, never a watch given up later).
   */
  #walk: Pending[] = [];
  #walkInside: Pending[] = [];
  #armedResolve: (() => void) | undefined;
  readonly #limit: number;
  #degraded: string | undefined;
  #sweepTimer: NodeJS.Timeout | undefined;
  /** The worker sweeping, once many folders are swept; `#sweeperLost` once one could not run (this thread sweeps). */
  #sweeper: RemoteSweep | undefined;
  #sweeperLost = false;
  #sweepAt: IterableIterator<[string, Swept]> | undefined;
  #cycleStarted = 0;
  #cycleMs: number | undefined;
  #pace: WatchPace | undefined;
  /** Resolves once every folder found by the first walk is watched (or the watcher is closed). */
  armed: Promise<void> = Promise.resolve();
  /**
   * Resolves once the known folders given to `start` are watched (at once when `start` opened them itself; when the
   * worker has opened them otherwise): a change in one of them after this is heard.
   */
  knownArmed: Promise<void> = Promise.resolve();

  constructor(
    readonly roots: readonly string[],
    readonly onEvent: TreeEvent,
    readonly options: TreeWatcherOptions = {},
  ) {
    this.#limit = options.watchLimit ?? defaultWatchLimit();
  }

  /**
   * Starts watching every root (the rest of a large tree in slices: see `armed`); throws when a root cannot be watched
   * at all. `known` folders (those a restored catalog serves files from, and the folders on the way to them) are
   * watched before `start` returns, whatever the budget: a watch alone, no listing or stat (about 11 µs a folder
   * against 50 for the walk's readdir and stat), so a change to a served file is heard from the first answer on; the
   * walk still lists them later to find the folders no catalog knows. `skills` (the known skill folders) say which
   * known folders are inside a skill: those are watched only while there is room, the rest are swept once the walk
   * lists them (and a restored catalog's check, which runs after the walk, finds what changed before that).
   * `walkAfter`: the walk's slices begin once it resolves (or rejects).
   */
  start(known: Iterable<string> = [], skills: Iterable<string> = [], walkAfter?: Promise<unknown>): void {
    const perFolder = this.options.perFolder ?? process.platform === 'linux';
    if (!this.#prepared) this.prepare(known, skills);
    for (const root of this.roots) {
      if (perFolder) {
        // A root the kernel refuses a watch (ENOSPC) is swept like any other folder; one that cannot be read fails.
        const children = this.#watchOne(root, 0, undefined, false);
        if (children === false) throw new Error(`cannot watch ${root}`);
        this.#pushWalk(children);
        continue;
      }
      const watcher = watch(root, { recursive: true }, (_event, name) =>
        this.onEvent(name === null || name === undefined ? undefined : join(root, name.toString())),
      );
      watcher.on('error', () => this.onEvent(undefined));
      this.#watches.set(root, watcher);
    }
    // The check of a restored catalog waits for `armed`: the known folders' watches are part of it.
    if (this.#step(this.options.startBudgetMs ?? 50)) {
      this.armed = this.knownArmed;
      return;
    }
    const walked = new Promise<void>((resolve) => {
      this.#armedResolve = resolve;
      // Back to back while nobody is answered; under requests a short slice and a pause, so that the first walk of a
      // large tree (seconds of readdir and stat) does not hold every answer behind it.
      const slice = () => {
        const busy = this.#pace !== undefined && this.#pace.idleFor() < BUSY_WITHIN_MS;
        const began = performance.now();
        if (this.#step(busy ? (this.options.busySliceMs ?? 2) : (this.options.sliceMs ?? 10))) this.#armedResolve?.();
        else if (busy) setTimeout(slice, Math.max(1, (performance.now() - began) * (this.options.busyPause ?? 3)));
        else setImmediate(slice);
      };
      // A slice holds the event loop for up to `sliceMs`: started before the server listens, every module it loads
      // on the way waited behind one (seconds of a warm start at 10,000 skills).
      const begin = () => setImmediate(slice);
      if (walkAfter === undefined) begin();
      else walkAfter.then(begin, begin);
    });
    this.armed = Promise.all([walked, this.knownArmed]).then(() => {});
  }

  /**
   * The part of `start` that needs no walk: the known folders armed (on a worker when many), so that a caller that
   * has them early (a restored catalog, before its first snapshot is built) has them opened meanwhile. `start` then
   * takes no `known` or `skills` of its own.
   */
  prepare(known: Iterable<string> = [], skills: Iterable<string> = []): void {
    if (this.#prepared) return;
    this.#prepared = true;
    this.#rootReals = this.roots.flatMap((root) => {
      try {
        return [realpathSync(root)];
      } catch {
        return [];
      }
    });
    this.#rootPrefixes = this.roots.map((root) => root + sep);
    for (const dir of skills) this.#skillDirs.add(dir);
    if (this.options.perFolder ?? process.platform === 'linux') this.#armKnown(known);
    this.armed = this.knownArmed;
  }

  /** Tells the watcher when the server is answering requests: the first walk then yields most of the main thread. */
  pace(pace: WatchPace | undefined): void {
    this.#pace = pace;
  }

  /** True while the first walk is still arming folders in slices (see `armed`). */
  get walking(): boolean {
    return this.#walk.length > 0 || this.#walkInside.length > 0;
  }

  #pushWalk(children: Pending[]): void {
    for (let i = children.length - 1; i >= 0; i--) (children[i]!.inside ? this.#walkInside : this.#walk).push(children[i]!);
  }

  /** How many folders are watched one by one (for tests and diagnostics). */
  get folderCount(): number {
    return this.#watches.size;
  }

  /** The watch limit (see `TreeWatcherOptions.watchLimit`). */
  get limit(): number {
    return this.#limit;
  }

  /** How many folders are swept instead of watched. */
  get sweptCount(): number {
    return this.#swept.size;
  }

  state(): WatchState {
    return {
      folders: this.#watches.size,
      arming: this.walking,
      swept: this.#swept.size,
      limit: this.#limit,
      ...(this.#cycleMs !== undefined ? { sweepCycleMs: Math.round(this.#cycleMs) } : {}),
      ...(this.#swept.size > 0 ? { sweptOn: this.#sweeper !== undefined ? ('worker' as const) : ('main' as const) } : {}),
      ...(this.#degraded !== undefined ? { degraded: this.#degraded } : {}),
    };
  }

  /** Whether `dir` sits below a folder whose last listing held a SKILL.md. */
  #insideSkill(dir: string): boolean {
    for (let at = dirname(dir); ; at = dirname(at)) {
      if (this.#skillDirs.has(at)) return true;
      if (this.roots.includes(at) || at === dirname(at)) return false;
    }
  }

  #armKnown(known: Iterable<string>): void {
    const dirs = [...known];
    // Many folders: their watches are opened by a worker while this thread goes on (a restore, the first snapshot,
    // the index); each is entered here at once as watched, so every decision below and after is the same.
    const sent: string[] | undefined = dirs.length >= (this.options.knownOnWorkerFrom ?? KNOWN_ON_WORKER_FROM) ? [] : undefined;
    if (sent !== undefined) {
      this.#remote = new RemoteWatches(
        (dir, name) => {
          const watch = this.#watches.get(dir);
          if (watch instanceof RemoteWatch) this.#event(dir, name, watch.depth);
        },
        (dir) => {
          if (!(this.#watches.get(dir) instanceof RemoteWatch)) return;
          this.#unarm(dir);
          this.onEvent(dir);
        },
        () => this.#remoteLost(),
      );
    }
    // Folders outside skills first: when the limit is reached, those inside skills are the ones left to the sweep.
    const later: string[] = [];
    for (const dir of dirs) {
      if (this.#insideSkill(dir)) later.push(dir);
      else this.#armKnownOne(dir, false, sent);
    }
    for (const dir of later) if (this.#watches.size < this.#limit) this.#armKnownOne(dir, true, sent);
    if (sent !== undefined) this.knownArmed = this.#remote!.arm(sent).then((failed) => this.#remoteFailed(failed));
  }

  /**
   * Known folders the worker could not watch (gone since the catalog was saved, refused): no longer counted as
   * watched, and covered here as the walk would (watched, swept, or nothing when gone: its parent's event or the
   * check sees to it). The walk may have listed one already, so it is not left to the walk.
   */
  #remoteFailed(failed: readonly [string, string][]): void {
    if (this.#closed) return;
    for (const [dir] of failed) {
      const watch = this.#watches.get(dir);
      if (!(watch instanceof RemoteWatch)) continue;
      this.#drop(dir);
      this.#arm(dir, watch.depth);
    }
  }

  /** The worker ended by itself: its watches are gone. Covered here again, and everything rescanned (a change meanwhile went unheard). */
  #remoteLost(): void {
    if (this.#closed) return;
    const lost: [string, number][] = [];
    for (const [dir, watch] of this.#watches) if (watch instanceof RemoteWatch) lost.push([dir, watch.depth]);
    for (const [dir] of lost) this.#drop(dir);
    for (const [dir, depth] of lost) if (!this.#watches.has(dir) && !this.#swept.has(dir)) this.#arm(dir, depth);
    this.onEvent(undefined);
  }

  /** Forgets the watch of `dir` alone (not the folders below it), as if it had never been armed. */
  #drop(dir: string): void {
    this.#watches.delete(dir);
    const identity = this.#identity.get(dir);
    if (identity !== undefined && this.#byReal.get(identity.real) === dir) this.#byReal.delete(identity.real);
    this.#identity.delete(dir);
    this.#unlisted.delete(dir);
    this.#inner.delete(dir);
  }

  #armKnownOne(dir: string, inside: boolean, sent?: string[]): void {
    if (this.#closed || this.#watches.has(dir)) return;
    // Known folders are normalised paths below a root (joined from it): the relative path is a slice of the string
    // and the real path the root's plus that slice (path.relative and join per folder were a third of the arming).
    const index = this.#rootPrefixes.findIndex((prefix) => dir.startsWith(prefix));
    const rootReal = this.#rootReals[index];
    if (index < 0 || rootReal === undefined) return;
    const rel = dir.slice(this.#rootPrefixes[index]!.length);
    // Derived as the walk derives it (a link on the way is resolved again when the walk reaches the folder).
    const real = rootReal.endsWith(sep) ? rootReal + rel : rootReal + sep + rel;
    if (this.#byReal.has(real)) return;
    let depth = 1;
    for (let at = rel.indexOf(sep); at >= 0; at = rel.indexOf(sep, at + 1)) depth++;
    if (sent !== undefined) {
      if (!inside && this.#watches.size >= this.#limit) this.#demote();
      const remote = this.#remote!;
      this.#watches.set(dir, new RemoteWatch(depth, () => remote.closeWatch(dir)));
      if (inside) this.#inner.add(dir);
      sent.push(dir);
    } else if (this.#open(dir, depth, inside, true) === undefined) return; // gone since the catalog was saved, or refused: the walk and the check see to it
    this.#identity.set(dir, { real, ino: undefined });
    this.#byReal.set(real, dir);
    this.#unlisted.add(dir);
  }

  /** Arms folders of the first walk for about `budgetMs`; true when the walk is done. */
  #step(budgetMs: number): boolean {
    const started = performance.now();
    let count = 0;
    while (this.walking && !this.#closed) {
      const next = (this.#walk.length > 0 ? this.#walk : this.#walkInside).pop()!;
      const children = this.#watchOne(next.dir, next.depth, next.real, next.inside);
      if (children !== false) this.#pushWalk(children);
      if ((++count & 15) === 0 && performance.now() - started > budgetMs) break;
    }
    if (this.#closed) this.#walk = this.#walkInside = [];
    return !this.walking;
  }

  close(): void {
    this.#closed = true;
    this.#remote?.close();
    this.#sweeper?.close();
    this.#sweeper = undefined;
    this.#walk = this.#walkInside = [];
    this.#armedResolve?.();
    if (this.#sweepTimer !== undefined) clearTimeout(this.#sweepTimer);
    this.#sweepTimer = undefined;
    for (const watcher of this.#watches.values()) watcher.close();
    this.#watches.clear();
    this.#inner.clear();
    this.#swept.clear();
    this.#identity.clear();
    this.#byReal.clear();
    this.#unlisted.clear();
  }

  /** Watches (or sweeps) `dir` and every folder below it not covered yet, now (folders an event revealed); false when `dir` is gone. */
  #arm(dir: string, depth: number, inside = this.#insideSkill(dir), knownReal?: string): boolean {
    const children = this.#watchOne(dir, depth, knownReal, inside);
    if (children === false) return false;
    for (const child of children) this.#arm(child.dir, child.depth, child.inside, child.real);
    return true;
  }

  /**
   * Watches (or sweeps, see the class) `dir` alone and returns the folders below it to cover next (none when already
   * covered, or too deep); false when `dir` cannot be read at all.
   */
  #watchOne(dir: string, depth: number, knownReal: string | undefined, inside: boolean): Pending[] | false {
    if (this.#closed) return [];
    if (this.#watches.has(dir)) return this.#unlisted.delete(dir) ? this.#listKnown(dir, depth, inside) : [];
    if (this.#swept.has(dir)) return [];
    let real: string;
    let ino: number;
    try {
      // A plain folder's real path is its parent's plus its name: only roots and links need resolving.
      real = knownReal ?? realpathSync(dir);
      ino = statSync(dir).ino;
    } catch {
      return false; // gone already: its parent's event has been reported
    }
    if (this.#byReal.has(real)) return [];
    // Only a root or a folder reached through a link can hold a root; a root itself is watched.
    if (knownReal === undefined && !this.roots.includes(dir) && this.#rootReals.some((root) => holdsPath(real, root))) return [];
    // Watched before it is listed, so nothing made in it between the listing and the watch is missed.
    const watched = (!inside || this.#watches.size < this.#limit) && this.#open(dir, depth, inside) !== undefined;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      entries = [];
    }
    // A swept folder keeps no identity: it is inside a skill (no link is followed there) or was refused a watch, and
    // a folder made anew in its place is told by its listing (the sweep compares what it holds).
    if (!watched) this.#sweep(dir, depth, inside, entries);
    else {
      this.#identity.set(dir, { real, ino });
      this.#byReal.set(real, dir);
    }
    return this.#children(dir, depth, real, inside, entries);
  }

  /**
   * Opens a watch on `dir`. A folder outside skills that meets the limit (or ENOSPC) takes the place of one inside a
   * skill, which is swept from then on. Undefined when the folder cannot be watched (it is then swept by the caller).
   */
  #open(dir: string, depth: number, inside: boolean, quietWhenGone = false): FSWatcher | undefined {
    if (!inside && this.#watches.size >= this.#limit) this.#demote();
    let watcher: FSWatcher | undefined;
    for (let attempt = 0; watcher === undefined; attempt++) {
      try {
        watcher = watch(dir, { persistent: true }, (_event, name) =>
          this.#event(dir, name === null || name === undefined ? undefined : name.toString(), depth),
        );
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // The kernel's limit, shared with every process of the user: a folder outside skills still gets a watch.
        if (code === 'ENOSPC' && !inside && attempt === 0 && this.#demote()) continue;
        if (code === 'ENOENT' && quietWhenGone) return undefined;
        this.#warn(error as NodeJS.ErrnoException, dir);
        return undefined;
      }
    }
    // A watch that fails (its folder gone, an overflow) is dropped; the parent's events or a full rescan cover it.
    watcher.on('error', () => {
      this.#unarm(dir);
      this.onEvent(dir);
    });
    this.#watches.set(dir, watcher);
    if (inside) this.#inner.add(dir);
    return watcher;
  }

  /** Gives up the oldest watch inside a skill: its folder is swept from now on. False when there is none. */
  #demote(): boolean {
    const dir = this.#inner.values().next().value;
    if (dir === undefined) return false;
    this.#inner.delete(dir);
    const entries = this.#listOrDrop(dir);
    if (entries === undefined) return true;
    // Listed while still watched: a change after this listing is either heard or seen by the sweep.
    const depth = relative(this.#rootOf(dir), dir).split(sep).length;
    this.#sweep(dir, depth, true, entries);
    this.#watches.get(dir)?.close();
    this.#watches.delete(dir);
    this.#unlisted.delete(dir);
    return true;
  }

  #rootOf(dir: string): string {
    return this.roots.find((root) => dir === root || dir.startsWith(root + sep)) ?? dirname(dir);
  }

  /** Puts `dir` in the sweep, with the fingerprint of the listing just taken. */
  #sweep(dir: string, depth: number, inside: boolean, entries: Dirent[]): void {
    if (this.#degraded === undefined) {
      const reason = this.#warned.size > 0 ? 'the kernel refused watches' : `the watch limit (${this.#limit}) was reached`;
      this.#degraded = `${reason}: folders not watched are swept instead (changes there are found within a sweep cycle)`;
      if (this.#warned.size === 0)
        this.options.onWarning?.(`${this.#degraded} (raise the watch limit: SKILLPORT_WATCH_LIMIT for serve, the watchLimit option for the library)`, dir);
    }
    const print = fingerprint(dir, entries);
    this.#swept.set(dir, { depth, inside, print });
    if (this.#sweeper !== undefined) this.#sweeper.add(dir, print);
    else if (this.#swept.size >= (this.options.sweepOnWorkerFrom ?? SWEEP_ON_WORKER_FROM) && !this.#sweeperLost) this.#sweepOnWorker();
    else this.#sweepSoon();
  }

  /** Hands the sweep to a worker thread (remote-sweep.ts): every folder swept so far, and each one from now on. */
  #sweepOnWorker(): void {
    if (this.#sweepTimer !== undefined) clearTimeout(this.#sweepTimer);
    this.#sweepTimer = undefined;
    this.#sweepAt = undefined;
    try {
      this.#sweeper = new RemoteSweep(
        { sliceMs: this.options.sweepSliceMs ?? 5, intervalMs: this.options.sweepIntervalMs ?? 45 },
        (dir, print) => this.#sweptChanged(dir, print),
        (ms) => (this.#cycleMs = ms),
        () => {
          // The worker is gone: this thread sweeps again, from the fingerprints the worker last reported.
          this.#sweeper = undefined;
          this.#sweeperLost = true;
          this.#sweepSoon();
        },
      );
    } catch {
      this.#sweeperLost = true;
      this.#sweepSoon();
      return;
    }
    for (const [dir, swept] of this.#swept) this.#sweeper.add(dir, swept.print);
  }

  /** The worker found `dir` changed: listed here again, and told as a change found by this thread's sweep would be. */
  #sweptChanged(dir: string, print: number): void {
    const swept = this.#swept.get(dir);
    if (swept === undefined || this.#closed) return; // no longer swept: the change is the watch's or the rescan's
    const entries = this.#listOrDrop(dir);
    if (entries === undefined) return;
    this.#sweptMoved(dir, swept, entries, print);
  }

  #sweepSoon(): void {
    if (this.#sweepTimer !== undefined || this.#closed || this.#sweeper !== undefined) return;
    this.#sweepTimer = setTimeout(() => {
      this.#sweepTimer = undefined;
      this.#sweepSlice();
    }, this.options.sweepIntervalMs ?? 45);
    this.#sweepTimer.unref();
  }

  /** Lists swept folders again for about `sweepSliceMs`, reporting each whose entries changed. */
  #sweepSlice(): void {
    if (this.#closed) return;
    const budget = this.options.sweepSliceMs ?? 5;
    const started = performance.now();
    let count = 0;
    for (;;) {
      if (this.#sweepAt === undefined) {
        this.#sweepAt = this.#swept.entries();
        this.#cycleStarted = performance.now();
      }
      const next = this.#sweepAt.next();
      if (next.done) {
        this.#sweepAt = undefined;
        this.#cycleMs = performance.now() - this.#cycleStarted;
        break;
      }
      const [dir, swept] = next.value;
      this.#sweepOne(dir, swept);
      if ((++count & 7) === 0 && performance.now() - started > budget) break;
    }
    if (this.#swept.size > 0) this.#sweepSoon();
  }

  /** `dir`'s entries; undefined when it is gone or unreadable: then reported (what it held is rescanned) and dropped. */
  #listOrDrop(dir: string): Dirent[] | undefined {
    try {
      return readdirSync(dir, { withFileTypes: true });
    } catch {
      this.#unarm(dir);
      this.onEvent(dir);
      return undefined;
    }
  }

  #sweepOne(dir: string, swept: Swept): void {
    const entries = this.#listOrDrop(dir);
    if (entries === undefined) return;
    const print = fingerprint(dir, entries);
    if (print === swept.print) return;
    this.#sweptMoved(dir, swept, entries, print);
  }

  #sweptMoved(dir: string, swept: Swept, entries: Dirent[], print: number): void {
    swept.print = print;
    // New folders in it are covered (watched or swept) before the rescan this event asks for reads them.
    const identity = this.#identity.get(dir);
    const inside = swept.inside || entries.some(isManifest);
    for (const child of this.#children(dir, swept.depth, identity?.real ?? dir, inside, entries)) {
      if (!this.#watches.has(child.dir) && !this.#swept.has(child.dir)) this.#arm(child.dir, child.depth, child.inside, child.real);
    }
    this.onEvent(dir);
  }

  /** A folder armed from the known list, reached by the walk: its inode taken now, its folders listed. */
  #listKnown(dir: string, depth: number, inside: boolean): Pending[] {
    const identity = this.#identity.get(dir)!;
    identity.ino = inodeOf(dir);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return [];
    }
    return this.#children(dir, depth, identity.real, inside, entries);
  }

  #children(dir: string, depth: number, real: string, inside: boolean, entries: Dirent[]): Pending[] {
    // A folder holding a SKILL.md is a skill: the folders below it are its files' (watched only while there is room).
    const skill = entries.some(isManifest);
    if (skill) this.#skillDirs.add(dir);
    else this.#skillDirs.delete(dir);
    if (depth >= MAX_DEPTH) return [];
    const children: Pending[] = [];
    for (const entry of entries) {
      if (SKIPPED.has(entry.name)) continue;
      const child = join(dir, entry.name);
      // A plain folder's real path is its path when its parent's is (no link on the way): one string, not two.
      if (entry.isDirectory()) children.push({ dir: child, depth: depth + 1, real: real === dir ? child : join(real, entry.name), inside: inside || skill });
      // Inside a skill, links to folders are not followed (skill-folder.ts serves none of their files).
      else if (!inside && !skill && entry.isSymbolicLink() && isDirectory(child)) children.push({ dir: child, depth: depth + 1, inside: false });
    }
    return children;
  }

  #event(dir: string, name: string | undefined, depth: number): void {
    if (this.#closed) return;
    if (name === undefined) {
      // Which entry changed is unknown: the whole folder is looked at again.
      this.onEvent(dir);
      this.#rearmBelow(dir, depth);
      return;
    }
    if (SKIPPED.has(name)) {
      // `.git` and `node_modules` are not watched inside (as discovery does not search them): a change to the entry
      // itself is reported as a change to its folder, so no rescan ever walks into one.
      this.onEvent(dir);
      return;
    }
    const path = join(dir, name);
    // Watch a new folder before its contents are scanned (the scan runs after the debounce), so nothing written
    // into it in between is missed; a folder that went away takes its watches with it.
    let stats;
    try {
      stats = lstatSync(path);
    } catch {
      stats = undefined;
    }
    if (name === 'SKILL.md' || name === 'skill.md') {
      if (stats !== undefined) this.#skillDirs.add(dir);
    }
    if (stats === undefined) this.#unarm(path);
    else if (stats.isDirectory() || (stats.isSymbolicLink() && isDirectory(path))) {
      // A folder renamed in place of another keeps the name but not the watch: start again from the disk.
      const known = this.#identity.get(path);
      // (One armed from the known list has no inode yet: it is armed again, which costs a few watches.)
      if (known !== undefined && (known.ino === undefined || known.ino !== inodeOf(path))) this.#unarm(path);
      this.#arm(path, depth + 1);
    }
    this.onEvent(path);
  }

  #rearmBelow(dir: string, depth: number): void {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (SKIPPED.has(entry.name)) continue;
      const child = join(dir, entry.name);
      if (entry.isDirectory()) this.#arm(child, depth + 1);
    }
  }

  /** Closes the watches of `path` and of every folder below it, and takes them out of the sweep. */
  #unarm(path: string): void {
    // Folders are covered from the top down, so nothing below an uncovered path is covered.
    if (!this.#watches.has(path) && !this.#swept.has(path)) return;
    const below = (dir: string) => dir === path || dir.startsWith(path + sep);
    const forget = (dir: string) => {
      const identity = this.#identity.get(dir);
      if (identity !== undefined && this.#byReal.get(identity.real) === dir) this.#byReal.delete(identity.real);
      this.#identity.delete(dir);
      this.#unlisted.delete(dir);
      this.#inner.delete(dir);
    };
    for (const [dir, watcher] of this.#watches) {
      if (!below(dir)) continue;
      watcher.close();
      this.#watches.delete(dir);
      forget(dir);
    }
    if (this.#swept.size > 0) {
      for (const dir of this.#swept.keys()) {
        if (!below(dir)) continue;
        this.#swept.delete(dir);
        this.#sweeper?.drop(dir);
        forget(dir);
      }
    }
  }

  #warn(error: NodeJS.ErrnoException, dir: string): void {
    const code = error.code ?? 'error';
    this.#degraded ??= `the kernel refused watches (${code}): folders not watched are swept instead (changes there are found within a sweep cycle)`;
    if (this.#warned.has(code)) return;
    this.#warned.add(code);
    const hint = code === 'ENOSPC' ? ' (the inotify watch limit: raise fs.inotify.max_user_watches)' : '';
    this.options.onWarning?.(`cannot watch folders for changes (${code}${hint}); changes below them are found by a sweep instead`, dir);
  }
}

function isManifest(entry: Dirent): boolean {
  return (entry.name === 'SKILL.md' || entry.name === 'skill.md') && !entry.isDirectory();
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function inodeOf(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}
