import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database as DatabaseType, Statement } from 'better-sqlite3';
import { SCOPES, checkSubjectName } from './principal.js';
import type { Principal, Scope } from './principal.js';

/**
 * Access data: API tokens and the audit log, in `DATA_DIR/access.db` (SQLite, WAL), apart from the registry's
 * metadata (ADR 0030). Only a token's sha256 is stored; the token itself is shown once, when it is created.
 * Tokens are looked up at every request, so a new or revoked token takes effect at once, also when another process
 * (`skillport token ...`) changed it.
 */
export const ACCESS_DB = 'access.db';

/**
 * The native SQLite module, loaded when a store is first opened: a server without access data (a plain `serve`)
 * loads no native module at all (tested in access-lazy.test.ts).
 */
let sqlite: typeof BetterSqlite3 | undefined;
function nativeSqlite(): typeof BetterSqlite3 {
  sqlite ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return sqlite;
}
const SCHEMA_VERSION = 1;

export interface TokenRecord {
  id: string;
  user: string;
  orgs: string[];
  projects: string[];
  agent?: string;
  scopes: Scope[];
  description?: string;
  createdAt: string;
  expiresAt?: string;
  revokedAt?: string;
}

export interface NewToken {
  user: string;
  orgs?: string[];
  projects?: string[];
  agent?: string;
  scopes?: Scope[];
  description?: string;
  expiresAt?: Date;
}

export interface AuditEvent {
  time: string;
  principal: string;
  user?: string | undefined;
  tokenId?: string | undefined;
  /** `activate` (SKILL.md loaded as instructions) or `read` (any file). */
  action: 'activate' | 'read';
  /** Where it came from: `resources/read`, `activate_skill`, `read_skill_resource`, `prompts/get`, `get_skill_section`, ... */
  surface: string;
  skill?: string | undefined;
  uri?: string | undefined;
  version?: string | undefined;
  digest?: string | undefined;
  file?: string | undefined;
  /** `ok`, `not_found`, `stale`, `digest_mismatch`, `error`. */
  outcome: string;
  detail?: string | undefined;
}

export interface AuditQuery {
  since?: string;
  user?: string;
  skill?: string;
  limit?: number;
}

export type TokenCheck = { principal: Principal } | { error: 'invalid' | 'revoked' | 'expired' };

const TOKEN_PATTERN = /^skp_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export class AccessStore {
  readonly db: DatabaseType;
  readonly #byId: Statement<[string], Record<string, unknown>>;
  readonly #insertAudit: Statement<unknown[]>;
  readonly #dataVersion: Statement<[], { data_version: number }>;
  readonly #principals = new Map<string, { row: string; principal: Principal }>();

  private constructor(readonly path: string) {
    this.db = new (nativeSqlite())(path, { timeout: 5000 });
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.#migrate();
    this.#byId = this.db.prepare('SELECT * FROM tokens WHERE id = ?');
    this.#insertAudit = this.db.prepare(
      'INSERT INTO audit (time, principal, user, token_id, action, surface, skill, uri, version, digest, file, outcome, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.#dataVersion = this.db.prepare('PRAGMA data_version');
  }

  /** Opens (creating when missing) `DIR/access.db`. */
  static open(dataDir: string): AccessStore {
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, ACCESS_DB);
    try {
      return new AccessStore(path);
    } catch (error) {
      throw new Error(`${path}: ${(error as Error).message}`);
    }
  }

  #migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw new Error(`${this.path} was written by a newer skillport (schema ${version}); upgrade skillport`);
    if (version === SCHEMA_VERSION) return;
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
        detail TEXT
      );
      CREATE INDEX IF NOT EXISTS audit_time ON audit (time);
      CREATE INDEX IF NOT EXISTS audit_user ON audit (user, time);
      CREATE INDEX IF NOT EXISTS audit_skill ON audit (skill, time);
      PRAGMA user_version = ${SCHEMA_VERSION};
    `);
  }

  /** Creates a token; returns the secret (shown once) and its record. */
  createToken(spec: NewToken): { token: string; record: TokenRecord } {
    checkSubjectName('user', spec.user);
    for (const org of spec.orgs ?? []) checkSubjectName('org', org);
    for (const project of spec.projects ?? []) checkSubjectName('project', project);
    if (spec.agent !== undefined) checkSubjectName('agent', spec.agent);
    const scopes = [...new Set(spec.scopes && spec.scopes.length > 0 ? spec.scopes : (['read'] as Scope[]))];
    for (const scope of scopes) if (!SCOPES.includes(scope)) throw new Error(`scope "${scope}" is not one of ${SCOPES.join(', ')}`);
    const id = randomBytes(6).toString('hex');
    const token = `skp_${id}_${randomBytes(32).toString('base64url')}`;
    const record: TokenRecord = {
      id,
      user: spec.user,
      orgs: [...new Set(spec.orgs ?? [])],
      projects: [...new Set(spec.projects ?? [])],
      ...(spec.agent !== undefined ? { agent: spec.agent } : {}),
      scopes,
      ...(spec.description !== undefined ? { description: spec.description } : {}),
      createdAt: new Date().toISOString(),
      ...(spec.expiresAt !== undefined ? { expiresAt: spec.expiresAt.toISOString() } : {}),
    };
    this.db
      .prepare('INSERT INTO tokens (id, hash, user, orgs, projects, agent, scopes, description, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(id, hashToken(token), record.user, JSON.stringify(record.orgs), JSON.stringify(record.projects), record.agent ?? null, JSON.stringify(scopes), record.description ?? null, record.createdAt, record.expiresAt ?? null);
    return { token, record };
  }

  listTokens(): TokenRecord[] {
    return (this.db.prepare('SELECT * FROM tokens ORDER BY created_at, id').all() as Array<Record<string, unknown>>).map(toRecord);
  }

  /** Revokes a token by its id (the 12 hex characters after `skp_`); false when there is none or it already was. */
  revokeToken(id: string): boolean {
    const result = this.db.prepare('UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(new Date().toISOString(), id);
    return result.changes > 0;
  }

  token(id: string): TokenRecord | undefined {
    const row = this.#byId.get(id);
    return row ? toRecord(row) : undefined;
  }

  /** The principal a bearer token stands for, or why it does not stand for one. */
  checkToken(token: string, now = Date.now()): TokenCheck {
    const match = TOKEN_PATTERN.exec(token);
    if (!match) return { error: 'invalid' };
    const row = this.#byId.get(match[1]!);
    if (!row) return { error: 'invalid' };
    const expected = Buffer.from(String(row['hash']), 'hex');
    const actual = Buffer.from(hashToken(token), 'hex');
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return { error: 'invalid' };
    const record = toRecord(row);
    if (record.revokedAt !== undefined) return { error: 'revoked' };
    if (record.expiresAt !== undefined && Date.parse(record.expiresAt) <= now) return { error: 'expired' };
    // The same token gives the same principal object while its record is unchanged, so per-principal state
    // (keys, views, handlers) is found without recomputing anything.
    const cached = this.#principals.get(record.id);
    if (cached !== undefined && cached.row === row['hash'] + JSON.stringify(record)) return { principal: cached.principal };
    const principal: Principal = {
      via: 'token',
      tokenId: record.id,
      user: record.user,
      orgs: record.orgs,
      projects: record.projects,
      ...(record.agent !== undefined ? { agent: record.agent } : {}),
      scopes: new Set(record.scopes),
    };
    if (this.#principals.size >= 10_000) this.#principals.clear();
    this.#principals.set(record.id, { row: row['hash'] + JSON.stringify(record), principal });
    return { principal };
  }

  appendAudit(events: readonly AuditEvent[]): void {
    if (events.length === 0) return;
    this.db.transaction(() => {
      for (const e of events) {
        this.#insertAudit.run(e.time, e.principal, e.user ?? null, e.tokenId ?? null, e.action, e.surface, e.skill ?? null, e.uri ?? null, e.version ?? null, e.digest ?? null, e.file ?? null, e.outcome, e.detail ?? null);
      }
    })();
  }

  queryAudit(query: AuditQuery = {}): AuditEvent[] {
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
    const sql = `SELECT * FROM audit ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
    params.push(Math.max(1, Math.min(query.limit ?? 1000, 1_000_000)));
    const rows = this.db.prepare(sql).all(...params) as Array<Record<string, unknown>>;
    return rows.reverse().map((row) => {
      const event: AuditEvent = { time: String(row['time']), principal: String(row['principal']), action: row['action'] as AuditEvent['action'], surface: String(row['surface']), outcome: String(row['outcome']) };
      for (const [column, key] of [['user', 'user'], ['token_id', 'tokenId'], ['skill', 'skill'], ['uri', 'uri'], ['version', 'version'], ['digest', 'digest'], ['file', 'file'], ['detail', 'detail']] as const) {
        if (row[column] !== null && row[column] !== undefined) (event as unknown as Record<string, unknown>)[key] = String(row[column]);
      }
      return event;
    });
  }

  /** Changes when another connection (another process) commits: tokens may have been created or revoked. */
  dataVersion(): number {
    return this.#dataVersion.get()!.data_version;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function toRecord(row: Record<string, unknown>): TokenRecord {
  return {
    id: String(row['id']),
    user: String(row['user']),
    orgs: JSON.parse(String(row['orgs'])) as string[],
    projects: JSON.parse(String(row['projects'])) as string[],
    ...(row['agent'] !== null ? { agent: String(row['agent']) } : {}),
    scopes: JSON.parse(String(row['scopes'])) as Scope[],
    ...(row['description'] !== null ? { description: String(row['description']) } : {}),
    createdAt: String(row['created_at']),
    ...(row['expires_at'] !== null ? { expiresAt: String(row['expires_at']) } : {}),
    ...(row['revoked_at'] !== null ? { revokedAt: String(row['revoked_at']) } : {}),
  };
}
