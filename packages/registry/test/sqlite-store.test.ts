import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { sha256Digest } from '@skillport/core';
import { SqliteStore } from '../src/sqlite-store.js';
import { storeContract } from './store-contract.js';
import { files, newVersion } from './fixtures.js';

const fresh = () => mkdtempSync(join(tmpdir(), 'skillport-store-'));

storeContract('SQLite + blob files', {
  async open() {
    const dir = fresh();
    return { store: SqliteStore.open(dir), reopen: async () => SqliteStore.open(dir), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  },
});

test('SQLite store: WAL journal, blobs laid out by digest, no temporary files left after a write', async () => {
  const dir = fresh();
  const store = SqliteStore.open(dir);
  try {
    const { record, blobs } = newVersion('layout', '1.0.0', files('layout', { 'a.md': 'A' }));
    for (const [digest, bytes] of blobs) await store.putBlob(digest, bytes);
    await store.commitVersion(record, ['latest']);
    // Durability is a promise of this store (a publish is acknowledged only once it survives power loss).
    assert.deepEqual(store.durability(), { journalMode: 'wal', synchronous: 'FULL' });
    // WAL is persistent in the file itself: another connection sees it too.
    const other = new Database(join(dir, 'registry.db'), { readonly: true });
    try {
      assert.equal(other.pragma('journal_mode', { simple: true }), 'wal');
    } finally {
      other.close();
    }
    const hex = blobs[0]![0].slice(7);
    assert.ok(existsSync(join(dir, 'blobs', 'sha256', hex.slice(0, 2), hex)));
    assert.deepEqual(readdirSync(join(dir, 'blobs', 'tmp')), []);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SQLite store: check finds a missing, a truncated and a corrupted blob, and leftover temporary files', async () => {
  const dir = fresh();
  const store = SqliteStore.open(dir);
  try {
    const content = files('broken', { 'a.md': 'AAAA', 'b.md': 'BBBB', 'c.md': 'CCCC' });
    const { record, blobs } = newVersion('broken', '1.0.0', content);
    for (const [digest, bytes] of blobs) await store.putBlob(digest, bytes);
    await store.commitVersion(record, ['latest']);
    const path = (digest: string) => join(dir, 'blobs', 'sha256', digest.slice(7, 9), digest.slice(7));
    const [a, b, c] = record.manifest.files.filter((f) => f.path !== 'SKILL.md').map((f) => f.digest);
    rmSync(path(a!));
    writeFileSync(path(b!), 'BB');
    writeFileSync(path(c!), 'XXXX');
    writeFileSync(join(dir, 'blobs', 'tmp', 'leftover'), 'partial');
    const quick = await store.check();
    assert.equal(quick.consistent, false);
    assert.equal(quick.problems.length, 2, quick.problems.join('\n'));
    assert.ok(quick.problems.some((p) => p.includes(`${a} is missing`)));
    assert.ok(quick.problems.some((p) => p.includes(`${b} is 2 bytes`)));
    const full = await store.check({ verifyBlobs: true });
    assert.ok(full.problems.some((p) => p.includes(`${c} does not match its digest`)));
    assert.equal(full.tempFiles.length, 1);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SQLite store: opening removes temporary blob files of dead writers, keeps those of live writers and other hosts', async () => {
  const dir = fresh();
  await SqliteStore.open(dir).close();
  const tmp = join(dir, 'blobs', 'tmp');
  const host = hostname().replace(/[^A-Za-z0-9-]/g, '_');
  // A pid that surely ran and is gone: a child that has exited.
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
  const names = {
    dead: `${host}~${dead}.0123456789abcdef-aaaaaaaaaaaa`,
    live: `${host}~${process.ppid}.0123456789abcdef-bbbbbbbbbbbb`,
    self: `${host}~${process.pid}.0123456789abcdef-cccccccccccc`,
    otherHost: `elsewhere~${dead}.0123456789abcdef-dddddddddddd`,
    oldOtherHost: `elsewhere~${dead}.0123456789abcdef-eeeeeeeeeeee`,
  };
  for (const name of Object.values(names)) writeFileSync(join(tmp, name), 'partial');
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  utimesSync(join(tmp, names.oldOtherHost), twoHoursAgo, twoHoursAgo);

  const checking = SqliteStore.open(dir, { keepTemps: true });
  assert.equal((await checking.check()).tempFiles.length, 5, 'keepTemps (store check) removes nothing');
  await checking.close();

  const store = SqliteStore.open(dir);
  try {
    assert.equal(store.blobs.removedTemps, 2);
    assert.deepEqual(readdirSync(tmp).sort(), [names.live, names.otherHost, names.self].sort());
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SQLite store: a blob write that fails (a full disk, here a rename that cannot happen) leaves no temporary file', async () => {
  const dir = fresh();
  const store = SqliteStore.open(dir);
  try {
    const bytes = Buffer.from('blob that cannot land');
    const digest = sha256Digest(bytes);
    const target = join(dir, 'blobs', 'sha256', digest.slice(7, 9), digest.slice(7));
    // A non-empty folder where the blob file should go: the write succeeds, the rename fails.
    mkdirSync(join(target, 'in-the-way'), { recursive: true });
    await assert.rejects(store.putBlob(digest, bytes));
    assert.deepEqual(readdirSync(join(dir, 'blobs', 'tmp')), []);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SQLite store: a schema 1 registry (before the gate) is migrated in place and its versions read back', async () => {
  const dir = fresh();
  let store = SqliteStore.open(dir);
  const { record, blobs } = newVersion('old', '1.0.0');
  for (const [digest, bytes] of blobs) await store.putBlob(digest, bytes);
  await store.commitVersion(record, ['latest']);
  await store.close();
  // Made back into what a skillport of schema 1 left: no gate column.
  const db = new Database(join(dir, 'registry.db'));
  db.exec(`ALTER TABLE versions DROP COLUMN gate; UPDATE meta SET value = '1' WHERE key = 'schema'`);
  db.close();
  store = SqliteStore.open(dir);
  try {
    const read = await store.getVersion('old', '1.0.0');
    assert.equal(read?.version, '1.0.0');
    assert.equal(read?.gate, undefined);
    const check = new Database(join(dir, 'registry.db'), { readonly: true });
    assert.equal((check.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get() as { value: string }).value, '2');
    check.close();
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
