import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { packageDigest, sha256Digest } from '@skillport/core';
import { BlobDirectory } from './blob-dir.js';
import { LATEST, RegistryError } from './model.js';
import type { GateRecord, NewVersion, ReviewStatus, TagRecord, VersionRecord } from './model.js';
import { chooseLatest } from './store.js';
import type { CommitResult, RegistryStore, StoreCheck } from './store.js';

/**
 * The embedded store: metadata in SQLite (`DIR/registry.db`, WAL, synchronous=FULL) and blobs as files
 * (`blob-dir.ts`). Blobs are made durable before the transaction that references them commits, so a committed
 * version never points at a missing blob. better-sqlite3 is synchronous; the async interface is for other stores.
 */
// 2: versions.gate (the gate's scan and decision, JSON; ADR 0230).
const SCHEMA_VERSION = 2;

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
  rev: number;
}

export class SqliteStore implements RegistryStore {
  readonly location: string;
  readonly blobs: BlobDirectory;
  readonly #db: Database.Database;
  readonly #stmt: ReturnType<SqliteStore['prepare']>;

  /**
   * Opens (creating when missing) the store in `dir`, removing temporary blob files that writers killed mid-write
   * left behind (`keepTemps`: leave them, for `store check`).
   */
  static open(dir: string, options: { keepTemps?: boolean } = {}): SqliteStore {
    return new SqliteStore(dir, options);
  }

  private constructor(dir: string, options: { keepTemps?: boolean }) {
    mkdirSync(dir, { recursive: true });
    this.location = dir;
    this.blobs = new BlobDirectory(dir, options);
    let db: Database.Database;
    try {
      db = new Database(join(dir, 'registry.db'));
    } catch (error) {
      throw new RegistryError(500, 'store_unavailable', `cannot open the registry database in ${dir}: ${(error as Error).message}`);
    }
    this.#db = db;
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    this.#migrate();
    this.#stmt = this.prepare();
  }

  #migrate(): void {
    const db = this.#db;
    db.exec(`
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS versions (
        name TEXT NOT NULL,
        version TEXT NOT NULL,
        package_digest TEXT NOT NULL,
        manifest TEXT NOT NULL,
        published_at TEXT NOT NULL,
        publisher TEXT NOT NULL,
        signatures TEXT NOT NULL,
        provenance TEXT NOT NULL,
        review TEXT NOT NULL,
        yanked_at TEXT,
        revoked_at TEXT,
        revoked_reason TEXT,
        rev INTEGER NOT NULL,
        PRIMARY KEY (name, version)
      );
      CREATE INDEX IF NOT EXISTS versions_rev ON versions (rev);
      CREATE INDEX IF NOT EXISTS versions_digest ON versions (package_digest);
      CREATE TABLE IF NOT EXISTS tags (
        name TEXT NOT NULL,
        tag TEXT NOT NULL,
        version TEXT NOT NULL,
        PRIMARY KEY (name, tag),
        FOREIGN KEY (name, version) REFERENCES versions (name, version)
      );
      CREATE TABLE IF NOT EXISTS version_blobs (
        name TEXT NOT NULL,
        version TEXT NOT NULL,
        digest TEXT NOT NULL,
        size INTEGER NOT NULL,
        PRIMARY KEY (name, version, digest),
        FOREIGN KEY (name, version) REFERENCES versions (name, version)
      );
      CREATE INDEX IF NOT EXISTS version_blobs_digest ON version_blobs (digest);
      INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', '${SCHEMA_VERSION}'), ('revision', '0');
    `);
    const schema = Number((db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get() as { value: string }).value);
    if (schema > SCHEMA_VERSION)
      throw new RegistryError(500, 'store_too_new', `the registry in ${this.location} was written by a newer skillport (schema ${schema})`);
    // Schema 1 → 2: a column for the gate's record; older versions keep none (they were published before the gate).
    const columns = (db.prepare(`PRAGMA table_info(versions)`).all() as Array<{ name: string }>).map((column) => column.name);
    if (!columns.includes('gate')) {
      db.transaction(() => {
        db.exec(`ALTER TABLE versions ADD COLUMN gate TEXT`);
        db.prepare(`UPDATE meta SET value = ? WHERE key = 'schema'`).run(String(SCHEMA_VERSION));
      }).immediate();
    } else if (schema < SCHEMA_VERSION) db.prepare(`UPDATE meta SET value = ? WHERE key = 'schema'`).run(String(SCHEMA_VERSION));
  }

  private prepare() {
    const db = this.#db;
    return {
      revision: db.prepare(`SELECT CAST(value AS INTEGER) AS rev FROM meta WHERE key = 'revision'`),
      bump: db.prepare(`UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'revision' RETURNING CAST(value AS INTEGER) AS rev`),
      get: db.prepare(`SELECT * FROM versions WHERE name = ? AND version = ?`),
      list: db.prepare(`SELECT * FROM versions WHERE name = ? ORDER BY published_at, rev`),
      names: db.prepare(`SELECT DISTINCT name FROM versions ORDER BY name`),
      insert: db.prepare(`INSERT INTO versions (name, version, package_digest, manifest, published_at, publisher, signatures, provenance, review, gate, rev)
        VALUES (@name, @version, @package_digest, @manifest, @published_at, @publisher, @signatures, @provenance, @review, @gate, @rev)`),
      insertBlob: db.prepare(`INSERT OR IGNORE INTO version_blobs (name, version, digest, size) VALUES (?, ?, ?, ?)`),
      tags: db.prepare(`SELECT name, tag, version FROM tags WHERE name = ? ORDER BY tag`),
      allTags: db.prepare(`SELECT name, tag, version FROM tags ORDER BY name, tag`),
      setTag: db.prepare(`INSERT INTO tags (name, tag, version) VALUES (?, ?, ?) ON CONFLICT (name, tag) DO UPDATE SET version = excluded.version`),
      removeTag: db.prepare(`DELETE FROM tags WHERE name = ? AND tag = ?`),
      tagsOn: db.prepare(`SELECT tag FROM tags WHERE name = ? AND version = ?`),
      removeTagsOn: db.prepare(`DELETE FROM tags WHERE name = ? AND version = ?`),
      yank: db.prepare(`UPDATE versions SET yanked_at = COALESCE(yanked_at, ?), rev = ? WHERE name = ? AND version = ?`),
      unyank: db.prepare(`UPDATE versions SET yanked_at = NULL, rev = ? WHERE name = ? AND version = ?`),
      revoke: db.prepare(`UPDATE versions SET revoked_at = ?, revoked_reason = ?, rev = ? WHERE name = ? AND version = ?`),
      review: db.prepare(`UPDATE versions SET review = ?, rev = ? WHERE name = ? AND version = ?`),
      decide: db.prepare(`UPDATE versions SET review = ?, gate = ?, rev = ? WHERE name = ? AND version = ?`),
      since: db.prepare(`SELECT * FROM versions WHERE rev > ? ORDER BY rev`),
      everyVersion: db.prepare(`SELECT * FROM versions ORDER BY name, version`),
      everyBlob: db.prepare(`SELECT digest, MIN(size) AS size, MAX(size) AS max_size FROM version_blobs GROUP BY digest`),
    };
  }

  putBlob(digest: string, bytes: Uint8Array): Promise<void> {
    return this.blobs.put(digest, bytes);
  }

  async hasBlob(digest: string): Promise<boolean> {
    return this.blobs.has(digest);
  }

  readBlob(digest: string, size: number): Promise<Uint8Array> {
    return this.blobs.read(digest, size);
  }

  async commitVersion(input: NewVersion, tags: readonly string[]): Promise<CommitResult> {
    // Checked before the transaction: a version may only reference blobs that are durably stored.
    for (const file of input.manifest.files) {
      const size = this.blobs.sizeOf(file.digest);
      if (size !== file.size) throw new RegistryError(500, 'blob_missing', `blob ${file.digest} for ${file.path} is not stored`);
    }
    const run = this.#db.transaction((): CommitResult => {
      const existing = this.#stmt.get.get(input.name, input.version) as VersionRow | undefined;
      if (existing) {
        const version = toRecord(existing);
        return { status: existing.package_digest === input.packageDigest ? 'exists' : 'conflict', version };
      }
      const rev = (this.#stmt.bump.get() as { rev: number }).rev;
      this.#stmt.insert.run({
        name: input.name,
        version: input.version,
        package_digest: input.packageDigest,
        manifest: JSON.stringify(input.manifest),
        published_at: input.publishedAt,
        publisher: input.publisher,
        signatures: JSON.stringify(input.signatures),
        provenance: JSON.stringify(input.provenance),
        review: input.review,
        gate: input.gate === undefined ? null : JSON.stringify(input.gate),
        rev,
      });
      for (const file of input.manifest.files) this.#stmt.insertBlob.run(input.name, input.version, file.digest, file.size);
      for (const tag of tags) this.#stmt.setTag.run(input.name, tag, input.version);
      return { status: 'created', version: toRecord(this.#stmt.get.get(input.name, input.version) as VersionRow) };
    });
    return run.immediate();
  }

  async getVersion(name: string, version: string): Promise<VersionRecord | undefined> {
    const row = this.#stmt.get.get(name, version) as VersionRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  async listVersions(name: string): Promise<VersionRecord[]> {
    return (this.#stmt.list.all(name) as VersionRow[]).map(toRecord);
  }

  async listNames(): Promise<string[]> {
    return (this.#stmt.names.all() as Array<{ name: string }>).map((row) => row.name);
  }

  async tags(name: string): Promise<TagRecord[]> {
    return this.#stmt.tags.all(name) as TagRecord[];
  }

  async setTag(name: string, tag: string, version: string): Promise<void> {
    this.#db
      .transaction(() => {
        const row = this.#stmt.get.get(name, version) as VersionRow | undefined;
        if (!row) throw new RegistryError(404, 'version_not_found', `${name}@${version} does not exist`);
        if (row.revoked_at !== null)
          throw new RegistryError(409, 'version_revoked', `${name}@${version} is revoked (${row.revoked_reason}); it cannot be tagged`);
        if (row.yanked_at !== null) throw new RegistryError(409, 'version_yanked', `${name}@${version} is yanked; it cannot be tagged`);
        this.#stmt.setTag.run(name, tag, version);
        this.#stmt.bump.get();
      })
      .immediate();
  }

  async removeTag(name: string, tag: string): Promise<boolean> {
    return this.#db
      .transaction(() => {
        const removed = this.#stmt.removeTag.run(name, tag).changes > 0;
        if (removed) this.#stmt.bump.get();
        return removed;
      })
      .immediate();
  }

  async yank(name: string, version: string, at: string): Promise<VersionRecord> {
    return this.#withdraw(name, version, (rev) => this.#stmt.yank.run(at, rev, name, version));
  }

  async unyank(name: string, version: string): Promise<VersionRecord> {
    return this.#db
      .transaction(() => {
        const row = this.#stmt.get.get(name, version) as VersionRow | undefined;
        if (!row) throw new RegistryError(404, 'version_not_found', `${name}@${version} does not exist`);
        if (row.revoked_at !== null) throw new RegistryError(409, 'version_revoked', `${name}@${version} is revoked; a revoked version cannot be restored`);
        if (row.yanked_at === null) return toRecord(row);
        const rev = (this.#stmt.bump.get() as { rev: number }).rev;
        this.#stmt.unyank.run(rev, name, version);
        const latest = (this.#stmt.tags.all(name) as Array<{ tag: string; version: string }>).find((tag) => tag.tag === LATEST);
        const best = chooseLatest((this.#stmt.list.all(name) as VersionRow[]).map(toRecord));
        if (latest === undefined || best === version) this.#stmt.setTag.run(name, LATEST, best ?? version);
        return toRecord(this.#stmt.get.get(name, version) as VersionRow);
      })
      .immediate();
  }

  async revoke(name: string, version: string, reason: string, at: string): Promise<VersionRecord> {
    return this.#withdraw(name, version, (rev) => this.#stmt.revoke.run(at, reason, rev, name, version));
  }

  /** Marks a version withdrawn, drops its tags, and re-points `latest` when it was on it: one transaction. */
  #withdraw(name: string, version: string, mark: (rev: number) => void): VersionRecord {
    return this.#db
      .transaction(() => {
        if (!this.#stmt.get.get(name, version)) throw new RegistryError(404, 'version_not_found', `${name}@${version} does not exist`);
        const rev = (this.#stmt.bump.get() as { rev: number }).rev;
        mark(rev);
        const tags = (this.#stmt.tagsOn.all(name, version) as Array<{ tag: string }>).map((row) => row.tag);
        this.#stmt.removeTagsOn.run(name, version);
        if (tags.includes(LATEST)) {
          const next = chooseLatest((this.#stmt.list.all(name) as VersionRow[]).map(toRecord));
          if (next !== undefined) this.#stmt.setTag.run(name, LATEST, next);
        }
        return toRecord(this.#stmt.get.get(name, version) as VersionRow);
      })
      .immediate();
  }

  async setReview(name: string, version: string, review: ReviewStatus): Promise<VersionRecord> {
    return this.#db
      .transaction(() => {
        const rev = (this.#stmt.bump.get() as { rev: number }).rev;
        if (this.#stmt.review.run(review, rev, name, version).changes === 0)
          throw new RegistryError(404, 'version_not_found', `${name}@${version} does not exist`);
        return toRecord(this.#stmt.get.get(name, version) as VersionRow);
      })
      .immediate();
  }

  async decideReview(name: string, version: string, review: ReviewStatus, gate: GateRecord, tags: readonly string[]): Promise<VersionRecord> {
    return this.#db
      .transaction(() => {
        const row = this.#stmt.get.get(name, version) as VersionRow | undefined;
        if (!row) throw new RegistryError(404, 'version_not_found', `${name}@${version} does not exist`);
        const rev = (this.#stmt.bump.get() as { rev: number }).rev;
        this.#stmt.decide.run(review, JSON.stringify(gate), rev, name, version);
        if (review === 'rejected') {
          // A rejected version is never served: its tags go, and `latest` moves to the best version left.
          const onIt = (this.#stmt.tagsOn.all(name, version) as Array<{ tag: string }>).map((tag) => tag.tag);
          this.#stmt.removeTagsOn.run(name, version);
          const next = onIt.includes(LATEST) ? chooseLatest((this.#stmt.list.all(name) as VersionRow[]).map(toRecord)) : undefined;
          if (next !== undefined) this.#stmt.setTag.run(name, LATEST, next);
        } else if (row.revoked_at === null && row.yanked_at === null) for (const tag of tags) this.#stmt.setTag.run(name, tag, version);
        return toRecord(this.#stmt.get.get(name, version) as VersionRow);
      })
      .immediate();
  }

  async revision(): Promise<number> {
    return (this.#stmt.revision.get() as { rev: number }).rev;
  }

  /** The durability settings in force on this connection (journal mode, synchronous level), for checks and tests. */
  durability(): { journalMode: string; synchronous: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA' } {
    const journalMode = String(this.#db.pragma('journal_mode', { simple: true }));
    const level = Number(this.#db.pragma('synchronous', { simple: true }));
    return { journalMode, synchronous: (['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const)[level] ?? 'OFF' };
  }

  async changesSince(since: number): Promise<{ revision: number; versions: VersionRecord[]; tags: TagRecord[] }> {
    // One read transaction, so the three answers describe the same moment.
    return this.#db.transaction(() => ({
      revision: (this.#stmt.revision.get() as { rev: number }).rev,
      versions: (this.#stmt.since.all(since) as VersionRow[]).map(toRecord),
      tags: this.#stmt.allTags.all() as TagRecord[],
    }))();
  }

  async check(options: { verifyBlobs?: boolean } = {}): Promise<StoreCheck> {
    const problems: string[] = [];
    const integrity = this.#db.pragma('quick_check', { simple: true });
    if (integrity !== 'ok') problems.push(`SQLite quick_check: ${String(integrity)}`);
    const rows = this.#stmt.everyVersion.all() as VersionRow[];
    const tags = this.#stmt.allTags.all() as TagRecord[];
    const referenced = new Map<string, number>();
    for (const row of rows) {
      const record = toRecord(row);
      const recomputed = packageDigest(record.manifest.files);
      if (recomputed !== record.packageDigest)
        problems.push(`${row.name}@${row.version}: package digest ${row.package_digest} does not match its files (${recomputed})`);
      for (const file of record.manifest.files) referenced.set(file.digest, file.size);
    }
    for (const row of this.#stmt.everyBlob.all() as Array<{ digest: string; size: number; max_size: number }>) {
      if (!referenced.has(row.digest)) problems.push(`blob ${row.digest} is listed for a version whose manifest does not name it`);
    }
    for (const tag of tags) {
      const row = rows.find((candidate) => candidate.name === tag.name && candidate.version === tag.version);
      if (!row) problems.push(`tag ${tag.name}:${tag.tag} points at a missing version ${tag.version}`);
      else if (row.revoked_at !== null || row.yanked_at !== null) problems.push(`tag ${tag.name}:${tag.tag} points at withdrawn version ${tag.version}`);
    }
    for (const [digest, size] of referenced) {
      const actual = this.blobs.sizeOf(digest);
      if (actual === undefined) problems.push(`blob ${digest} is missing`);
      else if (actual !== size) problems.push(`blob ${digest} is ${actual} bytes, expected ${size}`);
      else if (options.verifyBlobs && sha256Digest(readFileSync(this.blobs.pathOf(digest))) !== digest)
        problems.push(`blob ${digest} does not match its digest`);
    }
    const onDisk = this.blobs.list();
    const orphanBlobs = onDisk.filter((digest) => !referenced.has(digest));
    return {
      consistent: problems.length === 0,
      versions: rows.length,
      tags: tags.length,
      blobs: onDisk.length,
      problems,
      orphanBlobs,
      tempFiles: this.blobs.tempFiles(),
    };
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
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
    revision: row.rev,
  };
  if (row.yanked_at !== null) record.yankedAt = row.yanked_at;
  if (row.revoked_at !== null) record.revoked = { at: row.revoked_at, reason: row.revoked_reason ?? '' };
  if (row.gate !== null && row.gate !== undefined) record.gate = JSON.parse(row.gate) as GateRecord;
  return record;
}
