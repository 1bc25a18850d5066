import { Worker } from 'node:worker_threads';

/** To the watch worker: open watches on `dirs` (answered by `armed`), or close them. */
export type WatchRequest = { kind: 'arm'; batch: number; dirs: string[] } | { kind: 'close'; dirs: string[] };
/** From it: a batch opened (with the folders it could not watch, and why), an event, a watch that failed. */
export type WatchReply =
  | { kind: 'armed'; batch: number; failed: [dir: string, code: string][] }
  | { kind: 'event'; dir: string; name: string | null }
  | { kind: 'error'; dir: string };

/** Folders sent to the worker at a time: its first watches are open while the main thread is still sending. */
const BATCH = 4096;

/**
 * Watches opened and held on a worker thread (watch-worker.ts), for the known folders of a restored catalog: the main
 * thread sends the folders and goes on restoring; `armed` says when every one sent is watched (a change after that
 * is heard), with the folders the kernel refused or that are gone. Events come back to `onEvent` as a watch of the
 * main thread would give them; `onError` when a watch fails later (its folder gone, an overflow).
 */
export class RemoteWatches {
  readonly #worker: Worker;
  /** Batches sent and not answered yet: their folders, and who waits for the answer. */
  readonly #waiting = new Map<number, { dirs: string[]; resolve: (failed: [string, string][]) => void }>();
  #batches = 0;
  #closed = false;

  /**
   * `onLost`: the worker ended by itself (it cannot run here, or died): the folders it watched are watched no more,
   * and the caller must cover them again. Batches not answered by then resolve as wholly failed.
   */
  constructor(onEvent: (dir: string, name: string | undefined) => void, onError: (dir: string) => void, onLost: () => void) {
    this.#worker = new Worker(new URL('./watch-worker.js', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    this.#worker.on('message', (reply: WatchReply) => {
      if (this.#closed) return;
      if (reply.kind === 'event') onEvent(reply.dir, reply.name ?? undefined);
      else if (reply.kind === 'error') onError(reply.dir);
      else {
        this.#waiting.get(reply.batch)?.resolve(reply.failed);
        this.#waiting.delete(reply.batch);
      }
    });
    const lost = () => {
      if (this.#closed) return;
      this.#closed = true;
      this.#failWaiting('worker');
      onLost();
    };
    this.#worker.on('error', lost);
    this.#worker.on('exit', lost);
  }

  /** Watches `dirs` on the worker; resolves with those it could not watch (folder, error code) once all are open. */
  arm(dirs: readonly string[]): Promise<[string, string][]> {
    const batches: Promise<[string, string][]>[] = [];
    for (let at = 0; at < dirs.length; at += BATCH) {
      const slice = dirs.slice(at, at + BATCH);
      if (this.#closed) {
        batches.push(Promise.resolve(slice.map((dir): [string, string] => [dir, 'closed'])));
        continue;
      }
      const batch = this.#batches++;
      batches.push(new Promise((resolve) => this.#waiting.set(batch, { dirs: slice, resolve })));
      this.#worker.postMessage({ kind: 'arm', batch, dirs: slice } satisfies WatchRequest);
    }
    return Promise.all(batches).then((failed) => failed.flat());
  }

  /** Closes the worker's watch on `dir`. */
  closeWatch(dir: string): void {
    if (!this.#closed) this.#worker.postMessage({ kind: 'close', dirs: [dir] } satisfies WatchRequest);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    void this.#worker.terminate();
    this.#failWaiting('closed');
  }

  #failWaiting(code: string): void {
    for (const { dirs, resolve } of this.#waiting.values()) resolve(dirs.map((dir) => [dir, code]));
    this.#waiting.clear();
  }
}
