import pg from 'pg';
import { DIGEST_PATTERN, packageDigest, sha256Digest } from '@skillport/core';
import { LATEST, RegistryError } from './model.js';
import type { GateRecord, NewVersion, ReviewStatus, TagRecord, VersionRecord } from './model.js';
import { migrate } from './postgres-schema.js';
import type { MigrationReport } from './postgres-schema.js';
import { redactUrl } from './postgres-url.js';
import { CHANGES_CHANNEL, listenForChanges } from './postgres-listen.js';
import { chooseLatest } from './store.js';
import type { CommitResult, RegistryStore, StoreCheck } from './store.js';

/**
 * The registry store on PostgreSQL (`serve --data postgres://...`): metadata and blobs in one database, so many
 * `serve` replicas share one registry and there is no second store to run or back up.
 *
 * - Blobs are content-addressed rows (`blobs`, with their bytes in 1 MiB `blob_chunks`), each written in its own
 *   transaction before the version that names them commits: the same order as the folder store, so a replica killed
 *   mid-publish leaves at most orphan blobs, never a partial version.
 * - Every write transaction first bumps the one `meta.revision` row. The row lock serialises writers, so revisions
 *   commit in increasing order (a reader never sees revision 7 before 6 is visible), and the transaction appends
 *   its change to `changes` (id = revision) and `NOTIFY`s `skillport_changes`, delivered at commit. Replicas wake on
 *   the notification and catch up with `changesSince(lastApplied)`, so a missed notification costs nothing but time.
 * - A lost connection becomes a 503 `store_unavailable` for the caller; pg's pool reconnects on the next query.
 */
export { CHANGES_CHANNEL };
/** Bytes per blob chunk row: under PostgreSQL's 1 GB field limit by far, small enough to stream. */
export const BLOB_CHUNK_BYTES = 1024 * 1024;

export interface PostgresStoreOptions {
  /** Connections in the pool (default 10; the CLI's SKILLPORT_PG_POOL_MAX). */
  poolMax?: number;
  /** Apply pending schema migrations when opening (default true; `skillport store migrate` runs them alone). */
  migrate?: boolean;
  /** Blob bytes kept in memory, in MiB (default 256; the CLI's SKILLPORT_PG_BLOB_CACHE_MB): what replicas serve while the database is away. */
  blobCacheMb?: number;
  /** Refuse a database whose schema is not this skillport's (default true; false only for `store migrate`). */
  check?: boolean;
  /** Called with one line when something worth telling an operator happens (lost connection, reconnect). */
  onProblem?: (message: string) => void;
}

interface VersionRow {
  name: string;
  version: string;
  package_digest: string;
  manifest: string;
  published_at: string;
  publisher: string;
  signatures: string;
  provenance: string;
  review: string;
  yanked_at: string | null;
  revoked_at: string | null;
  revoked_reason: string | null;
  gate: string | null;
  rev: string;
}

export class PostgresStore implements RegistryStore {
  readonly location: string;
  readonly pool: pg.Pool;
  readonly #url: string;
  readonly #onProblem: (message: string) => void;
  readonly #cache: BlobCache;
  #closed = false;
  #warming = false;

  private constructor(url: string, options: PostgresStoreOptions) {
    this.#url = url;
    this.location = redactUrl(url);
    this.#onProblem = options.onProblem ?? (() => {});
    this.#cache = new BlobCache((options.blobCacheMb ?? 256) * 1024 * 1024);
    const max = options.poolMax ?? 10;
    this.pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30_000, application_name: 'skillport' });
    // An idle pooled connection dropped by the server must not crash the process; the pool replaces it.
    this.pool.on('error', (error) => this.#onProblem(`registry database: idle connection lost (${error.message})`));
  }

  /** Connects, applies pending migrations (under an advisory lock, so replicas never run one twice) and checks the schema. */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const store = new PostgresStore(url, options);
    try {
      if (options.check !== false) await store.#withClient((client) => migrate(client, { apply: options.migrate !== false }));
    } catch (error) {
      await store.pool.end().catch(() => undefined);
      throw error;
    }
    return store;
  }

  /** Applies pending migrations; what was there before and what ran. */
  migrate(): Promise<MigrationReport> {
    return this.#withClient((client) => migrate(client, { apply: true }));
  }

  async putBlob(digest: string, bytes: Uint8Array): Promise<void> {
    if (!DIGEST_PATTERN.test(digest)) throw new Error(`not a sha256 digest: ${digest.slice(0, 80)}`);
    if (sha256Digest(bytes) !== digest) throw new Error(`blob bytes do not match ${digest}`);
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (buffer.byteLength <= BLOB_CHUNK_BYTES) {
      // One chunk: one statement (its own transaction, one round trip); a digest already there inserts nothing.
      await this.#query(
        `WITH b AS (INSERT INTO blobs (digest, size, chunks) VALUES ($1, $2, 1) ON CONFLICT (digest) DO NOTHING RETURNING digest)
         INSERT INTO blob_chunks (digest, seq, data) SELECT digest, 0, $3 FROM b`,
        [digest, buffer.byteLength, buffer],
      );
      return;
    }
    if (await this.hasBlob(digest)) return;
    await this.#transaction(async (client) => {
      // Concurrent writers of one digest: the second waits on the key, then inserts nothing.
      const inserted = await client.query(`INSERT INTO blobs (digest, size, chunks) VALUES ($1, $2, $3) ON CONFLICT (digest) DO NOTHING RETURNING digest`, [
        digest,
        bytes.byteLength,
        chunkCount(bytes.byteLength),
      ]);
      if (inserted.rowCount === 0) return;
      for (let seq = 0, offset = 0; offset < buffer.byteLength || seq === 0; seq++, offset += BLOB_CHUNK_BYTES) {
        await client.query(`INSERT INTO blob_chunks (digest, seq, data) VALUES ($1, $2, $3)`, [
          digest,
          seq,
          buffer.subarray(offset, offset + BLOB_CHUNK_BYTES),
        ]);
      }
    });
  }

  async hasBlob(digest: string): Promise<boolean> {
    const result = await this.#query(`SELECT 1 FROM blobs WHERE digest = $1`, [digest]);
    return result.rowCount !== 0;
  }

  async readBlob(digest: string, size: number): Promise<Uint8Array> {
    // Blobs never change under their digest, so a cached copy is always right.
    const cached = this.#cache.get(digest);
    if (cached !== undefined && cached.byteLength === size) return cached;
    const bytes = await this.#readStored(digest, size);
    this.#cache.set(digest, bytes);
    return bytes;
  }

  /**
   * Loads blobs into the memory cache in the background (the provider names the files of the versions it lists),
   * so a replica goes on serving them while the database is unreachable. Failures are left for the next read.
   */
  warm(files: ReadonlyArray<{ digest: string; size: number }>): void {
    const missing = files.filter((file) => !this.#cache.has(file.digest) && this.#cache.fits(file.size));
    if (missing.length === 0 || this.#warming) return;
    this.#warming = true;
    void (async () => {
      try {
        for (const file of missing) {
          if (this.#closed) return;
          if (!this.#cache.has(file.digest)) this.#cache.set(file.digest, await this.#readStored(file.digest, file.size));
        }
      } catch {
        // The database is away; reads will try again.
      } finally {
        this.#warming = false;
      }
    })();
  }

  async #readStored(digest: string, size: number): Promise<Buffer> {
    const blob = await this.#query<{ size: string }>(`SELECT size FROM blobs WHERE digest = $1`, [digest]);
    if (blob.rowCount === 0) throw new Error(`blob ${digest} is missing`);
    if (Number(blob.rows[0]!.size) !== size) throw new Error(`blob ${digest} is ${blob.rows[0]!.size} bytes, expected ${size}`);
    const chunks = await this.#query<{ data: Buffer }>(`SELECT data FROM blob_chunks WHERE digest = $1 ORDER BY seq`, [digest]);
    const bytes = Buffer.concat(chunks.rows.map((row) => row.data));
    if (bytes.byteLength !== size) throw new Error(`blob ${digest} holds ${bytes.byteLength} bytes in its chunks, expected ${size}`);
    return bytes;
  }

  async commitVersion(input: NewVersion, tags: readonly string[]): Promise<CommitResult> {
    const digests = [...new Set(input.manifest.files.map((file) => file.digest))];
    const stored = await this.#query<{ digest: string; size: string }>(`SELECT digest, size FROM blobs WHERE digest = ANY($1)`, [digests]);
    const sizes = new Map(stored.rows.map((row) => [row.digest, Number(row.size)]));
    for (const file of input.manifest.files) {
      if (sizes.get(file.digest) !== file.size) throw new RegistryError(500, 'blob_missing', `blob ${file.digest} for ${file.path} is not stored`);
    }
    return this.#transaction(async (client) => {
      // The revision first: it is the writers' lock, so the check below sees any publish of this version that
      // committed while this one waited (two replicas publishing the same version: one creates, the other reads it).
      const rev = await bump(client);
      const existing = await getRow(client, input.name, input.version);
      if (existing) throw new Abort({ status: existing.package_digest === input.packageDigest ? 'exists' : 'conflict', version: toRecord(existing) });
      await client.query(
        `INSERT INTO versions (name, version, package_digest, manifest, published_at, publisher, signatures, provenance, review, rev, gate)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          input.name,
          input.version,
          input.packageDigest,
          JSON.stringify(input.manifest),
          input.publishedAt,
          input.publisher,
          JSON.stringify(input.signatures),
          JSON.stringify(input.provenance),
          input.review,
          rev,
          input.gate === undefined ? null : JSON.stringify(input.gate),
        ],
      );
      const files = new Map(input.manifest.files.map((file) => [file.digest, file.size]));
      await client.query(`INSERT INTO version_blobs (name, version, digest, size) SELECT $1, $2, d, s FROM unnest($3::text[], $4::bigint[]) AS t(d, s)`, [
        input.name,
        input.version,
        [...files.keys()],
        [...files.values()],
      ]);
      for (const tag of tags) await upsertTag(client, input.name, tag, input.version);
      await logChange(client, rev, 'publish', input.name, input.version);
      return { status: 'created', version: toRecord((await getRow(client, input.name, input.version))!) } as const;
    });
  }

  async getVersion(name: string, version: string): Promise<VersionRecord | undefined> {
    const result = await this.#query<VersionRow>(`SELECT * FROM versions WHERE name = $1 AND version = $2`, [name, version]);
    return result.rows[0] ? toRecord(result.rows[0]) : undefined;
  }

  async listVersions(name: string): Promise<VersionRecord[]> {
    return (await this.#query<VersionRow>(`SELECT * FROM versions WHERE name = $1 ORDER BY published_at, rev`, [name])).rows.map(toRecord);
  }

  async listNames(): Promise<string[]> {
    return (await this.#query<{ name: string }>(`SELECT name FROM versions GROUP BY name ORDER BY name`)).rows.map((row) => row.name);
  }

  async tags(name: string): Promise<TagRecord[]> {
    return (await this.#query<TagRecord>(`SELECT name, tag, version FROM tags WHERE name = $1 ORDER BY tag`, [name])).rows;
  }

  async setTag(name: string, tag: string, version: string): Promise<void> {
    await this.#transaction(async (client) => {
      const rev = await bump(client);
      const row = await getRow(client, name, version);
      if (!row) throw new RegistryError(404, 'version_not_found', `${name}@${version} does not exist`);
      if (row.revoked_at !== null)
        throw new RegistryError(409, 'version_revoked', `${name}@${version} is revoked (${row.revoked_reason}); it cannot be tagged`);
      if (row.yanked_at !== null) throw new RegistryError(409, 'version_yanked', `${name}@${version} is yanked; it cannot be tagged`);
      await upsertTag(client, name, tag, version);
      await logChange(client, rev, 'tag', name, version, tag);
    });
  }

  async removeTag(name: string, tag: string): Promise<boolean> {
    return this.#transaction(async (client) => {
      const rev = await bump(client);
      const removed = await client.query(`DELETE FROM tags WHERE name = $1 AND tag = $2`, [name, tag]);
      if (removed.rowCount === 0) throw new Abort(false);
      await logChange(client, rev, 'untag', name, null, tag);
      return true;
    });
  }

  yank(name: string, version: string, at: string): Promise<VersionRecord> {
    return this.#withdraw(name, version, 'yank', (client, rev) =>
      client.query(`UPDATE versions SET yanked_at = COALESCE(yanked_at, $1), rev = $2 WHERE name = $3 AND version = $4`, [at, rev, name, version]),
    );
  }

  unyank(name: string, version: string): Promise<VersionRecord> {
    return this.#transaction(async (client) => {
      const row = await getRow(client, name, version);
      if (!row) throw new RegistryError(404, 'version_not_found', `${name}@${version} does not exist`);
      if (row.revoked_at !== null) throw new RegistryError(409, 'version_revoked', `${name}@${version} is revoked; a revoked version cannot be restored`);
      if (row.yanked_at === null) return toRecord(row);
      const rev = await bump(client);
      await client.query(`UPDATE versions SET yanked_at = NULL, rev = $1 WHERE name = $2 AND version = $3`, [rev, name, version]);
      const latest = (await client.query<{ version: string }>(`SELECT version FROM tags WHERE name = $1 AND tag = $2`, [name, LATEST])).rows[0];
      const rows = (await client.query<VersionRow>(`SELECT * FROM versions WHERE name = $1`, [name])).rows;
      const best = chooseLatest(rows.map(toRecord));
      if (latest === undefined || best === version) await upsertTag(client, name, LATEST, best ?? version);
      await logChange(client, rev, 'unyank', name, version);
      return toRecord((await getRow(client, name, version))!);
    });
  }

  revoke(name: string, version: string, reason: string, at: string): Promise<VersionRecord> {
    return this.#withdraw(name, version, 'revoke', (client, rev) =>
      client.query(`UPDATE versions SET revoked_at = $1, revoked_reason = $2, rev = $3 WHERE name = $4 AND version = $5`, [at, reason, rev, name, version]),
    );
  }

  /** Marks a version withdrawn, drops its tags, and re-points `latest` when it was on it: one transaction. */
  #withdraw(name: string, version: string, kind: string, mark: (client: pg.PoolClient, rev: number) => Promise<unknown>): Promise<VersionRecord> {
    return this.#transaction(async (client) => {
      const rev = await bump(client);
      if (!(await getRow(client, name, version))) throw new RegistryError(404, 'version_not_found', `${name}@${version} does not exist`);
      await mark(client, rev);
      const removed = await client.query<{ tag: string }>(`DELETE FROM tags WHERE name = $1 AND version = $2 RETURNING tag`, [name, version]);
      if (removed.rows.some((row) => row.tag === LATEST)) {
        const rows = (await client.query<VersionRow>(`SELECT * FROM versions WHERE name = $1`, [name])).rows;
        const next = chooseLatest(rows.map(toRecord));
        if (next !== undefined) await upsertTag(client, name, LATEST, next);
      }
      await logChange(client, rev, kind, name, version);
      return toRecord((await getRow(client, name, version))!);
    });
  }

  async setReview(name: string, version: string, review: ReviewStatus): Promise<VersionRecord> {
    return this.#transaction(async (client) => {
      const rev = await bump(client);
      const updated = await client.query(`UPDATE versions SET review = $1, rev = $2 WHERE name = $3 AND version = $4`, [review, rev, name, version]);
      if (updated.rowCount === 0) throw new RegistryError(404, 'version_not_found', `${name}@${version} does not exist`);
      await logChange(client, rev, 'review', name, version, review);
      return toRecord((await getRow(client, name, version))!);
    });
  }

  async decideReview(name: string, version: string, review: ReviewStatus, gate: GateRecord, tags: readonly string[]): Promise<VersionRecord> {
    return this.#transaction(async (client) => {
      const rev = await bump(client);
      const row = await getRow(client, name, version);
      if (row === undefined) throw new RegistryError(404, 'version_not_found', `${name}@${version} does not exist`);
      await client.query(`UPDATE versions SET review = $1, gate = $2, rev = $3 WHERE name = $4 AND version = $5`, [
        review,
        JSON.stringify(gate),
        rev,
        name,
        version,
      ]);
      if (review === 'rejected') {
        // A rejected version is never served: its tags go, and `latest` moves to the best version left.
        const onIt = (await client.query<{ tag: string }>(`DELETE FROM tags WHERE name = $1 AND version = $2 RETURNING tag`, [name, version])).rows.map(
          (r) => r.tag,
        );
        if (onIt.includes(LATEST)) {
          const rows = (await client.query<VersionRow>(`SELECT * FROM versions WHERE name = $1`, [name])).rows.map(toRecord);
          const next = chooseLatest(rows);
          if (next !== undefined) await upsertTag(client, name, LATEST, next);
        }
      } else if (row.revoked_at === null && row.yanked_at === null) for (const tag of tags) await upsertTag(client, name, tag, version);
      await logChange(client, rev, 'review', name, version, review);
      return toRecord((await getRow(client, name, version))!);
    });
  }

  async revision(): Promise<number> {
    return Number((await this.#query<{ revision: string }>(`SELECT revision FROM meta WHERE id = 1`)).rows[0]!.revision);
  }

  async changesSince(since: number): Promise<{ revision: number; versions: VersionRecord[]; tags: TagRecord[] }> {
    // One snapshot, so the three answers describe the same moment.
    return this.#withClient(async (client) => {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const revision = Number((await client.query<{ revision: string }>(`SELECT revision FROM meta WHERE id = 1`)).rows[0]!.revision);
        const versions = (await client.query<VersionRow>(`SELECT * FROM versions WHERE rev > $1 ORDER BY rev`, [since])).rows.map(toRecord);
        const tags = (await client.query<TagRecord>(`SELECT name, tag, version FROM tags ORDER BY name, tag`)).rows;
        await client.query('COMMIT');
        return { revision, versions, tags };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * Calls `onChange` whenever another transaction commits a change (LISTEN on `skillport_changes`), and once after
   * every reconnection (notifications sent while disconnected are lost; the caller catches up by revision). The
   * listening connection is its own, outside the pool; it reconnects with backoff (250 ms doubling to 5 s).
   */
  watch(onChange: () => void, onState?: (connected: boolean) => void): () => void {
    return listenForChanges(this.#url, onChange, onState, this.#onProblem, 'registry database');
  }

  async check(options: { verifyBlobs?: boolean } = {}): Promise<StoreCheck> {
    const problems: string[] = [];
    const rows = (await this.#query<VersionRow>(`SELECT * FROM versions ORDER BY name, version`)).rows;
    const tags = (await this.#query<TagRecord>(`SELECT name, tag, version FROM tags ORDER BY name, tag`)).rows;
    const referenced = new Map<string, number>();
    for (const row of rows) {
      const record = toRecord(row);
      const recomputed = packageDigest(record.manifest.files);
      if (recomputed !== record.packageDigest)
        problems.push(`${row.name}@${row.version}: package digest ${row.package_digest} does not match its files (${recomputed})`);
      for (const file of record.manifest.files) referenced.set(file.digest, file.size);
    }
    for (const row of (await this.#query<{ digest: string }>(`SELECT DISTINCT digest FROM version_blobs`)).rows) {
      if (!referenced.has(row.digest)) problems.push(`blob ${row.digest} is listed for a version whose manifest does not name it`);
    }
    for (const tag of tags) {
      const row = rows.find((candidate) => candidate.name === tag.name && candidate.version === tag.version);
      if (!row) problems.push(`tag ${tag.name}:${tag.tag} points at a missing version ${tag.version}`);
      else if (row.revoked_at !== null || row.yanked_at !== null) problems.push(`tag ${tag.name}:${tag.tag} points at withdrawn version ${tag.version}`);
    }
    const blobs = (
      await this.#query<{ digest: string; size: string; chunks: number; stored: string; count: string }>(
        `SELECT b.digest, b.size, b.chunks, COALESCE(SUM(octet_length(c.data)), 0) AS stored, COUNT(c.seq) AS count
         FROM blobs b LEFT JOIN blob_chunks c ON c.digest = b.digest GROUP BY b.digest, b.size, b.chunks ORDER BY b.digest`,
      )
    ).rows;
    const sizes = new Map(blobs.map((row) => [row.digest, row]));
    for (const [digest, size] of referenced) {
      const blob = sizes.get(digest);
      if (blob === undefined) problems.push(`blob ${digest} is missing`);
      else if (Number(blob.size) !== size) problems.push(`blob ${digest} is ${blob.size} bytes, expected ${size}`);
      else if (Number(blob.stored) !== size || Number(blob.count) !== blob.chunks)
        problems.push(`blob ${digest} holds ${blob.stored} bytes in ${blob.count} of ${blob.chunks} chunks, expected ${size}`);
      else if (options.verifyBlobs && sha256Digest(await this.readBlob(digest, size)) !== digest) problems.push(`blob ${digest} does not match its digest`);
    }
    const stray = await this.#query<{ digest: string }>(
      `SELECT DISTINCT digest FROM blob_chunks c WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.digest = c.digest)`,
    );
    for (const row of stray.rows) problems.push(`blob chunks for ${row.digest} without a blob row`);
    return {
      consistent: problems.length === 0,
      versions: rows.length,
      tags: tags.length,
      blobs: blobs.length,
      problems,
      orphanBlobs: blobs.map((row) => row.digest).filter((digest) => !referenced.has(digest)),
      tempFiles: [],
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await endPool(this.pool);
  }

  async #query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(sql, params);
    } catch (error) {
      throw unavailable(error);
    }
  }

  async #withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw unavailable(error);
    }
    let broken: Error | undefined;
    // A checked-out client has no pool listener: when the server ends the connection (PostgreSQL stopped or
    // restarted) the client emits 'error', which without a listener kills the process. Keep it, and drop the client.
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    try {
      return await work(client);
    } catch (error) {
      if (isConnectionError(error)) broken = error as Error;
      throw unavailable(broken !== undefined && !isConnectionError(error) ? broken : error);
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  /** Runs `work` in a transaction: commits what it returns; rolls back when it throws (an `Abort` carries its answer). */
  #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.#withClient(async (client) => {
      await client.query('BEGIN');
      try {
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (error instanceof Abort) return error.value as T;
        if ((error as { code?: string }).code === '23505')
          throw new RegistryError(409, 'conflict', `a concurrent write changed the same record; try again (${(error as Error).message})`);
        throw error;
      }
    });
  }
}

/** Blob bytes by digest, least recently used dropped first once `maxBytes` is reached. */
class BlobCache {
  readonly #entries = new Map<string, Buffer>();
  #bytes = 0;
  constructor(readonly maxBytes: number) {}

  has(digest: string): boolean {
    return this.#entries.has(digest);
  }

  fits(size: number): boolean {
    return size <= this.maxBytes / 4;
  }

  get(digest: string): Buffer | undefined {
    const bytes = this.#entries.get(digest);
    if (bytes !== undefined) {
      this.#entries.delete(digest);
      this.#entries.set(digest, bytes);
    }
    return bytes;
  }

  set(digest: string, bytes: Buffer): void {
    if (!this.fits(bytes.byteLength) || this.#entries.has(digest)) return;
    this.#entries.set(digest, bytes);
    this.#bytes += bytes.byteLength;
    for (const [oldest, old] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= old.byteLength;
    }
  }
}

/** Thrown inside a transaction to roll it back and answer `value` (nothing to change after all). */
class Abort {
  constructor(readonly value: unknown) {}
}

function chunkCount(size: number): number {
  return Math.max(1, Math.ceil(size / BLOB_CHUNK_BYTES));
}

/** Takes the writers' lock (the one revision row) and returns the new revision: every write transaction starts here. */
export async function bump(client: pg.ClientBase): Promise<number> {
  const result = await client.query<{ revision: string }>(`UPDATE meta SET revision = revision + 1 WHERE id = 1 RETURNING revision`);
  return Number(result.rows[0]!.revision);
}

async function getRow(client: pg.PoolClient, name: string, version: string): Promise<VersionRow | undefined> {
  return (await client.query<VersionRow>(`SELECT * FROM versions WHERE name = $1 AND version = $2`, [name, version])).rows[0];
}

async function upsertTag(client: pg.PoolClient, name: string, tag: string, version: string): Promise<void> {
  await client.query(`INSERT INTO tags (name, tag, version) VALUES ($1, $2, $3) ON CONFLICT (name, tag) DO UPDATE SET version = excluded.version`, [
    name,
    tag,
    version,
  ]);
}

/** The change log (id = revision) and the wake-up for replicas, which PostgreSQL delivers when the transaction commits. */
export async function logChange(
  client: pg.ClientBase,
  rev: number,
  kind: string,
  name: string,
  version: string | null,
  detail: string | null = null,
): Promise<void> {
  await client.query(`INSERT INTO changes (id, kind, name, version, detail) VALUES ($1, $2, $3, $4, $5)`, [rev, kind, name, version, detail]);
  await client.query(`SELECT pg_notify($1, $2)`, [CHANGES_CHANNEL, String(rev)]);
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
]);

export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  const message = String((error as Error | undefined)?.message ?? '');
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(
    message,
  );
}

/**
 * Ends a pool, but waits at most `ms` for clients still checked out: a query that never returns (a hung database)
 * must not keep a replica from stopping on SIGTERM. Their sockets are closed with the process.
 */
export async function endPool(pool: pg.Pool, ms = 5000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([pool.end().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** A lost database is the caller's 503, said plainly; anything else passes through unchanged. */
function unavailable(error: unknown): unknown {
  if (error instanceof RegistryError || !isConnectionError(error)) return error;
  return new RegistryError(
    503,
    'store_unavailable',
    `the registry database is unreachable (${(error as Error).message || (error as { code?: string }).code}); writes are refused until it is back, reads are served from memory`,
  );
}

function toRecord(row: VersionRow): VersionRecord {
  const record: VersionRecord = {
    name: row.name,
    version: row.version,
    packageDigest: row.package_digest,
    manifest: JSON.parse(row.manifest) as VersionRecord['manifest'],
    publishedAt: row.published_at,
    publisher: row.publisher,
    signatures: JSON.parse(row.signatures) as VersionRecord['signatures'],
    provenance: JSON.parse(row.provenance) as VersionRecord['provenance'],
    review: row.review as ReviewStatus,
    revision: Number(row.rev),
  };
  if (row.yanked_at !== null) record.yankedAt = row.yanked_at;
  if (row.revoked_at !== null) record.revoked = { at: row.revoked_at, reason: row.revoked_reason ?? '' };
  if (row.gate !== null && row.gate !== undefined) record.gate = JSON.parse(row.gate) as GateRecord;
  return record;
}
