import { Worker } from 'node:worker_threads';

/** One change to the worker's list of swept folders: a folder to sweep (with its last listing's fingerprint), or one to drop. */
export type SweepOp = { kind: 'add'; dir: string; print: number } | { kind: 'drop'; dir: string };
/** To the sweep worker: its pace (first), then list changes in the order the tree watcher made them. */
export type SweepRequest = { kind: 'pace'; sliceMs: number; intervalMs: number } | { kind: 'ops'; ops: SweepOp[] };
/** From it: a folder whose entries no longer match its fingerprint (the new one given), or a sweep cycle's length. */
export type SweepReply = { kind: 'changed'; dir: string; print: number } | { kind: 'cycle'; ms: number };

/**
 * The sweep of folders not watched (tree-watcher.ts), run on a worker thread (sweep-worker.ts): past the watch limit a
 * tree of 100,000 skills has ~100,000 folders to list and stat again and again, a tenth of the main thread for as
 * long as the server runs. The worker only lists and compares; what a changed folder means (folders to cover, the
 * rescan) is still decided by the tree watcher, which keeps its own list and sends every change to it here.
 */
export class RemoteSweep {
  readonly #worker: Worker;
  #ops: SweepOp[] = [];
  #flushing = false;
  #closed = false;

  /** `onLost`: the worker ended by itself (it cannot run here, or died): the caller sweeps on its own again. */
  constructor(
    pace: { sliceMs: number; intervalMs: number },
    onChanged: (dir: string, print: number) => void,
    onCycle: (ms: number) => void,
    onLost: () => void,
  ) {
    this.#worker = new Worker(new URL('./sweep-worker.js', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    this.#worker.unref();
    this.#worker.postMessage({ kind: 'pace', ...pace } satisfies SweepRequest);
    this.#worker.on('message', (reply: SweepReply) => {
      if (this.#closed) return;
      if (reply.kind === 'changed') onChanged(reply.dir, reply.print);
      else onCycle(reply.ms);
    });
    const lost = () => {
      if (this.#closed) return;
      this.#closed = true;
      onLost();
    };
    this.#worker.on('error', lost);
    this.#worker.on('exit', lost);
  }

  add(dir: string, print: number): void {
    this.#queue({ kind: 'add', dir, print });
  }

  drop(dir: string): void {
    this.#queue({ kind: 'drop', dir });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#ops = [];
    void this.#worker.terminate();
  }

  /** Changes are sent together once this turn's work is done: a walk sweeps folders by the thousand. */
  #queue(op: SweepOp): void {
    if (this.#closed) return;
    this.#ops.push(op);
    if (this.#flushing) return;
    this.#flushing = true;
    setImmediate(() => {
      this.#flushing = false;
      if (this.#closed || this.#ops.length === 0) return;
      const ops = this.#ops;
      this.#ops = [];
      this.#worker.postMessage({ kind: 'ops', ops } satisfies SweepRequest);
    });
  }
}
