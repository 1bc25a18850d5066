import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { eventually, tempFolder } from '@skillport/test-kit';
import { auditWriterTesting } from '../src/access/audit-writer.js';
import { SqliteAccessStore } from '../src/access/sqlite-access-store.js';
import type { AccessChange, AuditEvent } from '../src/access/store.js';

/**
 * The SQLite store's audit rows are inserted by a thread of their own on a second connection: a row appended is there
 * for a query on the store once the append resolved, rows sent before close are written, and the writer's own
 * commits are not taken for another process's change (the store's watch), while a token or policy change still is.
 * The real SQLite store in process.
 */
const opened: SqliteAccessStore[] = [];
after(async () => {
  for (const store of opened) await store.close();
});
const open = (dir: string) => {
  const store = SqliteAccessStore.open(dir);
  opened.push(store);
  return store;
};
const event = (i: number): AuditEvent => ({
  time: new Date(Date.UTC(2026, 11, 2, 0, 0, i)).toISOString(),
  principal: `user:u${i}`,
  action: 'read',
  surface: 'resources/read',
  outcome: 'ok',
  file: `f${i}.md`,
});
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('the audit writer thread', () => {
  test('rows appended are seen by a query once the append resolved, in order, batch after batch', async () => {
    const store = open(tempFolder('skillport-audit-writer-'));
    for (let batch = 0; batch < 5; batch++) {
      await store.appendAudit(Array.from({ length: 100 }, (_, i) => event(batch * 100 + i)));
      const rows = await store.queryAudit({ limit: 1000 });
      assert.equal(rows.length, (batch + 1) * 100);
      assert.equal(rows.at(-1)!.file, `f${batch * 100 + 99}.md`);
    }
  });

  test('a writer that dies after committing a batch and before answering: the batch is there once', async () => {
    const store = open(tempFolder('skillport-audit-writer-dies-'));
    auditWriterTesting.exitAfterCommit = 2;
    try {
      await store.appendAudit(Array.from({ length: 10 }, (_, i) => event(i)));
      // Committed by the thread, whose answer never comes: the store writes nothing again.
      await store.appendAudit(Array.from({ length: 10 }, (_, i) => event(10 + i)));
    } finally {
      auditWriterTesting.exitAfterCommit = undefined;
    }
    // The thread is gone: this one is written on the store's own connection.
    await store.appendAudit(Array.from({ length: 10 }, (_, i) => event(20 + i)));
    const files = (await store.queryAudit({ limit: 1000 })).map((row) => row.file);
    assert.deepEqual(
      files,
      Array.from({ length: 30 }, (_, i) => `f${i}.md`),
    );
  });

  test('rows sent before close are written', async () => {
    const dir = tempFolder('skillport-audit-writer-close-');
    const store = SqliteAccessStore.open(dir);
    const appends = [0, 1, 2].map((batch) => store.appendAudit(Array.from({ length: 50 }, (_, i) => event(batch * 50 + i))));
    await store.close();
    await Promise.all(appends);
    const again = open(dir);
    assert.equal((await again.queryAudit({ limit: 1000 })).length, 150);
  });

  test('the watch prepares its query of the tokens and the policy once, however many commits it sees', async () => {
    const dir = tempFolder('skillport-audit-writer-prepare-');
    const store = open(dir);
    const other = open(dir);
    const prepared: string[] = [];
    const prepare = store.db.prepare.bind(store.db);
    store.db.prepare = ((sql: string) => {
      prepared.push(sql);
      return prepare(sql);
    }) as typeof store.db.prepare;
    const stop = store.watch(() => {});
    try {
      // Commits by another connection, each seen by a poll of its own (every 250 ms).
      for (let i = 0; i < 4; i++) {
        await other.appendAudit([event(i)]);
        await sleep(300);
      }
    } finally {
      stop();
    }
    assert.equal(prepared.filter((sql) => sql.includes('FROM tokens')).length, 1, prepared.join('\n'));
  });

  test("the writer's commits are no change to watch; a token made or revoked, or a policy saved, by another connection still is", async () => {
    const dir = tempFolder('skillport-audit-writer-watch-');
    const store = open(dir);
    const other = open(dir);
    const changes: AccessChange[] = [];
    const stop = store.watch((change) => changes.push(change));
    try {
      // Audit batches over several of the watch's 250 ms polls.
      for (let i = 0; i < 8; i++) {
        await store.appendAudit([event(i)]);
        await sleep(100);
      }
      assert.equal((await store.queryAudit()).length, 8);
      assert.equal(changes.length, 0, 'audit rows written by the store itself');
      const { record } = await other.createToken({ user: 'carol' });
      await store.appendAudit([event(100)]);
      await eventually(async () => (changes.length === 1 ? true : undefined), 5000, 'the new token seen');
      await store.appendAudit([event(101)]);
      await other.revokeToken(record.id);
      await store.appendAudit([event(102)]);
      await eventually(async () => (changes.length === 2 ? true : undefined), 5000, 'the revocation seen');
      await other.savePolicy('rules: []\n');
      await eventually(async () => (changes.length === 3 ? true : undefined), 5000, 'the policy seen');
      assert.deepEqual(
        changes.map((change) => change.kind),
        ['all', 'all', 'all'],
      );
    } finally {
      stop();
    }
  });
});
