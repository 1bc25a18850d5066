import { isUtf8 } from 'node:buffer';
import { fileSource, readKnownFile, readRegularFile, sha256Digest } from '@skillport/core';
import { ownBytes } from '../memory.js';
import type { CatalogFile, SkillOrigin } from './model.js';

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
 * Reads skill files and proves every byte served matches the published digest. Verified bytes are kept in a small
 * LRU keyed by digest (never by path), so a hot file is served from memory and a cached copy can never disagree
 * with the manifest that names it. A miss is read in the thread pool, never with a synchronous system call: when the
 * OS page cache does not hold the file (a catalog larger than memory), the disk's wait holds up that answer alone.
 * Concurrent misses of one digest share one read.
 */
/** Files up to this size are read knowing their size (no fstat): the manifest says how long they must be. */
const KNOWN_SIZE_READ_MAX = 256 * 1024;

/**
 * The default budget, in MiB, of verified bytes and JSON strings. A hot text file once cost about twice its size (the
 * bytes and their JSON string): 16 MiB held ~40 % of the 2,000 files bench/http-layer reads from the corpus (19.5 MB
 * of bytes, 20.4 MB of JSON strings); 64 MiB holds the whole corpus, and now that a served text file keeps only its
 * JSON string, about twice as many files.
 */
export const CONTENT_CACHE_MB = 64;

/**
 * A cached file: its verified bytes, or once a read was answered with its text, that text's JSON string alone (the
 * bytes are rebuilt from it, exactly, for the few readers that want bytes). `text`: UTF-8 without NUL, once known.
 */
interface Entry {
  bytes?: Buffer;
  text?: boolean;
  json?: Buffer;
}

const isText = (bytes: Buffer): boolean => !bytes.includes(0) && isUtf8(bytes);

export class ContentReader {
  #cache = new Map<string, Entry>();
  #bytes = 0;
  /**
   * Files too large for the LRU, while some answer still holds them: a hundred clients reading one 11 MB file share
   * one verified copy (and one read of the disk) instead of holding a hundred. Weak: gone once no answer holds it.
   */
  #shared = new Map<string, WeakRef<Buffer>>();
  #reading = new Map<string, Promise<Buffer>>();
  #forget = new FinalizationRegistry<string>((digest) => {
    if (this.#shared.get(digest)?.deref() === undefined) this.#shared.delete(digest);
  });

  /** What the cache holds now, in bytes: the cached files' bytes and JSON strings. */
  get bytes(): number {
    return this.#bytes;
  }

  constructor(
    readonly cacheBytes = CONTENT_CACHE_MB * 1024 * 1024,
    readonly maxEntryBytes = 256 * 1024,
  ) {}

  /**
   * The verified bytes of `file`, read from its skill's origin on a cache miss. `remember: false` for bulk reads
   * (building a search index) that must not push the hot files out of the cache.
   */
  async read(file: CatalogFile, origin: SkillOrigin, remember = true): Promise<Buffer> {
    const cached = this.#touch(file.digest);
    if (cached !== undefined) return cached.bytes ?? Buffer.from(JSON.parse(cached.json!.toString('utf8')) as string, 'utf8');
    if (file.size > this.maxEntryBytes) {
      const shared = this.#shared.get(file.digest)?.deref();
      if (shared !== undefined) return shared;
    }
    const reading = this.#reading.get(file.digest);
    // Another file of the same bytes failing (changed at its own path) says nothing of this one: read this one.
    if (reading !== undefined) return reading.catch(() => this.#readVerified(file, origin));
    const read = this.#readVerified(file, origin).finally(() => this.#reading.delete(file.digest));
    this.#reading.set(file.digest, read);
    let bytes = await read;
    if (file.size > this.maxEntryBytes) {
      this.#shared.set(file.digest, new WeakRef(bytes));
      this.#forget.register(bytes, file.digest);
      return bytes;
    }
    if (remember && bytes.byteLength <= this.maxEntryBytes && this.cacheBytes > 0 && !this.#cache.has(file.digest)) {
      // What is kept is what is counted: not the larger buffer a small file may have been read into.
      bytes = ownBytes(bytes);
      this.#cache.set(file.digest, { bytes });
      this.#bytes += bytes.byteLength;
      this.#evict();
    }
    return bytes;
  }

  /** The JSON string of a cached text file whose text a read was answered with: no bytes read, checked or escaped. */
  cachedJson(digest: string): Buffer | undefined {
    return this.#touch(digest)?.json;
  }

  /** The cached entry of `digest`, made the most recently used. */
  #touch(digest: string): Entry | undefined {
    const entry = this.#cache.get(digest);
    if (entry !== undefined) {
      this.#cache.delete(digest);
      this.#cache.set(digest, entry);
    }
    return entry;
  }

  #evict(): void {
    while (this.#bytes > this.cacheBytes && this.#cache.size > 0) {
      const [oldest, entry] = this.#cache.entries().next().value as [string, Entry];
      this.#cache.delete(oldest);
      this.#bytes -= (entry.bytes?.byteLength ?? 0) + (entry.json?.byteLength ?? 0);
    }
  }

  /**
   * Whether `bytes` (as `read` returned them for `digest`) are served as text, and, with `json`, that text as a JSON
   * string: what every `resources/read` of a hot text file would otherwise decode, check and escape again. While the
   * file is cached the JSON string takes the place of its bytes (one copy in the budget, not two: reads are answered
   * with the string); anything else is worked out and not kept.
   */
  servedForm(digest: string, bytes: Buffer, json = false): { text: boolean; json?: Buffer } {
    const entry = this.#cache.get(digest);
    // Cached bytes are the ones `read` returned; a JSON-only entry's were rebuilt from it (the same bytes, by digest).
    const cached = entry !== undefined && (entry.bytes === bytes || entry.bytes === undefined) ? entry : undefined;
    const text = cached === undefined ? isText(bytes) : (cached.text ??= isText(bytes));
    if (!json || !text) return { text };
    if (cached === undefined) return { text, json: Buffer.from(JSON.stringify(bytes.toString('utf8'))) };
    if (cached.json === undefined) {
      cached.json = Buffer.from(JSON.stringify(bytes.toString('utf8')));
      this.#bytes += cached.json.byteLength - (cached.bytes?.byteLength ?? 0);
      cached.bytes = undefined;
      this.#evict();
    }
    return { text, json: cached.json };
  }

  async #readVerified(file: CatalogFile, origin: SkillOrigin): Promise<Buffer> {
    if (origin.kind === 'folder') {
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
