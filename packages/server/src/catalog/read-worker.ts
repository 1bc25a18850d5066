import { isUtf8 } from 'node:buffer';
import { parentPort, workerData } from 'node:worker_threads';
import { readKnownFileSync, sha256Digest } from '@skillport/core';
import { jsonString } from './json-string.js';
import type { ReadAsked, ReadDone } from './read-thread.js';

/**
 * A first read of small skill files, whole, off the main thread (read-thread.ts): open, read and close (synchronous
 * here, where it holds up no request), the digest check, the text check and the JSON string, one message back per
 * batch. The bytes and JSON strings are made in ArrayBuffers of their own and transferred as they are: a copy made
 * to transfer left the first buffer behind as garbage, which this small heap collected only after megabytes of it.
 */
const hold = (workerData as { hold?: Int32Array } | null)?.hold;
parentPort!.on('message', ({ seq, files }: { seq: number; files: ReadAsked[] }) => {
  if (hold !== undefined) Atomics.wait(hold, 0, 1); // a test's slow file
  const done: ReadDone[] = [];
  const transfer: ArrayBuffer[] = [];
  for (const file of files) {
    let bytes: Buffer;
    try {
      bytes = readKnownFileSync(file.path, file.size, true);
    } catch {
      done.push({ ok: false });
      continue;
    }
    if (bytes.byteLength !== file.size || sha256Digest(bytes) !== file.digest) {
      done.push({ ok: false });
      continue;
    }
    const text = !bytes.includes(0) && isUtf8(bytes);
    // The file's ArrayBuffer holds one spare byte (the read that tells a grown file): the main thread takes a view.
    const own = bytes.buffer as ArrayBuffer;
    const json = text && file.json ? (jsonString(bytes, true).buffer as ArrayBuffer) : undefined;
    done.push(json === undefined ? { ok: true, bytes: own, text } : { ok: true, bytes: own, text, json });
    transfer.push(own);
    if (json !== undefined) transfer.push(json);
  }
  parentPort!.postMessage({ seq, done }, transfer);
});
