import { isUtf8 } from 'node:buffer';
import { fileSource, readKnownFile, readRegularFile, sha256Digest } from '@skillport/core';
import { ownBytes } from '../memory.js';
import { jsonString } from './json-string.js';
import { ReadThread } from './read-thread.js';
import type { ThreadRead } from './read-thread.js';
import type { CatalogFile, SkillOrigin } from './model.js';

export { jsonString } from './json-string.js';

/** A file's bytes no longer match the digest the catalog published: the file changed since it was scanned. */
export class StaleFileError extends Error {
  override name = 'StaleFileError';
  constructor(
    readonly file: CatalogFile,
    readonly source: string,
  ) {
    super(`${file.uri} changed since the catalog was built`);
  }
}

/**
 * A file's read did not finish within the reader's time limit (a stalled disk or network mount): the request is
 * answered with this at the limit instead of waiting for ever, and reads of the file fail at once until the stalled
 * read ends (retrying would only queue more reads behind it). Retryable.
 */
export class SlowFileError extends Error {
  override name = 'SlowFileError';
  constructor(
    readonly file: CatalogFile,
    readonly limitMs: number,
  ) {
    super(`${file.uri} could not be read within ${limitMs / 1000} s (the disk or mount that holds it is not answering); try again later`);
  }
}

/** How long one file read may take before its request is answered with SlowFileError. */
export const FILE_READ_LIMIT_MS = 30_000;

/**
 * Reads skill files and proves every byte served matches the published digest. Verified bytes are kept in a small
 * LRU keyed by digest (never by path), so a hot file is served from memory and a cached copy can never disagree
 * with the manifest that names it. A miss is read in the thread pool, never with a synchronous system call: when the
 * OS page cache does not hold the file (a catalog larger than memory), the disk's wait holds up that answer alone.
 * Concurrent misses of one digest share one read.
 */
/** Files up to this size are read knowing their size (no fstat): the manifest says how long they must be. */
const KNOWN_SIZE_READ_MAX = 256 * 1024;

/**
 * The default budget, in MiB, of verified bytes and their served forms. A hot text file is kept once, as its JSON
 * string (about its size: the bytes are made again from it on the rare read that wants them), so 64 MiB holds the
 * whole corpus (19.5 MB of bytes, 20.4 MB of JSON strings) with room to spare.
 */
export const CONTENT_CACHE_MB = 64;

/**
 * A cached file: its verified bytes until a text file's JSON string is made, then that string alone (the bytes come
 * back from it exactly: see `bytesOf`); a hot text file is served from the string, so holding both doubled the cache.
 */
interface Entry {
  bytes?: Buffer;
  size: number;
  /** UTF-8 without NUL (served as text), once worked out. */
  text?: boolean;
  /** The text as a JSON string (quotes included), once an answer asked for it. */
  json?: Buffer;
}

/**
 * The bytes of a cached entry. A JSON string of text read as Latin-1 (json-string.ts) parses back to that Latin-1
 * string, every character one byte: the very bytes it was made from.
 */
function entryBytes(entry: Entry): Buffer {
  return entry.bytes ?? Buffer.from(JSON.parse(entry.json!.toString('latin1')) as string, 'latin1');
}

/** What an entry counts against the budget. */
function entryCost(entry: Entry): number {
  return (entry.bytes?.byteLength ?? 0) + (entry.json?.byteLength ?? 0);
}

export class ContentReader {
  /** By digest, least recently used first; an entry's served form is counted in the budget and goes with it. */
  #cache = new Map<string, Entry>();
  #bytes = 0;
  /**
   * Files too large for the LRU, while some answer still holds them: a hundred clients reading one 11 MB file share
   * one verified copy (and one read of the disk) instead of holding a hundred. Weak: gone once no answer holds it.
   */
  #shared = new Map<string, WeakRef<Buffer>>();
  #reading = new Map<string, Promise<Buffer | ThreadRead>>();
  /** Files (by URI) whose read passed the time limit and has not ended yet. */
  #stalled = new Set<string>();
  readonly #readLimitMs: number;
  /** First reads of small folder files, whole, off the main thread (read-thread.ts); undefined when turned off. */
  #thread: ReadThread | undefined;
  #forget = new FinalizationRegistry<string>((digest) => {
    if (this.#shared.get(digest)?.deref() === undefined) this.#shared.delete(digest);
  });

  /** What the cache holds now, in bytes: the cached files' bytes and the served forms kept beside them. */
  get bytes(): number {
    return this.#bytes;
  }

  constructor(
    readonly cacheBytes = CONTENT_CACHE_MB * 1024 * 1024,
    readonly maxEntryBytes = 256 * 1024,
    options: { thread?: boolean; readLimitMs?: number } = {},
  ) {
    this.#readLimitMs = options.readLimitMs ?? FILE_READ_LIMIT_MS;
    this.#thread = (options.thread ?? true) ? new ReadThread() : undefined;
  }

  /** Stops the read thread, if one was started (reads after this are made on the main thread's pool). */
  async close(): Promise<void> {
    await this.#thread?.close();
  }

  /**
   * The verified bytes of `file`, read from its skill's origin on a cache miss. `remember: false` for bulk reads
   * (building a search index) that must not push the hot files out of the cache.
   */
  async read(file: CatalogFile, origin: SkillOrigin, remember = true): Promise<Buffer> {
    const cached = this.#touch(file.digest);
    if (cached !== undefined) return entryBytes(cached);
    if (file.size > this.maxEntryBytes) {
      const shared = this.#shared.get(file.digest)?.deref();
      if (shared !== undefined) return shared;
    }
    const reading = this.#reading.get(file.digest);
    // Another file of the same bytes failing (changed at its own path) says nothing of this one: read this one.
    // A stalled read is not started again for it.
    if (reading !== undefined)
      return bytesOf(await reading.catch((error: unknown) => (error instanceof SlowFileError ? Promise.reject(error) : this.#readTimed(file, origin, false))));
    // A file that is kept goes to the read thread whole (its JSON string made there too); others are read here.
    const whole = remember && this.cacheBytes > 0 && file.size <= this.maxEntryBytes;
    const read = this.#readTimed(file, origin, whole).finally(() => this.#reading.delete(file.digest));
    this.#reading.set(file.digest, read);
    const got = await read;
    let bytes = bytesOf(got);
    if (!Buffer.isBuffer(got)) {
      if (!this.#cache.has(file.digest)) {
        const entry: Entry = got.json === undefined ? { bytes, size: file.size, text: got.text } : { size: file.size, text: true, json: got.json };
        this.#cache.set(file.digest, entry);
        this.#bytes += entryCost(entry);
        this.#evict();
      }
      return bytes;
    }
    if (file.size > this.maxEntryBytes) {
      this.#shared.set(file.digest, new WeakRef(bytes));
      this.#forget.register(bytes, file.digest);
      return bytes;
    }
    if (remember && bytes.byteLength <= this.maxEntryBytes && this.cacheBytes > 0 && !this.#cache.has(file.digest)) {
      // What is kept is what is counted: not the larger buffer a small file may have been read into.
      bytes = ownBytes(bytes);
      this.#cache.set(file.digest, { bytes, size: bytes.byteLength });
      this.#bytes += bytes.byteLength;
      this.#evict();
    }
    return bytes;
  }

  /** The cached entry of `digest`, made the most recently used; undefined on a miss. */
  #touch(digest: string): Entry | undefined {
    const cached = this.#cache.get(digest);
    if (cached !== undefined) {
      this.#cache.delete(digest);
      this.#cache.set(digest, cached);
    }
    return cached;
  }

  /**
   * A cached text file's JSON string, without a read: what a hot `resources/read` answer is made of
   * (http/fast-path.ts answers from it in the same tick). Undefined unless it is cached (then `read` and
   * `servedForm` make it); counts as a use, as `read` does.
   */
  cachedText(digest: string): { json: Buffer } | undefined {
    const json = this.#cache.get(digest)?.json;
    if (json === undefined) return undefined;
    this.#touch(digest);
    return { json };
  }

  #evict(): void {
    while (this.#bytes > this.cacheBytes && this.#cache.size > 0) {
      const [oldest, value] = this.#cache.entries().next().value as [string, Entry];
      this.#cache.delete(oldest);
      this.#bytes -= entryCost(value);
    }
  }

  /**
   * Whether `bytes` (as `read` returned them for `digest`) are served as text, and, with `json`, that text as a JSON
   * string: what every `resources/read` of a hot text file would otherwise decode, check and escape again. Kept in
   * place of the cached bytes (counted in the same budget, gone when they are) only while `digest` is cached and
   * `bytes` are what a read of it gave; anything else is worked out and not kept.
   */
  servedForm(digest: string, bytes: Buffer, json = false): { text: boolean; json?: Buffer } {
    const entry = this.#cache.get(digest);
    // The bytes a read of this digest gave (the cached ones, or made again from its JSON string: same digest, same size).
    const cached = entry !== undefined && (entry.bytes === bytes || (entry.bytes === undefined && bytes.byteLength === entry.size)) ? entry : undefined;
    const text = cached?.text ?? (!bytes.includes(0) && isUtf8(bytes));
    if (cached !== undefined) cached.text = text;
    if (!json || !text) return { text };
    if (cached?.json !== undefined) return { text, json: cached.json };
    const made = jsonString(bytes);
    if (cached === undefined) return { text, json: made };
    // Served from the JSON string from now on: the bytes are no longer kept beside it.
    this.#bytes += made.byteLength - (cached.bytes?.byteLength ?? 0);
    cached.json = made;
    cached.bytes = undefined;
    this.#evict();
    return { text, json: made };
  }

  /** `#readVerified`, answered with SlowFileError once it has taken longer than the limit (it goes on, unheard). */
  #readTimed(file: CatalogFile, origin: SkillOrigin, whole: boolean): Promise<Buffer | ThreadRead> {
    if (this.#stalled.has(file.uri)) return Promise.reject(new SlowFileError(file, this.#readLimitMs));
    const read = this.#readVerified(file, origin, whole);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#stalled.add(file.uri);
        const ended = () => this.#stalled.delete(file.uri);
        read.then(ended, ended);
        reject(new SlowFileError(file, this.#readLimitMs));
      }, this.#readLimitMs);
      // The read itself holds the process while it runs; its timer need not.
      timer.unref();
      read.then(
        (got) => {
          clearTimeout(timer);
          resolve(got);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  /** The file's verified bytes; `whole`: through the read thread when it runs (then with their served form). */
  async #readVerified(file: CatalogFile, origin: SkillOrigin, whole: boolean): Promise<Buffer | ThreadRead> {
    if (origin.kind === 'folder') {
      const thread = this.#thread;
      if (whole && file.size <= KNOWN_SIZE_READ_MAX && thread?.ready()) {
        const source = fileSource(origin, file);
        const read = await thread.read({ path: source, size: file.size, digest: file.digest, json: true }).catch(() => null);
        if (read === undefined) throw new StaleFileError(file, source);
        if (read !== null) return read;
        // The thread stopped: read here, as without it.
      }
      const bytes = await readFolderFile(fileSource(origin, file), file);
      if (bytes === undefined) throw new StaleFileError(file, fileSource(origin, file));
      return bytes;
    }
    let bytes: Buffer;
    try {
      const stored = await origin.blobs.read(file.digest, file.size);
      bytes = Buffer.isBuffer(stored) ? stored : Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
    } catch {
      throw new StaleFileError(file, origin.source);
    }
    if (!matches(bytes, file)) throw new StaleFileError(file, origin.source);
    return bytes;
  }
}

function bytesOf(read: Buffer | ThreadRead): Buffer {
  return Buffer.isBuffer(read) ? read : read.bytes;
}

/**
 * The bytes at `source` when they are the file's published ones (its size and digest), else undefined: the one
 * verified read of a folder's file, for the reader above and for the search index's worker threads.
 */
export async function readFolderFile(source: string, file: { size: number; digest: string }): Promise<Buffer | undefined> {
  let bytes: Buffer;
  try {
    bytes = file.size <= KNOWN_SIZE_READ_MAX ? await readKnownFile(source, file.size) : await readRegularFile(source, file.size);
  } catch {
    return undefined;
  }
  return matches(bytes, file) ? bytes : undefined;
}

function matches(bytes: Uint8Array, file: { size: number; digest: string }): boolean {
  return bytes.byteLength === file.size && sha256Digest(bytes) === file.digest;
}
