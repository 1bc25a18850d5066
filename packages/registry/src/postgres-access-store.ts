import pg from 'pg';
import { auditEventOf, auditLimit, auditValuesOf, newTokenRecord, tokenRecordOf } from '@skillport/server';
import type { AccessChange, AccessStore, AuditEvent, AuditQuery, NewToken, StoredPolicyText, TokenEntry, TokenRecord } from '@skillport/server';
import { migrate } from './postgres-schema.js';
import { listenForChanges } from './postgres-listen.js';
import { bump, endPool, isConnectionError, logChange } from './postgres-store.js';
import { redactUrl } from './postgres-url.js';

/**
 * Tokens, the audit log and the policy on PostgreSQL (`--data postgres://…`, ADR 0025), in the registry's database
 * (tables from migration 2), so every replica shares them.
 *
 * - A revocation and a policy change take the registry's revision lock, append to `changes` (kinds `token`, with the
 *   token id, and `policy`) and NOTIFY, like every registry write: each replica's `watch` hears it, reads the
 *   access changes after the last revision it applied, and tells the server which token to look up again. A replica
 *   that missed notifications catches up from the table (after a reconnection, and by a 1 s poll).
 * - Token creation needs no announcement: a token a replica has never seen is looked up at its first use.
 * - Audit events arrive in batches (access/audit.ts) and go in with one multi-row INSERT.
 */
const ACCESS_KINDS = ['token', 'policy'];
const TOKEN_COLUMNS = 'id, hash, user_name, orgs, projects, agent, scopes, description, created_at, expires_at, revoked_at';

export interface PostgresAccessStoreOptions {
  /** Connections in the pool (default 4; the CLI's SKILLPORT_PG_ACCESS_POOL_MAX). */
  poolMax?: number;
  /** Apply pending schema migrations when opening (default true). */
  migrate?: boolean;
  onProblem?: (message: string) => void;
}

export class PostgresAccessStore implements AccessStore {
  readonly location: string;
  readonly pool: pg.Pool;
  readonly #url: string;
  readonly #onProblem: (message: string) => void;
  #closed = false;
  /** The revision when the store was opened: `watch` tells of every access change after it. */
  #openedAt = 0;

  private constructor(url: string, options: PostgresAccessStoreOptions) {
    this.#url = url;
    this.location = redactUrl(url);
    this.#onProblem = options.onProblem ?? (() => {});
    const max = options.poolMax ?? 4;
    this.pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30_000, application_name: 'skillport-access' });
    this.pool.on('error', (error) => this.#onProblem(`access database: idle connection lost (${error.message})`));
  }

  static async open(url: string, options: PostgresAccessStoreOptions = {}): Promise<PostgresAccessStore> {
    const store = new PostgresAccessStore(url, options);
    try {
      const client = await store.pool.connect().catch((error: unknown) => {
        throw unreachable(error);
      });
      const onError = () => {};
      client.on('error', onError);
      try {
        await migrate(client, { apply: options.migrate !== false });
        store.#openedAt = Number((await client.query<{ revision: string }>(`SELECT revision FROM meta WHERE id = 1`)).rows[0]?.revision ?? 0);
      } finally {
        client.removeListener('error', onError);
        client.release();
      }
    } catch (error) {
      await store.pool.end().catch(() => undefined);
      throw error;
    }
    return store;
  }

  async createToken(spec: NewToken): Promise<{ token: string; record: TokenRecord }> {
    const { token, hash, record } = newTokenRecord(spec);
    await this.#insertToken({ record, hash });
    return { token, record };
  }

  async #insertToken({ record, hash }: TokenEntry): Promise<boolean> {
    const result = await this.#query(
      `INSERT INTO access_tokens (${TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING`,
      [
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
      ],
    );
    return result.rowCount !== 0;
  }

  async listTokens(): Promise<TokenRecord[]> {
    return (await this.tokenEntries()).map((entry) => entry.record);
  }

  async tokenEntries(): Promise<TokenEntry[]> {
    const rows = (await this.#query(`SELECT ${TOKEN_COLUMNS} FROM access_tokens ORDER BY created_at, id`)).rows;
    return rows.map((row) => ({ record: tokenRecordOf(row), hash: String(row['hash']) }));
  }

  async importToken(entry: TokenEntry): Promise<boolean> {
    const inserted = await this.#insertToken(entry);
    // A revoked token copied in is announced, so a replica that cached it under the same id looks it up again.
    if (inserted && entry.record.revokedAt !== undefined)
      await this.#transaction(async (client) => logChange(client, await bump(client), 'token', entry.record.id, null));
    return inserted;
  }

  async revokeToken(id: string): Promise<boolean> {
    return this.#transaction(async (client) => {
      const rev = await bump(client);
      const updated = await client.query(`UPDATE access_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, [new Date().toISOString(), id]);
      if (updated.rowCount === 0) return false;
      await logChange(client, rev, 'token', id, null);
      return true;
    });
  }

  async token(id: string): Promise<TokenRecord | undefined> {
    return (await this.tokenEntry(id))?.record;
  }

  async tokenEntry(id: string): Promise<TokenEntry | undefined> {
    const row = (await this.#query(`SELECT ${TOKEN_COLUMNS} FROM access_tokens WHERE id = $1`, [id])).rows[0];
    return row === undefined ? undefined : { record: tokenRecordOf(row), hash: String(row['hash']) };
  }

  async appendAudit(events: readonly AuditEvent[]): Promise<void> {
    if (events.length === 0) return;
    const columns: unknown[][] = Array.from({ length: 14 }, () => []);
    for (const e of events) {
      auditValuesOf(e).forEach((value, i) => columns[i]!.push(value));
    }
    await this.#query(
      `INSERT INTO audit_events (time, principal, user_name, token_id, action, surface, skill, uri, version, digest, file, outcome, detail, count)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::int[])`,
      columns,
    );
  }

  async pruneAudit(time: string, limit: number): Promise<number> {
    // Oldest first by the time index, at most `limit` rows per statement: a short lock, however large the backlog.
    const result = await this.#query(`DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE time < $1 ORDER BY time LIMIT $2)`, [
      time,
      limit,
    ]);
    return result.rowCount ?? 0;
  }

  async auditBytes(): Promise<number> {
    const row = (await this.#query<{ bytes: string }>(`SELECT pg_total_relation_size('audit_events') AS bytes`)).rows[0];
    return Number(row?.bytes ?? 0);
  }

  async queryAudit(query: AuditQuery = {}): Promise<AuditEvent[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.since !== undefined) {
      params.push(query.since);
      where.push(`time >= $${params.length}`);
    }
    if (query.user !== undefined) {
      params.push(query.user);
      where.push(`user_name = $${params.length}`);
    }
    if (query.skill !== undefined) {
      params.push(query.skill);
      where.push(`(skill = $${params.length} OR uri = $${params.length})`);
    }
    params.push(auditLimit(query));
    const rows = (
      await this.#query(`SELECT * FROM audit_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${params.length}`, params)
    ).rows;
    return rows.reverse().map(auditEventOf);
  }

  async auditAfter(position: number, limit: number): Promise<Array<{ position: number; event: AuditEvent }>> {
    const rows = (await this.#query(`SELECT * FROM audit_events WHERE id > $1 ORDER BY id LIMIT $2`, [position, limit])).rows;
    return rows.map((row) => ({ position: Number(row['id']), event: auditEventOf(row) }));
  }

  async policy(): Promise<StoredPolicyText | undefined> {
    const row = (
      await this.#query<{ text: string; source_digest: string | null; updated_at: string }>(
        `SELECT text, source_digest, updated_at FROM access_policy WHERE id = 1`,
      )
    ).rows[0];
    return row === undefined
      ? undefined
      : { text: row.text, ...(row.source_digest !== null ? { sourceDigest: row.source_digest } : {}), updatedAt: row.updated_at };
  }

  async savePolicy(text: string, sourceDigest?: string): Promise<StoredPolicyText> {
    const updatedAt = new Date().toISOString();
    await this.#transaction(async (client) => {
      const rev = await bump(client);
      await client.query(
        `INSERT INTO access_policy (id, text, source_digest, updated_at) VALUES (1, $1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET text = excluded.text, source_digest = excluded.source_digest, updated_at = excluded.updated_at`,
        [text, sourceDigest ?? null, updatedAt],
      );
      await logChange(client, rev, 'policy', '', null);
    });
    return { text, ...(sourceDigest !== undefined ? { sourceDigest } : {}), updatedAt };
  }

  /**
   * Tells `onChange` of every token and policy change committed after the revision current when it starts: woken
   * by NOTIFY, caught up after a reconnection, and polled every second as a safety net. Changes are read from the
   * table in revision order, so none is skipped however the wake-ups arrive.
   */
  watch(onChange: (change: AccessChange) => void, onState?: (connected: boolean) => void): () => void {
    let applied = this.#openedAt;
    let running: Promise<void> = Promise.resolve();
    let stopped = false;
    const catchUp = () => {
      running = running.then(async () => {
        if (stopped) return;
        try {
          // One statement, one snapshot: every change up to the revision read is committed (writers commit in revision order).
          const rows = (
            await this.pool.query<{ revision: string; id: string | null; kind: string | null; name: string | null }>(
              `SELECT m.revision, c.id, c.kind, c.name FROM meta m
               LEFT JOIN changes c ON c.id > $1 AND c.id <= m.revision AND c.kind = ANY($2)
               WHERE m.id = 1 ORDER BY c.id`,
              [applied, ACCESS_KINDS],
            )
          ).rows;
          const revision = Number(rows[0]?.revision ?? 0);
          for (const row of rows) {
            if (row.kind === 'token') onChange({ kind: 'token', id: row.name ?? '' });
            else if (row.kind === 'policy') onChange({ kind: 'policy' });
          }
          applied = Math.max(applied, revision);
        } catch {
          // The database is away; the listener's reconnection (or the next poll) catches up.
        }
      });
    };
    const unlisten = listenForChanges(this.#url, catchUp, onState, this.#onProblem, 'access database');
    const timer = setInterval(catchUp, 1000);
    timer.unref();
    return () => {
      stopped = true;
      clearInterval(timer);
      unlisten();
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await endPool(this.pool);
  }

  async #query<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(sql, params);
    } catch (error) {
      throw unreachable(error);
    }
  }

  async #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw unreachable(error);
    }
    let broken: Error | undefined;
    // A checked-out client has no pool listener: a connection the server ends would emit an unhandled 'error' and
    // kill the process (as in postgres-store.ts). Keep it, and drop the client.
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      if (isConnectionError(error)) broken = error as Error;
      else if (broken === undefined) await client.query('ROLLBACK').catch(() => undefined);
      throw unreachable(broken !== undefined && !isConnectionError(error) ? broken : error);
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }
}

/** A lost database said plainly (the server answers 503 for a token it has not seen; the CLI prints it). */
function unreachable(error: unknown): unknown {
  if (!isConnectionError(error)) return error;
  const failure = new Error(`the access database is unreachable (${(error as Error).message || (error as { code?: string }).code})`);
  (failure as Error & { code: string }).code = 'store_unavailable';
  return failure;
}
