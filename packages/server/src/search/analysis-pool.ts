import { Worker } from 'node:worker_threads';
import { AnalysedTerms } from '@skillport/search';
import type { AnalysedDocument } from '@skillport/search';
import type { AnalyseReply, AnalyseRequest, SkillJob } from './index-worker.js';

/** One batch's analysed documents, in the order asked, and the table their term ids are of. */
export interface AnalysedBatch {
  documents: AnalysedDocument[];
  terms: AnalysedTerms;
}

interface Lane {
  worker: Worker;
  terms: AnalysedTerms;
  waiting: Map<number, { resolve: (batch: AnalysedBatch) => void; reject: (error: Error) => void }>;
}

/**
 * Worker threads that analyse skills for the search index (./index-worker.ts), each with its own term table that the
 * main thread mirrors (an AnalysedTerms per worker, learnt from every reply as it arrives, in order, whether or not
 * its documents are still wanted). Batches go to the workers in turn. A worker that fails (an error, an exit) fails
 * every batch it held and every later one: the caller goes on without the pool.
 */
export class AnalysisPool {
  readonly #lanes: Lane[] = [];
  #next = 0;
  #seq = 0;
  #failed: Error | undefined;
  #closed = false;

  constructor(size: number) {
    for (let at = 0; at < Math.max(1, size); at++) this.#lanes.push(this.#start());
  }

  /** Why the pool stopped working, once it has (then every batch fails). */
  get failed(): Error | undefined {
    return this.#failed;
  }

  /** @internal The threads (tests end one to check that the index is built anyway). */
  get workers(): readonly Worker[] {
    return this.#lanes.map((lane) => lane.worker);
  }

  /** The analysed documents of `skills`, in their order. The promise is handled already: awaiting it is optional. */
  analyse(skills: SkillJob[]): Promise<AnalysedBatch> {
    if (this.#failed !== undefined) return handled(Promise.reject(this.#failed));
    const lane = this.#lanes[this.#next++ % this.#lanes.length]!;
    const seq = this.#seq++;
    const batch = new Promise<AnalysedBatch>((resolve, reject) => lane.waiting.set(seq, { resolve, reject }));
    lane.worker.ref();
    lane.worker.postMessage({ seq, skills } satisfies AnalyseRequest);
    return handled(batch);
  }

  /** Ends the workers; batches still waiting fail. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#fail(new Error('the search index workers were closed'));
    // Held open until every worker has gone: a worker's exit alone (one started unreferenced) did not keep the
    // event loop alive until it was told, so a process ending here ended with the close unsettled.
    const alive = setInterval(() => undefined, 60_000);
    try {
      await Promise.all(this.#lanes.map((lane) => lane.worker.terminate().catch(() => undefined)));
    } finally {
      clearInterval(alive);
    }
  }

  #start(): Lane {
    // A small young generation keeps the analysis's garbage (words cut from bodies) from inflating memory.
    const worker = new Worker(new URL('./index-worker.js', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    worker.unref();
    const lane: Lane = { worker, terms: new AnalysedTerms(), waiting: new Map() };
    worker.on('message', (reply: AnalyseReply) => {
      const waiting = lane.waiting.get(reply.seq);
      lane.waiting.delete(reply.seq);
      if (lane.waiting.size === 0) worker.unref();
      if ('error' in reply) {
        this.#fail(new Error(`a search index worker failed: ${reply.error}`));
        return;
      }
      // Learnt even when nobody waits any more: the worker's later batches number their terms on from these.
      lane.terms.learn(reply.terms);
      waiting?.resolve({ documents: reply.documents, terms: lane.terms });
    });
    worker.on('error', (error) => this.#fail(new Error(`a search index worker failed: ${error.message}`)));
    worker.on('exit', (code) => this.#fail(new Error(`a search index worker exited (code ${code})`)));
    return lane;
  }

  #fail(error: Error): void {
    this.#failed ??= error;
    for (const lane of this.#lanes) {
      for (const { reject } of lane.waiting.values()) reject(this.#failed);
      lane.waiting.clear();
      lane.worker.unref();
    }
  }
}

function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** Skills a worker analyses per batch: a message's cost spread over many, yet a batch is short work to wait for. */
const BATCH = 32;
/** Batches in flight per worker: the next ones read while one is analysed, and the documents held stay bounded. */
const AHEAD = 2;

/**
 * The analysed documents of `items`, taken in order (`take(0)`, `take(1)`, …): batches are sent ahead, at most
 * AHEAD per worker beyond the one being taken, so the documents held in flight stay bounded however long the list.
 */
export class AnalysedFeed<T> {
  readonly #batches: Array<Promise<AnalysedBatch> | undefined> = [];
  readonly #ahead: number;

  constructor(
    readonly pool: AnalysisPool,
    readonly items: readonly T[],
    readonly job: (item: T) => SkillJob | Promise<SkillJob>,
  ) {
    this.#ahead = AHEAD * pool.workers.length;
  }

  /** The analysed document of `items[at]` (taken in order), and the term table its ids are of. */
  async take(at: number): Promise<{ document: AnalysedDocument; terms: AnalysedTerms }> {
    const batch = Math.floor(at / BATCH);
    if (batch > 0) this.#batches[batch - 1] = undefined;
    for (let next = batch; next <= batch + this.#ahead && next * BATCH < this.items.length; next++) this.#batches[next] ??= handled(this.#send(next));
    const { documents, terms } = await this.#batches[batch]!;
    return { document: documents[at - batch * BATCH]!, terms };
  }

  async #send(batch: number): Promise<AnalysedBatch> {
    const jobs = await Promise.all(this.items.slice(batch * BATCH, (batch + 1) * BATCH).map(this.job));
    return this.pool.analyse(jobs);
  }
}
