import type { AccessStore } from '@skillport/server';
import type { PostgresAccessStoreOptions } from './postgres-access-store.js';
import type { MigrationReport } from './postgres-schema.js';
import type { PostgresStoreOptions } from './postgres-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { RegistryStore } from './store.js';
import { isPostgresUrl } from './postgres-url.js';

/**
 * `--data` names either a folder (the embedded store: SQLite + blob files) or a PostgreSQL URL. The PostgreSQL
 * store (and the `pg` driver) is loaded only when a URL is given, so the embedded default never loads it.
 */
export { isPostgresUrl, redactUrl } from './postgres-url.js';

/**
 * `keepTemps` (folder stores): leave temporary blob files of interrupted writes in place (`store check`); otherwise
 * opening removes those whose writer is dead. PostgreSQL has none: each blob is written in one transaction.
 */
export async function openStore(location: string, options: PostgresStoreOptions & { keepTemps?: boolean } = {}): Promise<RegistryStore> {
  if (!isPostgresUrl(location)) return SqliteStore.open(location, { keepTemps: options.keepTemps === true });
  const { PostgresStore } = await import('./postgres-store.js');
  return PostgresStore.open(location, options);
}

/** Applies a PostgreSQL registry's pending schema migrations (`skillport store migrate`); what it found and did. */
export async function migrateStore(url: string): Promise<MigrationReport> {
  const { PostgresStore } = await import('./postgres-store.js');
  const store = await PostgresStore.open(url, { migrate: false, check: false });
  try {
    return await store.migrate();
  } finally {
    await store.close();
  }
}

/**
 * The access store (tokens, audit, policy) that goes with `--data`: `DIR/access.db`, or the tables of the same
 * PostgreSQL database (ADR 0025). The PostgreSQL one and `pg` are loaded only for a URL.
 */
export async function openAccessStore(location: string, options: PostgresAccessStoreOptions = {}): Promise<AccessStore> {
  if (!isPostgresUrl(location)) {
    const { SqliteAccessStore } = await import('@skillport/server');
    return SqliteAccessStore.open(location);
  }
  const { PostgresAccessStore } = await import('./postgres-access-store.js');
  return PostgresAccessStore.open(location, options);
}
