import { fileSource, readKnownFileSync, readRegularFile, sha256Digest } from '@skillport/core';
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
 * with the manifest that names it.
 */
const SYNC_READ_MAX = 256 * 1024;

export class ContentReader {
  #cache = new Map<string, Buffer>();
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

  constructor(
    readonly cacheBytes = 16 * 1024 * 1024,
    readonly maxEntryBytes = 256 * 1024,
  ) {}

  /**
   * The verified bytes of `file`, read from its skill's origin on a cache miss. `remember: false` for bulk reads
   * (building a search index) that must not push the hot files out of the cache.
   */
  async read(file: CatalogFile, origin: SkillOrigin, remember = true): Promise<Buffer> {
    const cached = this.#cache.get(file.digest);
    if (cached !== undefined) {
      this.#cache.delete(file.digest);
      this.#cache.set(file.digest, cached);
      return cached;
    }
    if (file.size > this.maxEntryBytes) {
      const shared = this.#shared.get(file.digest)?.deref();
      if (shared !== undefined) return shared;
      let reading = this.#reading.get(file.digest);
      if (reading === undefined) {
        reading = this.#readVerified(file, origin).finally(() => this.#reading.delete(file.digest));
        this.#reading.set(file.digest, reading);
        const bytes = await reading;
        this.#shared.set(file.digest, new WeakRef(bytes));
        this.#forget.register(bytes, file.digest);
        return bytes;
      }
      return reading;
    }
    let bytes = await this.#readVerified(file, origin);
    if (remember && bytes.byteLength <= this.maxEntryBytes && this.cacheBytes > 0) {
      // What is kept is what is counted: not the larger buffer a small file may have been read into.
      bytes = ownBytes(bytes);
      this.#cache.set(file.digest, bytes);
      this.#bytes += bytes.byteLength;
      while (this.#bytes > this.cacheBytes) {
        const [oldest, value] = this.#cache.entries().next().value as [string, Buffer];
        this.#cache.delete(oldest);
        this.#bytes -= value.byteLength;
      }
    }
    return bytes;
  }

  async #readVerified(file: CatalogFile, origin: SkillOrigin): Promise<Buffer> {
    let bytes: Buffer;
    const source = origin.kind === 'folder' ? fileSource(origin, file) : origin.source;
    try {
      if (origin.kind === 'stored') {
        const stored = await origin.blobs.read(file.digest, file.size);
        bytes = Buffer.isBuffer(stored) ? stored : Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
      } else {
        // Small files are read synchronously: three system calls cost less than the thread-pool round trips of
        // four asynchronous ones. Large files go through the thread pool so they never hold up other requests.
        bytes = file.size <= SYNC_READ_MAX ? readKnownFileSync(source, file.size) : await readRegularFile(source, file.size);
      }
    } catch {
      throw new StaleFileError(file, source);
    }
    if (bytes.byteLength !== file.size || sha256Digest(bytes) !== file.digest) throw new StaleFileError(file, source);
    return bytes;
  }
}
