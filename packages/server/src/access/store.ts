import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { SCOPES, checkSubjectName } from './principal.js';
import type { Principal, Scope } from './principal.js';

/**
 * Access data: API tokens, the audit log and (on a shared database) the visibility policy, behind one async
 * interface with two implementations: `SqliteAccessStore` (`DATA_DIR/access.db`, ADR 0030) and the PostgreSQL one
 * in @skillport/registry (`--data postgres://…`, ADR 0025), both held to one contract suite. Only a token's sha256
 * is stored; the token itself is shown once, when it is created. The server checks tokens against an in-memory
 * cache (access/token-cache.ts) that a store's `watch` invalidates, so the hot path never waits on the store.
 */
export const ACCESS_DB = 'access.db';

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
  /** `webhook`: a git host's webhook refused (a wrong signature or token). */
  action: 'activate' | 'read' | 'webhook' | 'review';
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
  /** How many requests the row stands for, when more than one (repeats of a refusal in a window; access/audit.ts). */
  count?: number | undefined;
}

export interface AuditQuery {
  since?: string;
  user?: string;
  skill?: string;
  limit?: number;
}

/** What changed in a store (told by `watch`): one token, the policy, or something unknown (re-read everything). */
export type AccessChange = { kind: 'token'; id: string } | { kind: 'policy' } | { kind: 'all' };

/** A token's record with the sha256 a presented token must match. */
export interface TokenEntry {
  record: TokenRecord;
  hash: string;
}

/** The policy text kept in a store, and the digest of the file it was last imported from (if it was). */
export interface StoredPolicyText {
  text: string;
  sourceDigest?: string;
  updatedAt: string;
}

export interface AccessStore {
  /** Where it is, for messages (a URL without its password, or a file path). */
  readonly location: string;
  createToken(spec: NewToken): Promise<{ token: string; record: TokenRecord }>;
  listTokens(): Promise<TokenRecord[]>;
  token(id: string): Promise<TokenRecord | undefined>;
  /** The record and stored hash of a token id (what a token check compares against). */
  tokenEntry(id: string): Promise<TokenEntry | undefined>;
  /** Every token with its hash (store copy). */
  tokenEntries(): Promise<TokenEntry[]>;
  /** Adds a token as it is (store copy); false when the id is already there. */
  importToken(entry: TokenEntry): Promise<boolean>;
  /** Revokes a token by its id; false when there is none or it already was. Other replicas are told. */
  revokeToken(id: string): Promise<boolean>;
  appendAudit(events: readonly AuditEvent[]): Promise<void>;
  /** Events matching the query, oldest first (the latest `limit` of them). */
  queryAudit(query?: AuditQuery): Promise<AuditEvent[]>;
  /** Deletes up to `limit` of the oldest events before `time` (one short statement); returns how many went. */
  pruneAudit(time: string, limit: number): Promise<number>;
  /** The audit log's size in bytes (the SQLite file, or PostgreSQL's audit table with its indexes), for /metrics. */
  auditBytes(): Promise<number>;
  /** Events after a position, oldest first, with their positions (store copy pages through the whole log). */
  auditAfter(position: number, limit: number): Promise<Array<{ position: number; event: AuditEvent }>>;
  policy(): Promise<StoredPolicyText | undefined>;
  /** Replaces the policy text (the caller has checked it); other replicas are told. */
  savePolicy(text: string, sourceDigest?: string): Promise<StoredPolicyText>;
  /**
   * Calls `onChange` when another process or replica changed something; `onState` with whether changes can be
   * heard right now (a lost database connection: false until it is back and caught up). Returns the way to stop.
   */
  watch(onChange: (change: AccessChange) => void, onState?: (connected: boolean) => void): () => void;
  /**
   * Optional: a number that changes whenever another process may have changed something, cheap enough to ask at
   * every token check (SQLite's `data_version`), so a revocation by another process is refused at the next request.
   */
  changeStamp?(): number;
  close(): Promise<void>;
}

export type TokenCheck = { principal: Principal } | { error: 'invalid' | 'revoked' | 'expired' };

const TOKEN_PATTERN = /^skp_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

/** The id inside a well-formed token, or undefined. */
export function tokenId(token: string): string | undefined {
  return TOKEN_PATTERN.exec(token)?.[1];
}

/** Checks a new token's fields and makes its secret and record (the store inserts them). */
export function newTokenRecord(spec: NewToken): { token: string; hash: string; record: TokenRecord } {
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
  return { token, hash: hashToken(token), record };
}

/** Whether a presented token matches a stored hash (constant time). */
export function tokenMatches(token: string, hash: string): boolean {
  const expected = Buffer.from(hash, 'hex');
  const actual = Buffer.from(hashToken(token), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Why a record does not stand for a principal now, or undefined when it does. */
export function tokenState(record: TokenRecord, now = Date.now()): 'revoked' | 'expired' | undefined {
  if (record.revokedAt !== undefined) return 'revoked';
  if (record.expiresAt !== undefined && Date.parse(record.expiresAt) <= now) return 'expired';
  return undefined;
}

export function principalOf(record: TokenRecord): Principal {
  return {
    via: 'token',
    tokenId: record.id,
    user: record.user,
    orgs: record.orgs,
    projects: record.projects,
    ...(record.agent !== undefined ? { agent: record.agent } : {}),
    scopes: new Set(record.scopes),
  };
}

/** The audit query's limit, bounded. */
export function auditLimit(query: AuditQuery): number {
  return Math.max(1, Math.min(query.limit ?? 1000, 1_000_000));
}

/** An event as the values of an audit row (the count as text, both engines cast it), in the order of both engines' INSERT (the inverse of `auditEventOf`). */
export function auditValuesOf(e: AuditEvent): Array<string | null> {
  return [
    e.time,
    e.principal,
    e.user ?? null,
    e.tokenId ?? null,
    e.action,
    e.surface,
    e.skill ?? null,
    e.uri ?? null,
    e.version ?? null,
    e.digest ?? null,
    e.file ?? null,
    e.outcome,
    e.detail ?? null,
    e.count !== undefined && e.count > 1 ? String(e.count) : null,
  ];
}

/** An audit row (either engine's column names) as an event. */
export function auditEventOf(row: Record<string, unknown>): AuditEvent {
  const event: AuditEvent = {
    time: String(row['time']),
    principal: String(row['principal']),
    action: row['action'] as AuditEvent['action'],
    surface: String(row['surface']),
    outcome: String(row['outcome']),
  };
  for (const [column, key] of [
    ['user_name', 'user'],
    ['token_id', 'tokenId'],
    ['skill', 'skill'],
    ['uri', 'uri'],
    ['version', 'version'],
    ['digest', 'digest'],
    ['file', 'file'],
    ['detail', 'detail'],
  ] as const) {
    if (row[column] !== null && row[column] !== undefined) (event as unknown as Record<string, unknown>)[key] = String(row[column]);
  }
  const count = Number(row['count']);
  if (row['count'] !== null && row['count'] !== undefined && count > 1) event.count = count;
  return event;
}

/** A token row (either engine; JSON lists as text) as a record. */
export function tokenRecordOf(row: Record<string, unknown>): TokenRecord {
  return {
    id: String(row['id']),
    user: String(row['user_name']),
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

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
