import { mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database as DatabaseType, Statement } from 'better-sqlite3';
import { AUDIT_INSERT } from './audit-insert.js';
import { AuditWriter, AuditWriterGone } from './audit-writer.js';
import { ACCESS_DB, auditEventOf, auditLimit, auditValuesOf, newTokenRecord, tokenRecordOf } from './store.js';
import type { AccessChange, AccessStore, AuditEvent, AuditQuery, NewToken, StoredPolicyText, TokenEntry, TokenRecord } from './store.js';

/**
 * The embedded access store: `DIR/access.db` (SQLite, WAL), apart from the registry's metadata (ADR 0030). Other
 * processes (`skillport token …`) write the same file; `watch` notices their commits by polling `PRAGMA
 * data_version` every 250 ms and says "something changed" (`all`), since SQLite does not say what.
 */

/**
 * The native SQLite module, loaded when a store is first opened: a server without access data (a plain `serve`)
 * loads no native module at all (tested in lazy-native.test.ts and serve-start-loads.test.ts).
 */
let sqlite: typeof BetterSqlite3 | undefined;
/** The access store's SQLite page cache, KiB (see the constructor). */
export const ACCESS_CACHE_KIB = 2048;
function nativeSqlite(): typeof BetterSqlite3 {
  sqlite ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return sqlite;
}
/**
 * 2 added the policy table (used by the contract suite and `store copy`; a folder server keeps its policy in the
 * --policy file); 3 the audit rows' count (repeats of a refusal folded into one row).
 */
const SCHEMA_VERSION = 3;
const TOKEN_COLUMNS = 'id, hash, user AS user_name, orgs, projects, agent, scopes, description, created_at, expires_at, revoked_at';

export class SqliteAccessStore implements AccessStore {
  readonly db: DatabaseType;
  readonly #byId: Statement<[string], Record<string, unknown>>;
  readonly #insertAudit: Statement<unknown[]>;
  readonly #dataVersion: Statement<[], { data_version: number }>;
  #fingerprint: Statement<[], unknown> | undefined;
  /** The audit inserts' own thread and connection, started at the first append; null once it cannot be used. */
  #writer: AuditWriter | null | undefined;

  private constructor(readonly location: string) {
    this.db = new (nativeSqlite())(location, { timeout: 5000 });
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // SQLite's page cache is native memory the process keeps up to its cap, and better-sqlite3 builds SQLite with
    // a 16 MB cap per connection. Here it filled with the audit log's pages (a row and three index entries per
    // read): a server that had answered a few thousand reads kept 15 MB more for good (docs/reliability.md,
    // "Memory"). What a read needs (a token by id, the right-hand edges of the audit's b-trees) fits in SQLite's
    // own default of 2 MiB; anything else comes back from the operating system's file cache.
    this.db.pragma(`cache_size = -${ACCESS_CACHE_KIB}`);
    this.#migrate();
    this.#byId = this.db.prepare(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE id = ?`);
    this.#insertAudit = this.db.prepare(AUDIT_INSERT);
    this.#dataVersion = this.db.prepare('PRAGMA data_version');
  }

  /** Opens (creating when missing) `DIR/access.db`. */
  static open(dataDir: string): SqliteAccessStore {
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, ACCESS_DB);
    try {
      return new SqliteAccessStore(path);
    } catch (error) {
      throw new Error(`${path}: ${(error as Error).message}`);
    }
  }

  #migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw new Error(`${this.location} was written by a newer skillport (schema ${version}); upgrade skillport`);
    if (version === SCHEMA_VERSION) return;
    if (version === 2) {
      this.db.exec(`ALTER TABLE audit ADD COLUMN count INTEGER; PRAGMA user_version = ${SCHEMA_VERSION};`);
      return;
    }
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS tokens (
        id TEXT PRIMARY KEY,
        hash TEXT NOT NULL,
        user TEXT NOT NULL,
        orgs TEXT NOT NULL,
        projects TEXT NOT NULL,
        agent TEXT,
        scopes TEXT NOT NULL,
        description TEXT,
        created_at TEXT NOT NULL,
        expires_at TEXT,
        revoked_at TEXT
      );
      CREATE TABLE IF NOT EXISTS audit (
        id INTEGER PRIMARY KEY,
        time TEXT NOT NULL,
        principal TEXT NOT NULL,
        user TEXT,
        token_id TEXT,
        action TEXT NOT NULL,
        surface TEXT NOT NULL,
        skill TEXT,
        uri TEXT,
        version TEXT,
        digest TEXT,
        file TEXT,
        outcome TEXT NOT NULL,
        detail TEXT,
        count INTEGER
      );
      CREATE INDEX IF NOT EXISTS audit_time ON audit (time);
      CREATE INDEX IF NOT EXISTS audit_user ON audit (user, time);
      CREATE INDEX IF NOT EXISTS audit_skill ON audit (skill, time);
      CREATE TABLE IF NOT EXISTS policy (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        text TEXT NOT NULL,
        source_digest TEXT,
        updated_at TEXT NOT NULL
      );
      PRAGMA user_version = ${SCHEMA_VERSION};
    `);
  }

  async createToken(spec: NewToken): Promise<{ token: string; record: TokenRecord }> {
    const { token, hash, record } = newTokenRecord(spec);
    this.#insertToken({ record, hash });
    return { token, record };
  }

  #insertToken({ record, hash }: TokenEntry, orIgnore = false): boolean {
    const result = this.db
      .prepare(
        `INSERT ${orIgnore ? 'OR IGNORE ' : ''}INTO tokens (id, hash, user, orgs, projects, agent, scopes, description, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.id,
        hash,
        record.user,
        JSON.stringify(record.orgs),
        JSON.stringify(record.projects),
        record.agent ?? null,
        JSON.stringify(record.scopes),
        record.description ?? null,
        record.createdAt,
        record.expiresAt ?? null,
        record.revokedAt ?? null,
      );
    return result.changes > 0;
  }

  async listTokens(): Promise<TokenRecord[]> {
    return (await this.tokenEntries()).map((entry) => entry.record);
  }

  async tokenEntries(): Promise<TokenEntry[]> {
    return (this.db.prepare(`SELECT ${TOKEN_COLUMNS} FROM tokens ORDER BY created_at, id`).all() as Array<Record<string, unknown>>).map((row) => ({
      record: tokenRecordOf(row),
      hash: String(row['hash']),
    }));
  }

  async importToken(entry: TokenEntry): Promise<boolean> {
    return this.#insertToken(entry, true);
  }

  async revokeToken(id: string): Promise<boolean> {
    const result = this.db.prepare('UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(new Date().toISOString(), id);
    return result.changes > 0;
  }

  async token(id: string): Promise<TokenRecord | undefined> {
    return (await this.tokenEntry(id))?.record;
  }

  async tokenEntry(id: string): Promise<TokenEntry | undefined> {
    const row = this.#byId.get(id);
    return row ? { record: tokenRecordOf(row), hash: String(row['hash']) } : undefined;
  }

  async appendAudit(events: readonly AuditEvent[]): Promise<void> {
    if (events.length === 0) return;
    const rows = events.map(auditValuesOf);
    const writer = this.#auditWriter();
    if (writer !== undefined) {
      try {
        await writer.append(rows);
        return;
      } catch (error) {
        if (!(error instanceof AuditWriterGone)) throw error;
        this.#writer = null; // it stopped: written here, as without it, unless it committed them first
        if (this.#committedBy(error)) return;
      }
    }
    this.db.transaction(() => {
      for (const row of rows) this.#insertAudit.run(...row);
    })();
  }

  /** Whether a writer thread that stopped had committed this batch (its answer died with it). */
  #committedBy(gone: AuditWriterGone): boolean {
    if (gone.seq === 0) return false;
    try {
      const row = this.db.prepare('SELECT seq FROM audit_writes WHERE writer = ?').get(gone.writer) as { seq: number } | undefined;
      return row !== undefined && row.seq >= gone.seq;
    } catch {
      return false; // no table: the thread never got as far as a commit
    }
  }

  #auditWriter(): AuditWriter | undefined {
    if (this.#writer === undefined) {
      try {
        this.#writer = this.db.open ? new AuditWriter(this.location) : null;
      } catch {
        this.#writer = null;
      }
    }
    return this.#writer ?? undefined;
  }

  async queryAudit(query: AuditQuery = {}): Promise<AuditEvent[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.since !== undefined) {
      where.push('time >= ?');
      params.push(query.since);
    }
    if (query.user !== undefined) {
      where.push('user = ?');
      params.push(query.user);
    }
    if (query.skill !== undefined) {
      where.push('(skill = ? OR uri = ?)');
      params.push(query.skill, query.skill);
    }
    const sql = `SELECT *, user AS user_name FROM audit ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
    params.push(auditLimit(query));
    const rows = this.db.prepare(sql).all(...params) as Array<Record<string, unknown>>;
    return rows.reverse().map(auditEventOf);
  }

  async pruneAudit(time: string, limit: number): Promise<number> {
    // By the time index, oldest first: each statement touches at most `limit` rows.
    return this.db.prepare('DELETE FROM audit WHERE id IN (SELECT id FROM audit WHERE time < ? ORDER BY time LIMIT ?)').run(time, limit).changes;
  }

  async auditBytes(): Promise<number> {
    // The file holds tokens too, but they are a few rows: the audit log is what grows. Pages freed by pruning are
    // reused, so the file stops growing rather than shrinking.
    const pages = this.db.pragma('page_count', { simple: true }) as number;
    const size = this.db.pragma('page_size', { simple: true }) as number;
    let wal = 0;
    try {
      wal = statSync(`${this.location}-wal`).size;
    } catch {
      // no write-ahead log at the moment
    }
    return pages * size + wal;
  }

  async auditAfter(position: number, limit: number): Promise<Array<{ position: number; event: AuditEvent }>> {
    const rows = this.db.prepare('SELECT *, user AS user_name FROM audit WHERE id > ? ORDER BY id LIMIT ?').all(position, limit) as Array<
      Record<string, unknown>
    >;
    return rows.map((row) => ({ position: Number(row['id']), event: auditEventOf(row) }));
  }

  async policy(): Promise<StoredPolicyText | undefined> {
    const row = this.db.prepare('SELECT text, source_digest, updated_at FROM policy WHERE id = 1').get() as Record<string, string | null> | undefined;
    return row === undefined
      ? undefined
      : { text: row['text']!, ...(row['source_digest'] !== null ? { sourceDigest: row['source_digest']! } : {}), updatedAt: row['updated_at']! };
  }

  async savePolicy(text: string, sourceDigest?: string): Promise<StoredPolicyText> {
    const updatedAt = new Date().toISOString();
    this.db
      .prepare(
        'INSERT INTO policy (id, text, source_digest, updated_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET text = excluded.text, source_digest = excluded.source_digest, updated_at = excluded.updated_at',
      )
      .run(text, sourceDigest ?? null, updatedAt);
    return { text, ...(sourceDigest !== undefined ? { sourceDigest } : {}), updatedAt };
  }

  /** Changes when another connection (another process) commits. */
  dataVersion(): number {
    return this.#dataVersion.get()!.data_version;
  }

  changeStamp(): number {
    return this.dataVersion();
  }

  watch(onChange: (change: AccessChange) => void, onState?: (connected: boolean) => void): () => void {
    let seen = this.dataVersion();
    let access = this.#accessFingerprint();
    onState?.(true);
    const timer = setInterval(() => {
      try {
        const version = this.dataVersion();
        if (version !== seen) {
          seen = version;
          // With the audit thread, its commits change data_version too, and they may land just before their answer
          // does: then only a change to the tokens or the policy (what 'all' reloads) counts. Without it, any commit.
          const now = this.#accessFingerprint();
          const same = now === access;
          access = now;
          if (same && this.#writer != null) return;
          onChange({ kind: 'all' });
        }
      } catch {
        // a closed store: nothing to watch
      }
    }, 250);
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * What a token or policy change alters: tokens made (imported), tokens revoked, the policy's time of update; the
   * store has no other way to change them.
   */
  #accessFingerprint(): string {
    // Prepared once, at the first watch: it is asked at every commit another connection (the audit thread) makes.
    this.#fingerprint ??= this.db.prepare(
      'SELECT (SELECT count(*) FROM tokens) AS made, (SELECT count(revoked_at) FROM tokens) AS revoked, (SELECT max(rowid) FROM tokens) AS last, (SELECT updated_at FROM policy WHERE id = 1) AS policy',
    );
    const row = this.#fingerprint.get() as Record<string, unknown>;
    return `${String(row['made'])}:${String(row['revoked'])}:${String(row['last'])}:${String(row['policy'])}`;
  }

  async close(): Promise<void> {
    const writer = this.#writer;
    this.#writer = null;
    await writer?.close();
    if (this.db.open) this.db.close();
  }
}
