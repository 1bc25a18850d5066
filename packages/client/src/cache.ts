import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DIGEST_PATTERN, sha256Digest } from '@skillport/core';

/**
 * The on-disk skill cache: file bytes keyed by their sha256 digest (content-addressed, so one copy serves every
 * server and version that names it), and the last listing of each source with when it was fetched and how long
 * the server said it stays fresh (`ttlMs`, `cacheScope`).
 *
 * - Every read is re-verified: a blob whose size or sha256 no longer matches its name is deleted and reported as
 *   a miss, so a corrupted or tampered cache can never serve wrong bytes.
 * - Writers never collide: each write goes to a unique temporary file in the same folder and is renamed into
 *   place (atomic on POSIX); two processes writing the same digest write the same bytes, so the last rename wins
 *   harmlessly and a reader sees either nothing or a whole file.
 * - `cacheScope: "private"` listings are per principal: they are stored under the cache's `partition` and not
 *   at all when no partition is set (kept in memory by the source instead).
 */
export interface SkillCacheOptions {
  /** Default `~/.cache/skillport/client`. */
  dir?: string;
  /** Who the cache belongs to, for `private` listings (e.g. the user or tenant id). */
  partition?: string;
}

export interface CachedListing<T> {
  key: string;
  fetchedAt: number;
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
  value: T;
}

export class SkillCache {
  readonly dir: string;
  readonly partition: string | undefined;
  /** Counters for tests and diagnostics. */
  readonly stats = { blobHits: 0, blobMisses: 0, blobWrites: 0, blobRejected: 0 };

  constructor(options: SkillCacheOptions = {}) {
    this.dir = options.dir ?? join(homedir(), '.cache', 'skillport', 'client');
    this.partition = options.partition;
  }

  private blobPath(digest: string): string {
    return join(this.dir, 'blobs', digest.slice(7, 9), digest.slice(7));
  }

  /** Verified bytes for a digest (and size, when known), or undefined. */
  getBlob(digest: string, size?: number): Uint8Array | undefined {
    if (!DIGEST_PATTERN.test(digest)) return undefined;
    const path = this.blobPath(digest);
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      this.stats.blobMisses++;
      return undefined;
    }
    if ((size !== undefined && bytes.byteLength !== size) || sha256Digest(bytes) !== digest) {
      this.stats.blobRejected++;
      rmSync(path, { force: true });
      return undefined;
    }
    this.stats.blobHits++;
    return bytes;
  }

  /** Stores bytes under their digest; refuses bytes that do not match it. */
  putBlob(digest: string, bytes: Uint8Array): void {
    if (!DIGEST_PATTERN.test(digest) || sha256Digest(bytes) !== digest) return;
    const path = this.blobPath(digest);
    this.atomicWrite(path, bytes);
    this.stats.blobWrites++;
  }

  getListing<T>(source: string, scope?: 'public' | 'private'): CachedListing<T> | undefined {
    const path = this.listingPath(source, scope);
    if (path === undefined) return undefined;
    try {
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as CachedListing<T>;
      return parsed.key === this.listingKey(source, scope) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  putListing<T>(source: string, listing: Omit<CachedListing<T>, 'key'>): void {
    const path = this.listingPath(source, listing.cacheScope);
    if (path === undefined) return;
    this.atomicWrite(path, JSON.stringify({ ...listing, key: this.listingKey(source, listing.cacheScope) }));
  }

  /** Looks a listing up whatever scope it was stored under (public first). */
  findListing<T>(source: string): CachedListing<T> | undefined {
    return this.getListing<T>(source, 'public') ?? this.getListing<T>(source, 'private');
  }

  private listingKey(source: string, scope?: 'public' | 'private'): string {
    return scope === 'private' ? `${source}\u0000${this.partition ?? ''}` : source;
  }

  private listingPath(source: string, scope?: 'public' | 'private'): string | undefined {
    if (scope === 'private' && this.partition === undefined) return undefined;
    const hash = createHash('sha256').update(this.listingKey(source, scope)).digest('hex').slice(0, 32);
    return join(this.dir, 'listings', `${scope === 'private' ? 'p-' : ''}${hash}.json`);
  }

  private atomicWrite(path: string, data: string | Uint8Array): void {
    const folder = join(path, '..');
    mkdirSync(folder, { recursive: true });
    const temp = join(folder, `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
    try {
      writeFileSync(temp, data);
      renameSync(temp, path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }
}
