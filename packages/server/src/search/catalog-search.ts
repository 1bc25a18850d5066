import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { fileSource } from '@skillport/core';
import { MAX_REFERENCE_BYTES, SkillSearchIndex, loadIndex, referenceFiles, saveIndex } from '@skillport/search';
import type { AnalysedDocument, AnalysedTerms, SearchHit, SearchView } from '@skillport/search';
import type { ContentReader } from '../catalog/content.js';
import type { CatalogFile, CatalogSkill } from '../catalog/model.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';
import type { SkillsService } from '../mcp/skills-service.js';
import { collectGarbage } from '../memory.js';
import { AnalysedFeed, AnalysisPool } from './analysis-pool.js';
import type { FileJob, SkillJob } from './index-worker.js';
import { bodyText, referenceTexts } from './skill-texts.js';

/**
 * Search over the catalog: ONE incremental `SkillSearchIndex` per server (per content reader), shared by every
 * principal's view and following the catalog's changes.
 *
 * - Following: the index follows the newest catalog snapshot it is shown (`follow`, called at start and on every
 *   catalog change, and by each search). The skills that may differ are those of the snapshots' deltas since the
 *   snapshot the index last caught up with (ADR 0130: `parent` and `delta`), each checked against what the index
 *   holds (URI → package digest): a changed skill costs the reading of its own SKILL.md and one lookup, never a
 *   walk of the catalog. Without a known way back (a full build of the catalog, a large change), the whole
 *   snapshot is diffed.
 * - Start, warm: the index of the last run is read from disk (`persistTo`; ADR 0201: checksummed, versioned by the
 *   analysis, each skill's package digest beside it), then followed like any change: a skill whose digest differs,
 *   or that is gone, is re-indexed or removed, so the restored index is never stale once it has caught up, and
 *   catching up costs what changed while the server was down. A file that cannot be used is discarded (and
 *   rewritten after the build). The index is saved again a moment after it changes, when the server is quiet.
 * - Start, cold: the first index is built in the background, in slices that yield to the event loop, and, until the
 *   first search, only when the server has been quiet for a while (`pace`: no request in flight or started for
 *   DEFAULT_IDLE_MS), so that a server nobody searches never makes its readers wait for it (ADR 0151). A search
 *   makes the build go on without waiting. Until it has caught up, a search of a catalog of at most
 *   `waitMaxSkills` skills (default WAIT_MAX_SKILLS) waits for the index, up to `waitMs` (default WAIT_MS): a model
 *   takes "no skill matches" at its word, so an answer from half an index is worse than a late one. A larger catalog,
 *   or a wait that ran out, answers from what is indexed and says so (`complete: false`, how many skills were
 *   searched, and when to ask again, from the build's pace so far). After a large batch (the first build) the index
 *   is compacted before it says it is complete, and garbage is collected when the server is quiet (searched or not).
 * - Views: a principal's view (a `ViewSnapshot` filtered from the catalog's) is searched through a `SearchView` of the
 *   shared index: a bit per document and the view's own BM25 statistics, so it ranks exactly like an index of its
 *   skills alone, returns nothing outside it, and never reads a body. A skill is searched in a view only when the
 *   indexed version (package digest) is the one the view holds.
 * - Bodies: read once per skill version through the content reader (verified like any read, without filling its
 *   cache), analysed into the index and dropped: the index keeps no text but names, ids and description terms. A
 *   SKILL.md that cannot be read is indexed without its body. The skill's other Markdown files (references,
 *   examples: `referenceFiles`) are read the same way, up to REFERENCE_CHARS characters, a file that cannot be read
 *   or is larger than MAX_REFERENCE_BYTES skipped.
 * - Workers (ADR 0261): a batch of at least MIN_POOLED skills (the first build, a large change) is read and analysed
 *   in worker threads (./analysis-pool.ts, ./index-worker.ts: the same verified read, the same analysis), a few
 *   batches ahead of the insertion, and the main thread only inserts the analysed documents (`index.insert`), still
 *   in slices, pacing, search share and save waits as above: the index is the same as one built here. A smaller
 *   change is read and analysed here at once. A worker that fails sends the rest of the build here (one logged line);
 *   the workers end with the batch and on close.
 */
export interface SearchAnswer {
  hits: SearchHit[];
  /** False while the index is still being built (or catching up with a large change): hits are from `searched` skills. */
  complete: boolean;
  /** Skills of the snapshot that were searched. */
  searched: number;
  /** Skills in the snapshot. */
  total: number;
  /** When incomplete: about when the index will be complete (seconds, at the build's pace so far), to ask again then. */
  retryAfterSeconds?: number;
}

/** Once the index has caught up, a search waits for a pending change this small (in skills) rather than answer without it. */
const WAIT_FOR_CHANGES = 256;
/**
 * A search waits for the whole index of a catalog up to this size (skills), up to WAIT_MS: the first build of 10,000
 * generated skills took 6.4 s (quiet) to 25 s (loaded machine), so 20,000 waits about as long as a model host waits for a
 * tool; beyond it, an answer that says how far the index got (and when to ask again) is the useful one.
 */
export const WAIT_MAX_SKILLS = 20_000;
/** The longest a search waits for the index (then it answers from what is indexed, saying so). */
export const WAIT_MS = 30_000;
/** Skills indexed per second assumed before the build has run long enough to measure its pace. */
const ASSUMED_RATE = 500;
/** The index is saved this long after it last changed (and only when the server is quiet). */
const SAVE_DELAY_MS = 2_000;
/** Work between yields to the event loop while following the catalog (milliseconds). */
const SLICE_MS = 8;
/**
 * While searches come during a build, each slice also takes the time those searches spent in the index since the
 * last slice, up to this much more: searched continuously (a client polling until the answer is complete), a build
 * of 8 ms slices got a share of the main thread that shrank as the index (hence each search) grew, and at 100,000
 * skills took 476 s after ready instead of tens (issue 13). With it the build keeps at least about half the thread.
 */
const MAX_SEARCH_SHARE_MS = 100;
/**
 * Quiet time (no request in flight, none started or ended) before the background build takes a slice, until a
 * search asks for the index (ADR 0151): a server nobody searches never makes its readers wait for the build.
 */
export const DEFAULT_IDLE_MS = 250;
/** Private skills kept indexed before that index is started again (they are few: versions waiting for review). */
const PRIVATE_KEPT = 1000;
/** A change touching more skills than this share of the catalog is diffed against the whole snapshot. */
const DELTA_SHARE = 1 / 8;
/**
 * Worker threads reading and analysing a large batch: one, beside the main thread, on the two cores this is
 * measured on (the main thread inserts, merges and serves); more where there are more cores, at most four.
 */
const DEFAULT_WORKERS = Math.min(4, Math.max(1, availableParallelism() - 1));
/** A batch of at least this many skills goes to the worker threads; a smaller change is indexed at once on the main thread. */
const MIN_POOLED = 64;
/** Snapshots walked back (through `parent`) to find the one the index holds. */
const MAX_CHAIN = 64;

/** What the server is doing (activity.ts): milliseconds since it was last busy, 0 while a request is in flight. */
export interface Pace {
  idleFor(): number;
}

/** The state of the search index, for /healthz and tests. */
export interface SearchState {
  /** Skills indexed, and in the snapshot followed. */
  indexed: number;
  total: number;
  /** The index holds the followed snapshot entirely. */
  ready: boolean;
  /** A search asked for the index: it is built (and kept up to date) without waiting for quiet. */
  eager: boolean;
  /** Times the background build waited because the server was answering requests. */
  deferred: number;
  /** How the last changes were found: by the snapshot's delta (one entry per changed skill) or by a full diff. */
  diffs: { delta: number; full: number };
  /** Compactions that folded anything (at the end of a large batch, or when the server was quiet after changes). */
  compactions: number;
  /** The persisted index at start: `none` (cold start), `restored` (skills it held), or why it was discarded. */
  restored: { skills: number } | 'none' | { discarded: string };
  /** Skills read and analysed in worker threads (a large batch's), not on the main thread. */
  analysedInWorkers: number;
  /** The data a first search reads (word vectors, situation map, WordNet) were read before any search: a warm start. */
  prepared: boolean;
  /** Times the index was saved, and the last save's failure if any. */
  saves: number;
  saveError?: string;
}

export interface CatalogSearchOptions {
  /** A search of a catalog of at most this many skills waits for the index (default WAIT_MAX_SKILLS). */
  waitMaxSkills?: number;
  /** For at most this long (ms; default WAIT_MS). */
  waitMs?: number;
  /** false: rank lexically, without the bundled word vectors. Set before the first `persistTo` or `follow`. */
  wordVectors?: false;
  /** Worker threads that read and analyse large batches (default DEFAULT_WORKERS; 0: none, all on the main thread). */
  workers?: number;
  /** Where a line about trouble goes (the worker threads failed and the build went on without them). */
  log?: (line: string) => void;
}

export class CatalogSearch {
  index = new SkillSearchIndex();
  /** How the index is made and restored (configure). */
  #indexOptions: { wordVectors?: false } = {};
  /** What the index holds: URI → package digest. */
  readonly #indexed = new Map<string, string>();
  /** The snapshot being followed, and the last one the index fully caught up with. */
  #target: CatalogSnapshot | undefined;
  #caughtUp: CatalogSnapshot | undefined;
  /** Skills still to index for the target (an estimate between diffs). */
  #pending = 0;
  #running: Promise<void> | undefined;
  #closed = false;
  readonly #views = new WeakMap<CatalogSnapshot, { epoch: number; view: SearchView; searched: number }>();
  #epoch = 0;
  /** When set, the background build takes a slice only after `idleMs` of quiet, until the first search. */
  #pace: Pace | undefined;
  #idleMs = DEFAULT_IDLE_MS;
  #eager = false;
  #wake: (() => void) | undefined;
  #deferred = 0;
  readonly #diffs = { delta: 0, full: 0 };
  #addedSinceCompact = 0;
  #compacting = false;
  #compactions = 0;
  /** Time searches spent in the index since the build's last slice began, while the index was not ready. */
  #owed = 0;
  /** The persisted index being read at start (catching up waits for it). */
  #restoring: Promise<void> | undefined;
  #restored: SearchState['restored'] = 'none';
  #persistPath: string | undefined;
  #savedEpoch = -1;
  #saveTimer: NodeJS.Timeout | undefined;
  #saving = false;
  #saves = 0;
  #saveError: string | undefined;
  /** The current build's pace: when it started and how many skills it has indexed since. */
  #buildStarted = 0;
  #builtSince = 0;
  #waitMaxSkills = WAIT_MAX_SKILLS;
  #waitMs = WAIT_MS;
  /** Worker threads for large batches (0: every skill is read and analysed on the main thread). */
  #workers = DEFAULT_WORKERS;
  #pool: AnalysisPool | undefined;
  #analysedInWorkers = 0;
  #prepared = false;
  /** Resolved once a catch-up has taken its first diff (restored() waits for it). */
  #diffed: Promise<void> = Promise.resolve();
  #diffDone: (() => void) | undefined;
  #log: (line: string) => void = () => undefined;
  /** Private skills (pending versions) some view holds, indexed apart from the catalog (#withPrivate). */
  #private: { index: SkillSearchIndex; indexed: Map<string, string> } | undefined;

  constructor(readonly content: ContentReader) {}

  /** How long searches wait for an index still being built (see the top of the file). */
  configure(options: CatalogSearchOptions): void {
    if (options.waitMaxSkills !== undefined) this.#waitMaxSkills = Math.max(0, options.waitMaxSkills);
    if (options.waitMs !== undefined) this.#waitMs = Math.max(0, options.waitMs);
    if (options.workers !== undefined) this.#workers = Math.max(0, Math.floor(options.workers));
    if (options.log !== undefined) this.#log = options.log;
    if (options.wordVectors === false && this.#indexOptions.wordVectors !== false) {
      this.#indexOptions = { wordVectors: false };
      if (this.index.size === 0) this.index = new SkillSearchIndex([], this.#indexOptions);
    }
  }

  /**
   * Keeps the index at `path` between runs: reads it now (before catching up with the catalog), and saves it a
   * moment after each change once the server is quiet. Call before the first `follow`.
   */
  persistTo(path: string): void {
    this.#persistPath = path;
    // A warm start: its index is searched the moment the server answers, so the data a first search reads (word
    // vectors, situation map, WordNet) are read now, before it answers, instead of by the first search after it.
    if (existsSync(path)) {
      this.index.prepare();
      this.#prepared = true;
    }
    this.#restoring = this.#restore(path).finally(() => {
      this.#restoring = undefined;
    });
  }

  /**
   * Resolves once the persisted index has been read (or discarded) and the catch-up that follows it has diffed the
   * catalog (a restored index is diffed against the whole snapshot once: a pass over every skill); at once without one.
   */
  async restored(): Promise<void> {
    if (this.#restoring !== undefined) await this.#restoring;
    // The first catch-up starts on the next turn of the event loop (the server follows its snapshot then): let it
    // take its diff, which runs without yielding until it has the changed skills.
    await new Promise((resolve) => setImmediate(resolve));
    await this.#diffed;
  }

  async #restore(path: string): Promise<void> {
    try {
      const loaded = await loadIndex(path, this.#indexOptions);
      if (loaded === undefined || this.#closed) return;
      this.index = loaded.index;
      this.index.prepare();
      this.#indexed.clear();
      for (const [uri, digest] of loaded.versions) if (digest !== '') this.#indexed.set(uri, digest);
      this.#epoch++;
      this.#savedEpoch = this.#epoch;
      this.#restored = { skills: loaded.index.size };
    } catch (error) {
      // Never half-used: the build starts from nothing and the file is written again once it is done.
      this.#restored = { discarded: (error as Error).message };
    }
  }

  /** Builds in the background only when the server has been quiet for `idleMs` (until the first search). */
  pace(pace: Pace, idleMs = DEFAULT_IDLE_MS): void {
    this.#pace = pace;
    this.#idleMs = Math.max(0, idleMs);
  }

  /** Makes `snapshot` (or the catalog snapshot it is a view of) the one to follow, when it is newer; starts catching up. */
  follow(snapshot: CatalogSnapshot): void {
    const base = baseOf(snapshot);
    if (this.#closed || base === this.#target) return;
    if (this.#target !== undefined && base.generation < this.#target.generation) return;
    this.#target = base;
    this.#running ??= this.#catchUp().finally(() => {
      this.#running = undefined;
    });
  }

  /**
   * Stops following (a closing server): the background work ends at its next slice. An index holding what no save
   * has is saved on the way out: a save waits for quiet, and a replica busy until it is stopped (a rolling deploy)
   * would otherwise never save one, so its restart would build the whole index again instead of restoring it. A
   * partial index is saved too: each skill is kept with its package digest, and the next start indexes the rest.
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#saveTimer);
    this.#wake?.();
    await this.#endPool();
    const path = this.#persistPath;
    if (path === undefined) return;
    // Never over the last run's index before it has been read, nor while another save writes the same file.
    if (this.#restoring !== undefined) await this.#restoring;
    while (this.#saving) await new Promise((resolve) => setTimeout(resolve, 5));
    if (this.#savedEpoch === this.#epoch || this.index.size === 0) return;
    this.#saving = true;
    try {
      await saveIndex(path, this.index, (uri) => this.#indexed.get(uri) ?? '');
      this.#saves++;
    } catch {
      // A save that fails costs the next start its head start, nothing more.
    } finally {
      this.#saving = false;
    }
  }

  /**
   * Saves the index (persistTo) SAVE_DELAY_MS after it last changed, once the server is quiet and the index has
   * caught up: a save writes the whole index (compacted first), so it waits for a burst of changes to end.
   */
  #saveSoon(): void {
    if (this.#persistPath === undefined || this.#closed) return;
    clearTimeout(this.#saveTimer);
    this.#saveTimer = setTimeout(() => void this.#save(), SAVE_DELAY_MS);
    this.#saveTimer.unref();
  }

  async #save(): Promise<void> {
    const path = this.#persistPath;
    if (path === undefined || this.#closed || this.#saving) return;
    const idle = this.#pace?.idleFor() ?? Number.POSITIVE_INFINITY;
    if (idle < this.#idleMs || !this.ready) {
      this.#saveSoon();
      return;
    }
    if (this.#savedEpoch === this.#epoch) return;
    this.#saving = true;
    const epoch = this.#epoch;
    try {
      await saveIndex(path, this.index, (uri) => this.#indexed.get(uri) ?? '');
      this.#savedEpoch = epoch;
      this.#saves++;
      this.#saveError = undefined;
    } catch (error) {
      // A save that fails costs the next start its head start, nothing more.
      this.#saveError = (error as Error).message;
    } finally {
      this.#saving = false;
    }
    if (this.#savedEpoch !== this.#epoch) this.#saveSoon();
  }

  /** Whether the index holds the followed snapshot entirely. */
  get ready(): boolean {
    return this.#target !== undefined && this.#caughtUp === this.#target;
  }

  state(): SearchState {
    return {
      indexed: this.index.size,
      total: this.#target?.size ?? 0,
      ready: this.ready,
      eager: this.#eager,
      deferred: this.#deferred,
      diffs: { ...this.#diffs },
      compactions: this.#compactions,
      restored: this.#restored,
      analysedInWorkers: this.#analysedInWorkers,
      prepared: this.#prepared,
      saves: this.#saves,
      ...(this.#saveError !== undefined ? { saveError: this.#saveError } : {}),
    };
  }

  /** Ranked hits for `query` among the skills of `snapshot` (the catalog's, or a principal's view of it). */
  async search(snapshot: CatalogSnapshot, query: string, limit: number): Promise<SearchAnswer> {
    // Someone searches: from now on the index is built and kept up to date without waiting for quiet.
    this.#eager = true;
    this.#wake?.();
    this.follow(snapshot);
    if (this.#restoring !== undefined) await this.#restoring;
    // A small pending change is waited for; so is the whole index of a catalog up to waitMaxSkills, for a while.
    if (this.#running !== undefined && this.#pending <= WAIT_FOR_CHANGES) await this.#running;
    else if (this.#running !== undefined && baseOf(snapshot).size <= this.#waitMaxSkills) await this.#untilReady(this.#waitMs);
    const base = baseOf(snapshot);
    let hits: SearchHit[];
    let searched: number;
    const started = performance.now();
    if (snapshot === base && base === this.#target) {
      // The followed catalog itself: the whole index (while catching up it may still hold an older version of a
      // changed skill; its URI is listed, and the hit is answered with the listed skill).
      hits = this.index.search(query, limit);
      searched = this.index.size;
    } else {
      const { view, searched: count } = this.#viewOf(snapshot);
      hits = this.index.search(query, limit, view);
      searched = count;
    }
    if (this.#running !== undefined) this.#owed += performance.now() - started;
    const privates = (snapshot as { privates?: readonly CatalogSkill[] }).privates;
    if (privates !== undefined && privates.length > 0) {
      hits = await this.#withPrivate(hits, privates, query, limit);
      searched += privates.length;
    }
    hits = hits.filter((hit) => snapshot.skill(hit.id) !== undefined);
    const complete = snapshot === base && base === this.#target ? this.ready : searched === snapshot.size;
    const answer: SearchAnswer = { hits, complete, searched, total: snapshot.size };
    if (!complete) answer.retryAfterSeconds = this.#secondsLeft(Math.max(0, snapshot.size - searched));
    return answer;
  }

  /**
   * The hits of a view holding private skills (versions pending review, for their publisher and reviewers): those
   * skills are searched in an index of their own, never the shared one (whose statistics every other caller's
   * ranking depends on), among this view's private skills alone, and ranked with the shared index's hits by score.
   */
  async #withPrivate(hits: SearchHit[], privates: readonly CatalogSkill[], query: string, limit: number): Promise<SearchHit[]> {
    let own = this.#private;
    if (own === undefined || own.indexed.size > PRIVATE_KEPT) {
      own = { index: new SkillSearchIndex([], this.#indexOptions), indexed: new Map() };
      this.#private = own;
    }
    for (const skill of privates) {
      if (own.indexed.get(skill.uri) === skill.packageDigest) continue;
      own.index.add({ id: skill.uri, name: skill.name, description: skill.description, headings: skill.headings, ...(await readTexts(skill, this.content)) });
      own.indexed.set(skill.uri, skill.packageDigest);
    }
    const found = own.index.search(query, limit, own.index.view(privates.map((skill) => skill.uri)));
    if (found.length === 0) return hits;
    return [...hits, ...found].sort((a, b) => b.score - a.score).slice(0, Math.max(limit, 0));
  }

  /** Waits until the index holds the followed snapshot, the search closes, or `ms` have passed. */
  async #untilReady(ms: number): Promise<void> {
    const until = performance.now() + ms;
    let timer: NodeJS.Timeout | undefined;
    try {
      while (!this.ready && !this.#closed && this.#running !== undefined) {
        const left = until - performance.now();
        if (left <= 0) return;
        await Promise.race([this.#running, new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
        clearTimeout(timer);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** About how long indexing `left` more skills takes at the current build's pace (whole seconds, at least 1). */
  #secondsLeft(left: number): number {
    const elapsed = (performance.now() - this.#buildStarted) / 1000;
    const rate = this.#builtSince >= 50 && elapsed >= 0.5 ? this.#builtSince / elapsed : ASSUMED_RATE;
    return Math.max(1, Math.ceil(left / rate));
  }

  /** The skills of `snapshot` whose indexed version is the one it lists, as a view (kept while the index is unchanged). */
  #viewOf(snapshot: CatalogSnapshot): { view: SearchView; searched: number } {
    const cached = this.#views.get(snapshot);
    if (cached !== undefined && cached.epoch === this.#epoch) return cached;
    const ids: string[] = [];
    for (const skill of snapshot.skills) if (this.#indexed.get(skill.uri) === skill.packageDigest) ids.push(skill.uri);
    const entry = { epoch: this.#epoch, view: this.index.view(ids), searched: ids.length };
    this.#views.set(snapshot, entry);
    return entry;
  }

  async #catchUp(): Promise<void> {
    this.#diffed = new Promise<void>((resolve) => (this.#diffDone = resolve));
    try {
      // Unknown until the diff: a search meanwhile must not take "nothing pending" for a small change.
      this.#pending = Number.MAX_SAFE_INTEGER;
      if (this.#restoring !== undefined) await this.#restoring;
      this.#buildStarted = performance.now();
      this.#builtSince = 0;
      await this.#indexChanges();
    } finally {
      this.#pending = 0;
      this.#diffDone?.();
    }
  }

  /**
   * Compacts the index once the server is quiet, searched or not (after a large batch, already compacted at its end,
   * this is the full garbage collection and the save): one synchronous pass over the postings (a fraction of a second
   * at 10,000 skills) that only memory depends on, so it waits for a quiet moment (nor does a search wait for it).
   */
  async #compactWhenQuiet(): Promise<void> {
    if (this.#compacting) return;
    this.#compacting = true;
    try {
      for (;;) {
        if (this.#closed) return;
        const idle = this.#pace?.idleFor() ?? Number.POSITIVE_INFINITY;
        if (idle >= this.#idleMs) break;
        await new Promise<void>((resolve) => setTimeout(resolve, Math.max(1, this.#idleMs - idle)).unref());
      }
      if (!(await this.#untilSaved())) return;
      if (this.index.compact()) this.#compactions++;
      // A large batch's garbage (the bodies it read, the recent rows just folded) given back now, not at V8's leisure.
      collectGarbage();
      this.#addedSinceCompact = 0;
      this.#saveSoon();
    } finally {
      this.#compacting = false;
    }
  }

  /** Waits until the server has been quiet for `idleMs`, a search asks for the index, or the search closes. */
  async #quiet(): Promise<void> {
    const pace = this.#pace;
    if (pace === undefined) return;
    for (;;) {
      if (this.#eager || this.#closed) return;
      const idle = pace.idleFor();
      if (idle >= this.#idleMs) return;
      this.#deferred++;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, this.#idleMs - idle));
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  /**
   * The skills that may differ between what the index holds and `target`: the URIs of the deltas on the way from
   * the snapshot the index last caught up with (walking `parent` back), or undefined when that way is not known
   * (a full build, a collected parent, a change touching much of the catalog): then the whole snapshot is diffed.
   */
  #touched(target: CatalogSnapshot): Set<string> | undefined {
    const from = this.#caughtUp;
    if (from === undefined) return undefined;
    const touched = new Set<string>();
    let at: CatalogSnapshot = target;
    for (let steps = 0; at !== from; steps++) {
      const delta = at.delta;
      const parent = at.parent?.deref();
      if (delta === undefined || parent === undefined || steps >= MAX_CHAIN) return undefined;
      for (const skill of delta.upsert) touched.add(skill.uri);
      for (const uri of delta.remove) touched.add(uri);
      if (touched.size > Math.max(WAIT_FOR_CHANGES, target.size * DELTA_SHARE)) return undefined;
      at = parent;
    }
    return touched;
  }

  /** A feed of analysed documents for `changed` from the worker threads, started if need be; undefined without workers. */
  #feed(changed: CatalogSkill[]): AnalysedFeed<CatalogSkill> | undefined {
    if (this.#workers === 0 || this.#closed) return undefined;
    try {
      this.#pool ??= new AnalysisPool(this.#workers);
    } catch (error) {
      this.#log(`search index: no worker threads (${(error as Error).message}); indexing on the main thread`);
      this.#workers = 0;
      return undefined;
    }
    return new AnalysedFeed(this.#pool, changed, (skill) => jobOf(skill, this.content));
  }

  async #endPool(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.close();
  }

  /** @internal The worker threads of the batch being indexed, if any (tests end one mid-build). */
  get workerThreads(): readonly Worker[] {
    return this.#pool?.workers ?? [];
  }

  /** Waits while a save writes the index out; false once the search is closed (its last save owns the index). */
  async #untilSaved(): Promise<boolean> {
    while (this.#saving && !this.#closed) await new Promise((resolve) => setTimeout(resolve, 5));
    return !this.#closed;
  }

  /** Diffs the index against the followed snapshot and applies the difference, again until it stops moving. */
  async #indexChanges(): Promise<void> {
    let sliceStart: number | undefined;
    let sliceMs = SLICE_MS;
    while (!this.#closed && this.#target !== undefined && this.#caughtUp !== this.#target) {
      const target = this.#target;
      const touched = this.#touched(target);
      const changed: CatalogSkill[] = [];
      const gone: string[] = [];
      if (touched !== undefined) {
        // One entry per skill the catalog says changed (ADR 0130's deltas), never a walk over the catalog.
        this.#diffs.delta++;
        for (const uri of touched) {
          const skill = target.listed(uri);
          if (skill === undefined) {
            if (this.#indexed.has(uri)) gone.push(uri);
          } else if (this.#indexed.get(uri) !== skill.packageDigest) changed.push(skill);
        }
      } else {
        this.#diffs.full++;
        for (const uri of this.#indexed.keys()) if (target.listed(uri) === undefined) gone.push(uri);
        for (const skill of target.skills) if (this.#indexed.get(skill.uri) !== skill.packageDigest) changed.push(skill);
      }
      this.#diffDone?.();
      // A save writes views of the index's arrays while it runs: nothing may change them until it is done.
      if (!(await this.#untilSaved())) return;
      for (const uri of gone) {
        this.index.remove(uri);
        this.#indexed.delete(uri);
        this.#epoch++;
      }
      this.#pending = changed.length;
      // A large batch (the first build): the index sizes its arrays for it once, not at every other merge.
      if (changed.length > WAIT_FOR_CHANGES) this.index.expect(changed.length);
      let interrupted = false;
      // A large batch (a first build) is read and analysed in worker threads; the main thread only inserts.
      let feed = changed.length >= MIN_POOLED ? this.#feed(changed) : undefined;
      for (let at = 0; at < changed.length; at++) {
        const skill = changed[at]!;
        if (sliceStart === undefined) {
          await this.#quiet();
          sliceStart = performance.now();
          sliceMs = SLICE_MS + Math.min(this.#owed, MAX_SEARCH_SHARE_MS);
          this.#owed = 0;
        }
        if (this.#closed) return;
        if (this.#target !== target) {
          interrupted = true; // a newer snapshot: diff again against it
          break;
        }
        let analysed: { document: AnalysedDocument; terms: AnalysedTerms } | undefined;
        let texts: { body: string; references: string[] } | undefined;
        if (feed !== undefined) {
          try {
            analysed = await feed.take(at);
          } catch (error) {
            if (this.#closed) return;
            // Nothing is lost: this skill and the rest of the batch are indexed here, as without workers.
            this.#log(`search index: the worker threads failed (${(error as Error).message}); indexing on the main thread`);
            this.#workers = 0;
            void this.#endPool();
            feed = undefined;
          }
        }
        if (analysed === undefined) texts = await readTexts(skill, this.content);
        // The reads yielded: the server may have closed (and begun its last save) or a save begun meanwhile.
        if (!(await this.#untilSaved())) return;
        if (this.#target !== target) {
          interrupted = true;
          break;
        }
        const source = { id: skill.uri, name: skill.name, description: skill.description };
        if (analysed !== undefined) {
          this.index.insert(source, analysed.document, analysed.terms);
          this.#analysedInWorkers++;
        } else this.index.add({ ...source, headings: skill.headings, ...texts! });
        this.#indexed.set(skill.uri, skill.packageDigest);
        this.#addedSinceCompact++;
        this.#epoch++;
        this.#pending--;
        this.#builtSince++;
        if (performance.now() - sliceStart >= sliceMs) {
          await yieldToEventLoop();
          sliceStart = undefined;
        }
      }
      if (!interrupted && this.#target === target) {
        // After a large batch (the first build), the compact form: recent postings take about twice the memory of
        // compact ones (two 32-bit values a row against one). Folded before the index says it is complete, not when
        // the server is next quiet: the load that follows a build ran beside them (~120 MB at 100,000 skills).
        const large = this.#addedSinceCompact >= Math.max(WAIT_FOR_CHANGES, this.index.size / 8);
        if (large) {
          if (!(await this.#untilSaved())) return;
          if (this.#target !== target) continue;
          if (this.index.compact()) this.#compactions++;
          // Counted from here: else every change until the next quiet moment would be a large batch and compact the
          // whole index again before it is searchable (~1 s at 100,000 skills).
          this.#addedSinceCompact = 0;
        }
        this.#caughtUp = target;
        // The workers' term tables hold the batch's whole vocabulary: ended with it, started again for the next one.
        void this.#endPool();
        // The garbage collection and the save after a large batch still wait for a quiet moment (#compactWhenQuiet).
        if (large) void this.#compactWhenQuiet();
        else this.#saveSoon();
      }
    }
  }
}

/** The catalog snapshot a view was filtered from (a view carries it as `base`), or the snapshot itself. */
function baseOf(snapshot: CatalogSnapshot): CatalogSnapshot {
  return (snapshot as { base?: CatalogSnapshot }).base ?? snapshot;
}

const searches = new WeakMap<ContentReader, CatalogSearch>();

/** The search of the server a service belongs to (services of one server share their content reader). */
export function catalogSearch(service: SkillsService): CatalogSearch {
  const content = service.options.content;
  let search = searches.get(content);
  if (search === undefined) {
    search = new CatalogSearch(content);
    searches.set(content, search);
  }
  return search;
}

/** Ranked hits for `query` in the snapshot a request holds (see CatalogSearch). */
export function searchSkills(service: SkillsService, snapshot: CatalogSnapshot, query: string, limit: number): Promise<SearchAnswer> {
  return catalogSearch(service).search(snapshot, query, limit);
}

/** The files search reads of a skill: its SKILL.md, and its reference files (`referenceFiles`) up to MAX_REFERENCE_BYTES each. */
function searchedFiles(skill: CatalogSkill): { manifest: CatalogFile | undefined; references: CatalogFile[] } {
  const byPath = new Map(skill.files.map((file) => [file.path, file]));
  const references = referenceFiles(byPath.keys())
    .map((path) => byPath.get(path)!)
    .filter((file) => file.size <= MAX_REFERENCE_BYTES);
  return { manifest: skill.files.find((file) => file.uri === skill.uri), references };
}

/** The body and reference texts of a skill, read through the content reader (verified, without filling its cache). */
async function readTexts(skill: CatalogSkill, content: ContentReader): Promise<{ body: string; references: string[] }> {
  const { manifest, references } = searchedFiles(skill);
  const read = (file: CatalogFile) => content.read(file, skill.origin, false);
  return { body: await bodyText(manifest, read), references: await referenceTexts(references, read) };
}

/**
 * What a worker needs to index a skill: a folder's files by path (the worker reads and verifies them); a stored
 * origin's blobs are read here (their store is the main thread's), so its texts are sent instead.
 */
async function jobOf(skill: CatalogSkill, content: ContentReader): Promise<SkillJob> {
  const job: SkillJob = { name: skill.name, description: skill.description, headings: skill.headings, references: [] };
  const origin = skill.origin;
  if (origin.kind !== 'folder') return { ...job, texts: await readTexts(skill, content) };
  const { manifest, references } = searchedFiles(skill);
  const file = (file: CatalogFile): FileJob => ({ source: fileSource(origin, file), size: file.size, digest: file.digest });
  return { ...job, ...(manifest !== undefined ? { manifest: file(manifest) } : {}), references: references.map(file) };
}
