import { createHash } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { Hash } from 'node:crypto';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * Writes a large JSON document in pieces to a temporary file and renames it into place: no single string of the
 * whole document is ever built (it would double peak memory for a big catalog), and readers see the old file or
 * the new one, never half of one.
 *
 * The document is followed by a last line holding the sha256 of everything before it, which `readCheckedFile`
 * verifies: a torn file, or one whose bytes changed on disk (even into other well-formed JSON: one changed digest
 * in a cache would be trusted and served), is then ignored instead of believed.
 */
export class ChunkedFileWriter {
  #hash: Hash = createHash('sha256');
  #fd: number;
  #temp: string;
  #parts: string[] = [];
  #pending = 0;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.#temp = `${path}.${process.pid}.tmp`;
    this.#fd = openSync(this.#temp, 'w');
  }

  write(text: string): void {
    this.#parts.push(text);
    this.#pending += text.length;
    if (this.#pending >= 1 << 20) this.#flush();
  }

  commit(): void {
    this.#flush();
    writeSync(this.#fd, `\n${CHECKSUM_MARK}${this.#hash.digest('hex')}\n`);
    closeSync(this.#fd);
    renameSync(this.#temp, this.path);
  }

  abandon(): void {
    try {
      closeSync(this.#fd);
    } catch {
      // already closed
    }
    rmSync(this.#temp, { force: true });
  }

  #flush(): void {
    if (this.#parts.length === 0) return;
    const bytes = Buffer.from(this.#parts.join(''), 'utf8');
    this.#hash.update(bytes);
    writeSync(this.#fd, bytes);
    this.#parts = [];
    this.#pending = 0;
  }
}

const CHECKSUM_MARK = 'sha256:';
/** The trailer: a newline, `sha256:`, 64 hex digits, a newline. */
const TRAILER_BYTES = 1 + CHECKSUM_MARK.length + 64 + 1;

/**
 * The document a ChunkedFileWriter wrote, or undefined when the file is missing, has no checksum line, or its bytes
 * do not match it (torn, damaged, or written by something else).
 */
export function readCheckedFile(path: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  if (bytes.byteLength < TRAILER_BYTES) return undefined;
  const body = bytes.subarray(0, bytes.byteLength - TRAILER_BYTES);
  const trailer = bytes.subarray(bytes.byteLength - TRAILER_BYTES).toString('latin1');
  if (trailer !== `\n${CHECKSUM_MARK}${createHash('sha256').update(body).digest('hex')}\n`) return undefined;
  return body.toString('utf8');
}

/** Bytes read at a time by `readCheckedLines`. */
const LINE_CHUNK = 4 * 1024 * 1024;

/**
 * The lines of a document a ChunkedFileWriter wrote, checked like `readCheckedFile` but without ever holding the
 * whole file (a 100,000-skill catalog is ~190 MB: as one buffer, one string and one parse tree it took gigabytes):
 * the file is hashed in chunks first, then its lines are handed out one at a time. Undefined when the file is
 * missing, has no checksum line, or its bytes do not match it. The file must not change between the two passes (it is
 * only ever replaced by a rename, which leaves the opened file as it was).
 */
export function readCheckedLines(path: string): Iterable<string> | undefined {
  const file = openChecksummed(path);
  if (file === undefined) return undefined;
  let fd = file.fd;
  try {
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(LINE_CHUNK);
    for (let at = 0; at < file.bodyBytes; ) {
      const read = readSync(fd, chunk, 0, Math.min(LINE_CHUNK, file.bodyBytes - at), at);
      if (read === 0) return undefined;
      hash.update(chunk.subarray(0, read));
      at += read;
    }
    if (hash.digest('hex') !== file.expected) return undefined;
    fd = -1; // handed to the iterator, which closes it
    return lines(file.fd, file.bodyBytes, chunk);
  } catch {
    return undefined;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/**
 * `readCheckedLines` without the checksum pass first: the lines are handed out at once while a worker thread hashes
 * the same bytes (through the same opened file, so a file renamed over it meanwhile is not what is hashed), and
 * `verified` resolves true only when they match the checksum line. Nothing read may be believed before that: for a
 * file large enough that the pass costs more than a worker (a 100,000-skill catalog: 190 MB). Undefined when the file
 * is missing or has no checksum line.
 */
export function readLinesCheckedBeside(path: string): { lines: Iterable<string>; verified: Promise<boolean> } | undefined {
  const file = openChecksummed(path);
  if (file === undefined) return undefined;
  const { fd, bodyBytes, expected } = file;
  try {
    // Closed once both the reader and the hash are done with it (either may finish first, or stop early).
    let users = 2;
    const release = () => {
      if (--users === 0) closeSync(fd);
    };
    const verified = new Promise<boolean>((resolve) => {
      const worker = new Worker(HASH_FILE_WORKER, { eval: true, workerData: { fd, length: bodyBytes, chunk: LINE_CHUNK } });
      worker.once('message', (digest: string) => resolve(digest === expected));
      worker.once('error', () => resolve(false));
      worker.once('exit', () => resolve(false)); // after a message this changes nothing
    })
      .catch(() => false) // no worker to be had: not verified, so not believed
      .finally(release);
    return { lines: lines(fd, bodyBytes, Buffer.allocUnsafe(LINE_CHUNK), release), verified };
  } catch {
    closeSync(fd);
    return undefined;
  }
}

/** A file a ChunkedFileWriter wrote, opened, with the digest its checksum line names; undefined (closed) otherwise. */
function openChecksummed(path: string): { fd: number; bodyBytes: number; expected: string } | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    if (size < TRAILER_BYTES) throw new Error('too short');
    const bodyBytes = size - TRAILER_BYTES;
    const trailer = Buffer.alloc(TRAILER_BYTES);
    if (readSync(fd, trailer, 0, TRAILER_BYTES, bodyBytes) !== TRAILER_BYTES) throw new Error('cut short');
    const text = trailer.toString('latin1');
    if (!text.startsWith(`\n${CHECKSUM_MARK}`) || !text.endsWith('\n')) throw new Error('no checksum line');
    return { fd, bodyBytes, expected: text.slice(1 + CHECKSUM_MARK.length, -1) };
  } catch {
    closeSync(fd);
    return undefined;
  }
}

const HASH_FILE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readSync } = require('node:fs');
const { createHash } = require('node:crypto');
const { fd, length, chunk } = workerData;
const hash = createHash('sha256');
const buffer = Buffer.allocUnsafe(chunk);
for (let at = 0; at < length; ) {
  const read = readSync(fd, buffer, 0, Math.min(chunk, length - at), at);
  if (read === 0) throw new Error('the file shrank while it was hashed');
  hash.update(buffer.subarray(0, read));
  at += read;
}
parentPort.postMessage(hash.digest('hex'));
`;

function* lines(fd: number, bodyBytes: number, chunk: Buffer, done: () => void = () => closeSync(fd)): Generator<string> {
  try {
    let carry: Buffer | undefined;
    for (let at = 0; at < bodyBytes; ) {
      const read = readSync(fd, chunk, 0, Math.min(LINE_CHUNK, bodyBytes - at), at);
      if (read === 0) throw new Error('the file shrank while it was read');
      at += read;
      let data = chunk.subarray(0, read);
      if (carry !== undefined) {
        data = Buffer.concat([carry, data]);
        carry = undefined;
      }
      let start = 0;
      for (let end = data.indexOf(10, start); end >= 0; end = data.indexOf(10, start)) {
        yield data.toString('utf8', start, end);
        start = end + 1;
      }
      // A copy: the chunk buffer is read into again.
      if (start < data.length) carry = Buffer.from(data.subarray(start));
    }
    if (carry !== undefined) yield carry.toString('utf8');
  } finally {
    done();
  }
}
