import type pg from 'pg';
import { RegistryError } from './model.js';

/**
 * The PostgreSQL schema as numbered migrations, applied in order, each in its own transaction, recorded in
 * `skillport_migrations`. A session-level advisory lock is held while migrating, so when replicas start together
 * one migrates and the others wait, then find nothing left to do: no replica ever runs a migration another is
 * running. Migrations only ever add: a released migration is never edited (a change is a new one), and a
 * database migrated by a newer skillport is refused (`store_too_new`) rather than misread.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'registry: versions, tags, blobs, change log',
    sql: `
      -- Names, versions and tags sort by code point, as in the embedded store, whatever the database's locale.
      CREATE TABLE meta (id INTEGER PRIMARY KEY CHECK (id = 1), revision BIGINT NOT NULL);
      INSERT INTO meta (id, revision) VALUES (1, 0);
      CREATE TABLE versions (
        name TEXT COLLATE "C" NOT NULL,
        version TEXT COLLATE "C" NOT NULL,
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
        rev BIGINT NOT NULL,
        PRIMARY KEY (name, version)
      );
      CREATE INDEX versions_rev ON versions (rev);
      CREATE INDEX versions_digest ON versions (package_digest);
      CREATE TABLE tags (
        name TEXT COLLATE "C" NOT NULL,
        tag TEXT COLLATE "C" NOT NULL,
        version TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (name, tag),
        FOREIGN KEY (name, version) REFERENCES versions (name, version)
      );
      CREATE TABLE blobs (
        digest TEXT PRIMARY KEY,
        size BIGINT NOT NULL,
        chunks INTEGER NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE TABLE blob_chunks (
        digest TEXT NOT NULL REFERENCES blobs (digest),
        seq INTEGER NOT NULL,
        data BYTEA NOT NULL,
        PRIMARY KEY (digest, seq)
      );
      CREATE TABLE version_blobs (
        name TEXT COLLATE "C" NOT NULL,
        version TEXT COLLATE "C" NOT NULL,
        digest TEXT NOT NULL REFERENCES blobs (digest),
        size BIGINT NOT NULL,
        PRIMARY KEY (name, version, digest),
        FOREIGN KEY (name, version) REFERENCES versions (name, version)
      );
      CREATE INDEX version_blobs_digest ON version_blobs (digest);
      CREATE TABLE changes (
        id BIGINT PRIMARY KEY,
        at TIMESTAMPTZ NOT NULL DEFAULT now(),
        kind TEXT NOT NULL,
        name TEXT COLLATE "C" NOT NULL,
        version TEXT,
        detail TEXT
      );
    `,
  },
  {
    version: 2,
    name: 'access: tokens, audit events, policy',
    sql: `
      -- Access data (ADR 0025): what DIR/access.db holds for a folder registry. Times are ISO 8601 text compared in
      -- code-point order, as in SQLite. Token revocations and policy changes are announced through the changes
      -- table (kinds 'token' and 'policy', under the same revision lock) and NOTIFY, so every replica hears them.
      CREATE TABLE access_tokens (
        id TEXT PRIMARY KEY,
        hash TEXT NOT NULL,
        user_name TEXT NOT NULL,
        orgs TEXT NOT NULL,
        projects TEXT NOT NULL,
        agent TEXT,
        scopes TEXT NOT NULL,
        description TEXT,
        created_at TEXT COLLATE "C" NOT NULL,
        expires_at TEXT,
        revoked_at TEXT
      );
      CREATE TABLE audit_events (
        id BIGSERIAL PRIMARY KEY,
        time TEXT COLLATE "C" NOT NULL,
        principal TEXT NOT NULL,
        user_name TEXT,
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
      CREATE INDEX audit_events_time ON audit_events (time);
      CREATE INDEX audit_events_user ON audit_events (user_name, time);
      CREATE INDEX audit_events_skill ON audit_events (skill, time);
      CREATE INDEX audit_events_uri ON audit_events (uri, time);
      CREATE TABLE access_policy (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        text TEXT NOT NULL,
        source_digest TEXT,
        updated_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'access: audit rows count repeated refusals',
    // A nullable column with no default: adding it rewrites nothing, so a large audit table migrates at once.
    sql: `ALTER TABLE audit_events ADD COLUMN count INTEGER;`,
  },
  {
    version: 4,
    name: 'registry: the gate record of each version',
    sql: `
      -- The gate's scan and decision (ADR 0230), JSON; versions published before it have none.
      ALTER TABLE versions ADD COLUMN gate TEXT;
    `,
  },
];

/** Arbitrary, fixed: the advisory lock key every skillport process uses while migrating. */
const MIGRATION_LOCK = 0x736b_6c70; // "sklp"

export interface MigrationReport {
  /** Schema version found before. */
  from: number;
  /** Schema version now. */
  to: number;
  /** Migrations this call applied (none when another process had already done them). */
  applied: Array<{ version: number; name: string }>;
  /** Newest schema this skillport knows. */
  latest: number;
}

export async function migrate(client: pg.ClientBase, options: { apply: boolean }): Promise<MigrationReport> {
  const latest = MIGRATIONS.at(-1)!.version;
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query(
      `CREATE TABLE IF NOT EXISTS skillport_migrations (version INTEGER PRIMARY KEY, name TEXT COLLATE "C" NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const found = Number((await client.query<{ v: number | null }>('SELECT MAX(version) AS v FROM skillport_migrations')).rows[0]?.v ?? 0);
    if (found > latest)
      throw new RegistryError(
        500,
        'store_too_new',
        `the registry database is at schema ${found}, written by a newer skillport (this one knows up to ${latest}); upgrade skillport`,
      );
    const pending = MIGRATIONS.filter((migration) => migration.version > found);
    if (pending.length > 0 && !options.apply)
      throw new RegistryError(
        500,
        'store_needs_migration',
        `the registry database is at schema ${found}; run \`skillport store migrate --data URL\` to bring it to ${latest}`,
      );
    const applied: MigrationReport['applied'] = [];
    for (const migration of pending) {
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO skillport_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new Error(`migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`);
      }
      applied.push({ version: migration.version, name: migration.name });
    }
    return { from: found, to: Math.max(found, ...applied.map((m) => m.version)), applied, latest };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
  }
}
