import { lstatSync, readdirSync, realpathSync, statSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { holdsPath } from '@skillport/core';

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
}

const SKIPPED = new Set(['.git', 'node_modules']);
/** A folder of the first walk still to be watched (with its real path when derived from its parent's). */
interface Pending {
  dir: string;
  depth: number;
  real?: string;
}
/** Deeper than discovery goes (16 folders to a skill), so that folders inside deep skills are watched too. */
const MAX_DEPTH = 32;

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
 * Arming is not free: a readdir, a stat and an inotify watch per folder, about 25 s of one core for the ~200,000
 * folders of 100,000 skills (issue 13's profile: half of a warm start). So `start` arms for a short budget and the
 * rest of the first walk runs in slices between requests; `armed` says when it is done (a restored catalog is
 * checked against the disk only after that, so a change made meanwhile is either heard or found by that check).
 * Folders that events reveal are still armed at once, whole: they are few.
 */
export class TreeWatcher {
  #watches = new Map<string, FSWatcher>();
  /** Each watched folder's real path and inode: a folder replaced under the same name needs a new watch. */
  #identity = new Map<string, { real: string; ino: number | undefined }>();
  /** Folders armed from a known list before the walk reached them: still to be listed (and their inode taken) by it. */
  #unlisted = new Set<string>();
  /** Real paths watched, to the path they are watched at: a folder reached twice through links is watched once. */
  #byReal = new Map<string, string>();
  #warned = new Set<string>();
  /** The roots' real paths: a link to a folder that holds one (`/`, `..`) is never watched (discovery does not follow it). */
  #rootReals: string[] = [];
  #closed = false;
  /** The first walk's folders not armed yet (a stack: depth first, as a recursive walk). */
  #walk: Pending[] = [];
  #armedResolve: (() => void) | undefined;
  /** Resolves once every folder found by the first walk is watched (or the watcher is closed). */
  armed: Promise<void> = Promise.resolve();

  constructor(
    readonly roots: readonly string[],
    readonly onEvent: TreeEvent,
    readonly options: TreeWatcherOptions = {},
  ) {}

  /**
   * Starts watching every root (the rest of a large tree in slices: see `armed`); throws when a root cannot be watched
   * at all. `known` folders (those a restored catalog serves files from, and the folders on the way to them) are
   * watched before `start` returns, whatever the budget: a watch alone, no listing or stat (about 11 µs a folder
   * against 50 for the walk's readdir and stat), so a change to a served file is heard from the first answer on; the
   * walk still lists them later to find the folders no catalog knows.
   */
  start(known: Iterable<string> = []): void {
    const perFolder = this.options.perFolder ?? process.platform === 'linux';
    this.#rootReals = this.roots.flatMap((root) => {
      try {
        return [realpathSync(root)];
      } catch {
        return [];
      }
    });
    for (const root of this.roots) {
      if (perFolder) {
        const children = this.#watchOne(root, 0);
        if (children === false) throw new Error(`cannot watch ${root}`);
        for (let i = children.length - 1; i >= 0; i--) this.#walk.push(children[i]!);
        continue;
      }
      const watcher = watch(root, { recursive: true }, (_event, name) =>
        this.onEvent(name === null || name === undefined ? undefined : join(root, name.toString())),
      );
      watcher.on('error', () => this.onEvent(undefined));
      this.#watches.set(root, watcher);
    }
    if (perFolder) this.#armKnown(known);
    if (this.#step(this.options.startBudgetMs ?? 50)) return;
    this.armed = new Promise((resolve) => {
      this.#armedResolve = resolve;
      const slice = () => {
        if (this.#step(this.options.sliceMs ?? 10)) this.#armedResolve?.();
        else setImmediate(slice);
      };
      setImmediate(slice);
    });
  }

  /** True while the first walk is still arming folders in slices (see `armed`). */
  get walking(): boolean {
    return this.#walk.length > 0;
  }

  #armKnown(known: Iterable<string>): void {
    for (const dir of known) {
      if (this.#closed || this.#watches.has(dir)) continue;
      const index = this.roots.findIndex((root) => dir.startsWith(root + sep));
      const rootReal = this.#rootReals[index];
      if (index < 0 || rootReal === undefined) continue;
      const rel = relative(this.roots[index]!, dir);
      // Derived as the walk derives it (a link on the way is resolved again when the walk reaches the folder).
      const real = join(rootReal, rel);
      if (this.#byReal.has(real)) continue;
      const depth = rel.split(sep).length;
      let watcher: FSWatcher;
      try {
        watcher = watch(dir, { persistent: true }, (_event, name) =>
          this.#event(dir, name === null || name === undefined ? undefined : name.toString(), depth),
        );
      } catch (error) {
        // Gone since the catalog was saved: the check against the disk finds that; any other trouble is told.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#warn(error as NodeJS.ErrnoException, dir);
        continue;
      }
      watcher.on('error', () => {
        this.#unarm(dir);
        this.onEvent(dir);
      });
      this.#watches.set(dir, watcher);
      this.#identity.set(dir, { real, ino: undefined });
      this.#byReal.set(real, dir);
      this.#unlisted.add(dir);
    }
  }

  /** Arms folders of the first walk for about `budgetMs`; true when the walk is done. */
  #step(budgetMs: number): boolean {
    const started = performance.now();
    let count = 0;
    while (this.#walk.length > 0 && !this.#closed) {
      const next = this.#walk.pop()!;
      const children = this.#watchOne(next.dir, next.depth, next.real);
      if (children !== false) for (let i = children.length - 1; i >= 0; i--) this.#walk.push(children[i]!);
      if ((++count & 15) === 0 && performance.now() - started > budgetMs) break;
    }
    if (this.#closed) this.#walk = [];
    return this.#walk.length === 0;
  }

  /** How many folders are watched one by one (for tests and diagnostics). */
  get folderCount(): number {
    return this.#watches.size;
  }

  close(): void {
    this.#closed = true;
    this.#walk = [];
    this.#armedResolve?.();
    for (const watcher of this.#watches.values()) watcher.close();
    this.#watches.clear();
    this.#identity.clear();
    this.#byReal.clear();
    this.#unlisted.clear();
  }

  /** Watches `dir` and every folder below it not watched yet, now (folders an event revealed); false when `dir` itself cannot be watched. */
  #arm(dir: string, depth: number, knownReal?: string): boolean {
    const children = this.#watchOne(dir, depth, knownReal);
    if (children === false) return false;
    for (const child of children) this.#arm(child.dir, child.depth, child.real);
    return true;
  }

  /**
   * Watches `dir` alone and returns the folders below it to watch next (none when already watched, or too deep);
   * false when `dir` cannot be watched.
   */
  #watchOne(dir: string, depth: number, knownReal?: string): Pending[] | false {
    if (this.#closed) return [];
    if (this.#watches.has(dir)) return this.#unlisted.delete(dir) ? this.#listKnown(dir, depth) : [];
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
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: true }, (_event, name) => this.#event(dir, name === null || name === undefined ? undefined : name.toString(), depth));
    } catch (error) {
      this.#warn(error as NodeJS.ErrnoException, dir);
      return false;
    }
    // A watch that fails (its folder gone, an overflow) is dropped; the parent's events or a full rescan cover it.
    watcher.on('error', () => {
      this.#unarm(dir);
      this.onEvent(dir);
    });
    this.#watches.set(dir, watcher);
    this.#identity.set(dir, { real, ino });
    this.#byReal.set(real, dir);
    return this.#children(dir, depth, real);
  }

  /** A folder armed from the known list, reached by the walk: its inode taken now, its folders listed. */
  #listKnown(dir: string, depth: number): Pending[] {
    const identity = this.#identity.get(dir)!;
    identity.ino = inodeOf(dir);
    return this.#children(dir, depth, identity.real);
  }

  #children(dir: string, depth: number, real: string): Pending[] {
    if (depth >= MAX_DEPTH) return [];
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return [];
    }
    const children: Pending[] = [];
    for (const entry of entries) {
      if (SKIPPED.has(entry.name)) continue;
      const child = join(dir, entry.name);
      if (entry.isDirectory()) children.push({ dir: child, depth: depth + 1, real: join(real, entry.name) });
      else if (entry.isSymbolicLink() && isDirectory(child)) children.push({ dir: child, depth: depth + 1 });
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

  /** Closes the watches of `path` and of every folder below it. */
  #unarm(path: string): void {
    // Folders are watched from the top down, so nothing below an unwatched path is watched.
    if (!this.#watches.has(path)) return;
    for (const [dir, watcher] of this.#watches) {
      if (dir === path || dir.startsWith(path + sep)) {
        watcher.close();
        this.#watches.delete(dir);
        const identity = this.#identity.get(dir);
        if (identity !== undefined && this.#byReal.get(identity.real) === dir) this.#byReal.delete(identity.real);
        this.#identity.delete(dir);
        this.#unlisted.delete(dir);
      }
    }
  }

  #warn(error: NodeJS.ErrnoException, dir: string): void {
    const code = error.code ?? 'error';
    if (this.#warned.has(code)) return;
    this.#warned.add(code);
    const hint = code === 'ENOSPC' ? ' (the inotify watch limit: raise fs.inotify.max_user_watches)' : '';
    this.options.onWarning?.(`cannot watch folders for changes (${code}${hint}); changes below them are picked up by the next rescan`, dir);
  }
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
