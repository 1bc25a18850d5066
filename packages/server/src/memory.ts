import { performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * One full garbage collection, for the moments after a large one-off job (the first scan, the background check of
 * a restored catalog) when megabytes of parser output and transfer copies have just become garbage: V8 would
 * otherwise keep that heap (and its resident pages) around for a long while. Never called on a request path.
 */
let gc: (() => void) | undefined;

export function collectGarbage(): void {
  try {
    if (gc === undefined) {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as () => void;
    }
    gc();
  } catch {
    // not available on this runtime: only memory is at stake
  }
}

/**
 * When to give memory back after a busy spell (the decision alone, so it is testable without a clock). V8 sizes its
 * heap for the peak of a load (the young generation grows to tens of MiB under many concurrent requests) and keeps
 * those pages resident long after the load has gone: a server that handled one burst stays at its peak RSS while
 * it waits for the next. Its own memory reducer only starts after a major collection, which a server that mostly
 * allocates short-lived answers rarely makes. So: a full collection once the process has been busy and then idle
 * for a few windows in a row (6 s by default), and only when the heap holds enough unused pages to be worth it.
 * Collections are spaced by their own cost (at most `maxShare` of the time), so a big heap (a 100,000-skill
 * catalog) is not collected every few seconds under bursty traffic. Once it has given back what it could, an
 * idle process is not collected again until it has been busy.
 *
 * Garbage outside V8's heap counts too: each socket read is a 64 KiB buffer allocated with malloc, and a refused
 * upload drained to its cap (http/body.ts) leaves megabytes of them behind a few hundred bytes of dead `Buffer`
 * objects. The heap looks empty, so neither its slack nor its growth asks for a collection, and V8 itself collects
 * for external memory only after it has grown by 64 MiB: after the soak's hostile cases RSS went 89, 103, 114 MiB
 * round after round while the live heap stayed at 23 MiB. V8's external memory (ArrayBuffers and what else native
 * code reports to it) grown since the last collection is a third measure of what may come back.
 */
export class IdlePolicy {
  /** Busy since the last collection: there is something to give back. */
  #dirty = false;
  /** Idle windows in a row. */
  #idle = 0;
  #lastAt = Number.NEGATIVE_INFINITY;
  #lastCostMs = 0;
  /** The heap's total size after the last collection: growth since then is what a collection may give back. */
  #baseTotal = 0;
  /** V8's external memory after the last collection: growth since then may be garbage too (see above). */
  #baseExternal = 0;
  /** Collections in a row that left the young generation big. */
  #retries = 0;

  constructor(
    /** A window whose event loop was busier than this (a fraction of its time) is a busy one. */
    readonly busyAbove = 0.02,
    /** A window less busy than this is an idle one. */
    readonly idleBelow = 0.01,
    /**
     * Collect only when this many bytes may come back: the heap's unused pages (total minus used) or its growth
     * since the last collection (used bytes include garbage until a collection finds it), whichever is larger, plus
     * the growth of external memory since then (buffers of dropped request bodies and socket reads). At most this:
     * a small heap asks for less (`slackShare`).
     */
    readonly minSlackBytes = 8 * 1024 * 1024,
    /** The share of time idle collections may take at most. */
    readonly maxShare = 0.02,
    /** Idle windows in a row before collecting: a pause between two requests is not the end of a spell. */
    readonly idleWindows = 3,
    /**
     * V8 gives the young generation's pages back in a collection only when it judges the allocation rate low, from
     * samples it takes at collections: one soon after a load may free the garbage and keep 32 MiB of empty young
     * generation. While it stays bigger than `minSlackBytes`, the next idle window collects again, this many times.
     */
    readonly retries = 4,
    /**
     * For a small heap, this share of its size is enough to collect (never under `minSlackFloor`): 8 MiB is a
     * quarter of the 30 MiB heap of a few thousand skills, and what stayed under it after the soak's hostile phase
     * (2-6 MiB of heap pages and garbage) was a third of the 10 % the phase may keep. A full collection of such a
     * heap takes 10-30 ms; a big heap (a 100,000-skill catalog) keeps the 8 MiB and its collections' spacing.
     */
    readonly slackShare = 1 / 8,
    readonly minSlackFloor = 2 * 1024 * 1024,
  ) {}

  /** What must be able to come back for a heap of `total` bytes to be collected. */
  slackNeeded(total: number): number {
    return Math.min(this.minSlackBytes, Math.max(this.minSlackFloor, total * this.slackShare));
  }

  /**
   * A window (2 s in `startIdleCollector`) has ended: `utilisation` is its event-loop utilisation (0..1), `heap`
   * V8's total and used bytes now and its external memory (bytes; 0 when unknown), `now` a monotonic time in ms.
   * True: collect now (then call `collected`).
   */
  windowEnded(utilisation: number, heap: { total: number; used: number; external?: number }, now: number): boolean {
    if (utilisation > this.busyAbove) {
      this.#dirty = true;
      this.#idle = 0;
      return false;
    }
    if (utilisation >= this.idleBelow) {
      this.#idle = 0;
      return false;
    }
    this.#idle++;
    if (!this.#dirty || this.#idle < this.idleWindows) return false;
    // Heap and external memory add up: 6 MiB of heap pages and 6 MiB of dead buffers are worth a collection.
    const inHeap = Math.max(heap.total - heap.used, heap.total - this.#baseTotal);
    const outside = Math.max(0, (heap.external ?? 0) - this.#baseExternal);
    if (inHeap + outside < this.slackNeeded(heap.total)) {
      this.#dirty = false; // nothing worth giving back from this spell
      return false;
    }
    return now - this.#lastAt >= this.#lastCostMs / this.maxShare;
  }

  /**
   * A collection was made at `now`, took `costMs`, and left the heap `total` bytes big, `young` of them the young
   * generation's (new space), and `external` bytes of external memory.
   */
  collected(now: number, costMs: number, total: number, young = 0, external = 0): void {
    this.#lastAt = now;
    this.#lastCostMs = costMs;
    this.#baseTotal = total;
    this.#baseExternal = external;
    if (young > this.minSlackBytes && this.#retries < this.retries) {
      this.#retries++;
      this.#idle = this.idleWindows - 1; // again at the next idle window
      return;
    }
    this.#retries = 0;
    this.#dirty = false;
  }
}

/** A few bytes allocated before an idle collection (see below). */
const scratch: { bytes?: unknown } = {};

/**
 * Runs the IdlePolicy every `windowMs` on this process's event-loop utilisation and heap, collecting garbage when
 * it says so. The timer never keeps the process alive; `stop()` ends it. `onCollect` hears each collection (the
 * heap's used and total bytes after it, and its cost), for a log line or a test.
 */
export function startIdleCollector(
  options: { windowMs?: number; policy?: IdlePolicy; onCollect?: (after: { heapUsed: number; heapTotal: number; ms: number }) => void } = {},
): { stop(): void } {
  const policy = options.policy ?? new IdlePolicy();
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const window = performance.eventLoopUtilization(now, last);
    last = now;
    const heap = getHeapStatistics();
    const external = heap.external_memory;
    if (!policy.windowEnded(window.utilization, { total: heap.total_heap_size, used: heap.used_heap_size, external }, performance.now())) return;
    const started = performance.now();
    // V8 shrinks the young generation only when the allocation rate it measures between collections is low but not
    // zero: an idle process that allocated nothing since the last collection would keep it for ever. A few bytes
    // make the rate measurable.
    scratch.bytes = new Array(64).fill(0);
    collectGarbage();
    scratch.bytes = undefined;
    const ms = performance.now() - started;
    const after = getHeapStatistics();
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
    policy.collected(performance.now(), ms, after.total_heap_size, young, after.external_memory);
    // The collection itself made this window look busy: measure the next one from here.
    last = performance.eventLoopUtilization();
    options.onCollect?.({ heapUsed: after.used_heap_size, heapTotal: after.total_heap_size, ms });
  }, options.windowMs ?? 2000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * `bytes` in an allocation of their own when they are a small view of a larger one: a cache that counts a view's
 * length but keeps it would hold the whole allocation behind it (a 200-byte file read into Node's shared 8 KiB
 * buffer pool keeps the 8 KiB; a file cut from a decompressed archive keeps the archive). Views that use most of
 * their allocation are kept as they are.
 */
export function ownBytes(bytes: Buffer): Buffer {
  if (bytes.buffer.byteLength <= bytes.byteLength * 2 && bytes.buffer.byteLength - bytes.byteLength < 4096) return bytes;
  const copy = Buffer.allocUnsafeSlow(bytes.byteLength);
  bytes.copy(copy);
  return copy;
}
