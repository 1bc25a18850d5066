import { Worker } from 'node:worker_threads';

/** A file the read thread is asked for: where, its published size and digest, and whether to make its JSON string. */
export interface ReadAsked {
  path: string;
  size: number;
  digest: string;
  json: boolean;
}

/** The thread's answer for one file: not its published bytes (gone, changed, unreadable), or them in `buffer`. */
export type ReadDone = { ok: false } | { ok: true; bytes: ArrayBuffer; text: boolean; json?: ArrayBuffer };

/** A file's verified bytes as the thread read them, with what they are served as (the JSON string, when text). */
export interface ThreadRead {
  bytes: Buffer;
  text: boolean;
  json?: Buffer;
}

interface Waiting {
  asked: ReadAsked;
  resolve: (read: ThreadRead | undefined) => void;
  reject: (error: Error) => void;
}

/**
 * Files asked of the thread and not answered yet, and their bytes: past either, a read is made in the thread pool as
 * before the thread (`ready()` says no). The thread reads one batch after another, synchronously: a slow file (a
 * stalled disk, a network mount) holds up the reads queued behind it, and only up to these.
 */
const MAX_PENDING_FILES = 64;
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

/** Tests only: while `hold[0]` is 1 the thread waits before each batch, as behind a slow file. */
export const readThreadTesting: { hold?: Int32Array | undefined } = {};

/** The thread could not answer (it stopped, or was closed): the caller reads the file itself. */
export class ReadThreadGone extends Error {
  override name = 'ReadThreadGone';
}

/**
 * First reads of small folder files in one hand-off (read-worker.ts): on the main thread a first read cost three
 * thread-pool round trips (open, read, close), the digest and the JSON string; here it costs a share of one message
 * each way, the misses of one turn of the event loop going together. Started at the first read that asks for it;
 * until it is online (and if it ever stops) `ready()` says no and the caller reads as before.
 */
export class ReadThread {
  #worker: Worker | undefined;
  #online = false;
  #stopped = false;
  #queue: Waiting[] = [];
  #flush: NodeJS.Immediate | undefined;
  #sent = new Map<number, Waiting[]>();
  #seq = 0;
  #pendingFiles = 0;
  #pendingBytes = 0;

  /** Whether a read given now goes to the thread (running, and not too far behind); the first call starts it. */
  ready(): boolean {
    if (this.#online) return this.#pendingFiles < MAX_PENDING_FILES && this.#pendingBytes < MAX_PENDING_BYTES;
    if (this.#worker === undefined && !this.#stopped) this.#start();
    return false;
  }

  /** The file's verified bytes, or undefined when they are not its published ones. Rejects with ReadThreadGone. */
  read(asked: ReadAsked): Promise<ThreadRead | undefined> {
    return new Promise((resolve, reject) => {
      if (!this.#online) return reject(new ReadThreadGone('the read thread is not running'));
      this.#pendingFiles++;
      this.#pendingBytes += asked.size;
      this.#queue.push({ asked, resolve, reject });
      this.#flush ??= setImmediate(() => this.#send());
    });
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#stop();
    await worker?.terminate();
  }

  #send(): void {
    this.#flush = undefined;
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0 || this.#worker === undefined) {
      this.#fail(batch);
      return;
    }
    const seq = ++this.#seq;
    // Reads in flight hold the process as the thread pool's would; an idle thread does not.
    if (this.#sent.size === 0) this.#worker.ref();
    this.#sent.set(seq, batch);
    this.#worker.postMessage({ seq, files: batch.map((waiting) => waiting.asked) });
  }

  #start(): void {
    let worker: Worker;
    try {
      worker = new Worker(new URL('./read-worker.js', import.meta.url), {
        resourceLimits: { maxYoungGenerationSizeMb: 4 },
        ...(readThreadTesting.hold ? { workerData: { hold: readThreadTesting.hold } } : {}),
      });
    } catch {
      this.#stopped = true;
      return;
    }
    worker.once('online', () => {
      if (this.#worker === worker) this.#online = true;
    });
    worker.on('message', ({ seq, done }: { seq: number; done: ReadDone[] }) => {
      const batch = this.#sent.get(seq);
      if (batch === undefined) return;
      this.#sent.delete(seq);
      if (this.#sent.size === 0) worker.unref();
      for (let i = 0; i < batch.length; i++) {
        this.#answered(batch[i]!);
        const answer = done[i];
        if (answer === undefined || !answer.ok) {
          batch[i]!.resolve(undefined);
          continue;
        }
        // The file's bytes: its buffer holds one byte more (read-worker.ts).
        const bytes = Buffer.from(answer.bytes, 0, batch[i]!.asked.size);
        batch[i]!.resolve(answer.json === undefined ? { bytes, text: answer.text } : { bytes, text: answer.text, json: Buffer.from(answer.json) });
      }
    });
    worker.once('error', () => this.#stop());
    worker.once('exit', () => this.#stop());
    // Idle, never what keeps a process alive; after the listeners, which would hold it again.
    worker.unref();
    this.#worker = worker;
  }

  /** No more reads through the thread: those waiting are given back to their callers. */
  #stop(): void {
    this.#stopped = true;
    this.#online = false;
    this.#worker = undefined;
    if (this.#flush !== undefined) clearImmediate(this.#flush);
    this.#flush = undefined;
    const waiting = [...this.#sent.values()].flat().concat(this.#queue);
    this.#sent.clear();
    this.#queue = [];
    this.#fail(waiting);
  }

  #fail(waiting: Waiting[]): void {
    for (const one of waiting) {
      this.#answered(one);
      one.reject(new ReadThreadGone('the read thread stopped'));
    }
  }

  #answered(waiting: Waiting): void {
    this.#pendingFiles--;
    this.#pendingBytes -= waiting.asked.size;
  }
}
