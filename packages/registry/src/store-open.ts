import type { MigrationReport } from './postgres-schema.js';
import type { PostgresStoreOptions } from './postgres-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { RegistryStore } from './store.js';

/**
 * `--data` names either a folder (the embedded store: SQLite + blob files) or a PostgreSQL URL. The PostgreSQL
 * store (and the `pg` driver) is loaded only when a URL is given, so the embedded default never loads it.
 */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

export async function openStore(location: string, options: PostgresStoreOptions = {}): Promise<RegistryStore> {
  if (!isPostgresUrl(location)) return SqliteStore.open(location);
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
