import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { Hash } from 'node:crypto';
import { dirname } from 'node:path';

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
