import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createToken, eventually, EXAMPLES, rawRequest, runCli, startHttp, tempFolder } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { AuditLog } from '../src/access/audit.js';
import { Metrics } from '../src/access/metrics.js';
import { parsePrincipalSpec } from '../src/access/principal.js';
import { SqliteAccessStore } from '../src/access/sqlite-access-store.js';
import type { AuditEvent } from '../src/access/store.js';

/**
 * An audit log that cannot fill the disk: a refused read is a compact row (bounded path, an error code, not the
 * text), repeats of the same refusal by the same principal are one row with a count per window, one principal's many
 * distinct refusals are bounded per window, rows older than the retention are pruned in the background, and the log's
 * size is on /metrics. The real SQLite store in process, then a real `serve --http` process.
 */
const mallory = parsePrincipalSpec('user:mallory');
const alice = parsePrincipalSpec('user:alice');
const longUri = `skill://${'x/'.repeat(2000)}SKILL.md`;
const longText = `MCP error -32602: Resource ${longUri} not found. ${'Did you mean something? '.repeat(40)}`;

const opened: SqliteAccessStore[] = [];
after(async () => {
  for (const store of opened) await store.close();
});

function fresh(): { store: SqliteAccessStore; audit: AuditLog } {
  const store = SqliteAccessStore.open(tempFolder('skillport-audit-growth-'));
  opened.push(store);
  return { store, audit: new AuditLog(store, new Metrics()) };
}

const total = (events: AuditEvent[]) => events.reduce((sum, event) => sum + (event.count ?? 1), 0);

describe('audit rows of refused reads', () => {
  test('a refused read is a compact row: the path bounded, an error code rather than the text', async () => {
    const { store, audit } = fresh();
    audit.record(mallory, { action: 'read', surface: 'resources/read', requested: longUri, outcome: 'not_found', detail: longText });
    audit.record(mallory, {
      action: 'read',
      surface: 'read_skill_resource',
      requested: 'pdf',
      file: `${'deep/'.repeat(800)}x.md`,
      outcome: 'refused',
      detail: longText,
    });
    await audit.drain();
    const rows = await store.queryAudit();
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.ok((row.skill ?? '').length <= 257, `${row.skill?.length}`);
      assert.ok((row.file ?? '').length <= 257, `${row.file?.length}`);
      assert.ok(row.detail === undefined || /^[a-z_]{1,40}$/.test(row.detail), `detail: ${row.detail?.slice(0, 80)}`);
      assert.ok(JSON.stringify(row).length < 700, `${JSON.stringify(row).length} characters`);
    }
    assert.ok(rows[0]!.skill!.startsWith('skill://x/x/'));
  });

  test('repeats of one refusal by one principal are one row with a count; another principal and ok reads are kept apart', async () => {
    const { store, audit } = fresh();
    for (let i = 0; i < 1000; i++)
      audit.record(mallory, { action: 'read', surface: 'resources/read', requested: 'skill://nothing/SKILL.md', outcome: 'not_found' });
    for (let i = 0; i < 3; i++) audit.record(alice, { action: 'read', surface: 'resources/read', requested: 'skill://nothing/SKILL.md', outcome: 'not_found' });
    for (let i = 0; i < 5; i++) audit.record(alice, { action: 'read', surface: 'resources/read', requested: 'skill://pdf/SKILL.md', outcome: 'ok' });
    await audit.drain();
    const rows = await store.queryAudit();
    const of = (user: string, outcome: string) => rows.filter((row) => row.user === user && row.outcome === outcome);
    assert.ok(of('mallory', 'not_found').length <= 2, `${of('mallory', 'not_found').length} rows`);
    assert.equal(total(of('mallory', 'not_found')), 1000);
    assert.ok(of('alice', 'not_found').length <= 2);
    assert.equal(total(of('alice', 'not_found')), 3);
    // Every successful read keeps its own row (they are the audit trail proper).
    assert.equal(of('alice', 'ok').length, 5);
  });

  test("one principal's many distinct refusals are bounded per window, every one counted", async () => {
    const { store, audit } = fresh();
    for (let i = 0; i < 2000; i++)
      audit.record(mallory, { action: 'read', surface: 'resources/read', requested: `skill://guess-${i}/SKILL.md`, outcome: 'not_found' });
    await audit.drain();
    const rows = await store.queryAudit({ limit: 10_000 });
    assert.ok(rows.length <= 70, `${rows.length} rows for 2,000 refusals`);
    assert.equal(total(rows), 2000);
  });

  test('rows older than the retention are pruned, in batches; newer ones stay', async () => {
    const { store, audit } = fresh();
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
    const recent = new Date(Date.now() - 86_400_000).toISOString();
    const row = (time: string): AuditEvent => ({ time, principal: 'alice', user: 'alice', action: 'read', surface: 'resources/read', outcome: 'ok' });
    await store.appendAudit([...Array.from({ length: 1234 }, () => row(old)), row(recent)]);
    assert.equal(await audit.prune(30 * 86_400_000, 100), 1234);
    assert.deepEqual(
      (await store.queryAudit()).map((event) => event.time),
      [recent],
    );
  });
});

test('an access.db of the release before (schema 2, no count column) is migrated in place, its rows kept', async () => {
  const dir = tempFolder('skillport-audit-v2-');
  const first = SqliteAccessStore.open(dir);
  first.db.exec('ALTER TABLE audit DROP COLUMN count; PRAGMA user_version = 2;');
  first.db
    .prepare("INSERT INTO audit (time, principal, action, surface, outcome) VALUES ('2026-11-30T00:00:00.000Z', 'old', 'read', 'resources/read', 'ok')")
    .run();
  await first.close();
  const store = SqliteAccessStore.open(dir);
  opened.push(store);
  assert.equal(store.db.pragma('user_version', { simple: true }), 3);
  await store.appendAudit([{ time: '2026-12-01T00:00:00.000Z', principal: 'new', action: 'read', surface: 'resources/read', outcome: 'not_found', count: 9 }]);
  assert.deepEqual(
    (await store.queryAudit()).map((event) => [event.principal, event.count]),
    [
      ['old', undefined],
      ['new', 9],
    ],
  );
});

describe('serve --audit-retention, and the audit log on /metrics', () => {
  const data = tempFolder('skillport-audit-retention-');
  let server: RunningServer | undefined;
  after(async () => {
    await server?.stop();
  });

  test('old rows are pruned in the background after start; /metrics shows the audit database size', async () => {
    const store = SqliteAccessStore.open(data);
    const old = new Date(Date.now() - 3 * 86_400_000).toISOString();
    await store.appendAudit(
      Array.from({ length: 3000 }, () => ({ time: old, principal: 'old', user: 'old', action: 'read' as const, surface: 'resources/read', outcome: 'ok' })),
    );
    await store.close();
    const admin = await createToken(data, ['--user', 'root', '--scope', 'admin']);
    const reader = await createToken(data, ['--user', 'mallory']);
    const config = join(data, 'serve.yaml');
    writeFileSync(config, 'auditRetention: 1d\n');
    server = await startHttp([EXAMPLES, '--auth', 'tokens', '--data', data, '--config', config]);
    for (let i = 0; i < 50; i++) await rawRequest(server.url, 'modern', reader, i, 'resources/read', { uri: 'skill://nothing/SKILL.md' });
    await eventually(
      async () => {
        const run = await runCli(['audit', '--data', data, '--user', 'old', '--json']);
        return (JSON.parse(run.stdout) as { events: unknown[] }).events.length === 0 ? true : undefined;
      },
      30_000,
      'the old rows pruned',
    );
    // The last batch's delete commits before the pass says so and records the size: wait for both, not a moment.
    await eventually(async () => (/audit: removed 3000 rows older than 1 day \(/.test(server!.stderr()) ? true : undefined), 30_000, 'the prune said');
    const text = await eventually(
      async () => {
        const metrics = await fetch(server!.url.replace(/\/mcp$/, '/metrics'), { headers: { authorization: `Bearer ${admin}` } });
        const body = await metrics.text();
        return Number(/^skillport_audit_database_bytes (\d+)$/m.exec(body)?.[1]) > 0 ? body : undefined;
      },
      30_000,
      'the audit database size on /metrics',
    );
    assert.match(text, /^# TYPE skillport_audit_database_bytes gauge$/m);
  });

  test('--audit-retention takes a span or off; anything else is a usage error naming the flag', async () => {
    const bad = await runCli(['serve', '--http', '--data', tempFolder('skillport-audit-bad-'), '--audit-retention', 'soon', EXAMPLES]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--audit-retention/);
    const help = await runCli(['serve', '--help']);
    assert.match(help.stdout, /--audit-retention <span>/);
  });
});
