import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connectStdio, eventually, makeTree, runCli, skillMd, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { connectAs, createToken } from '@skillport/test-kit';

/** The visibility policy: reloaded when the file changes, editable through the admin API, announced only to whom it concerns. */
const POLICY_V1 = `
default: none
rules:
  - uri: skill://acme/
    allow: [org:acme]
  - uri: skill://globex/
    allow: [org:globex]
`;

async function visible(client: Client): Promise<string[]> {
  return (await client.listResources()).resources
    .filter((resource) => resource.uri !== 'skill://index.json')
    .map((resource) => resource.uri)
    .sort();
}

describe('visibility policy', () => {
  const data = mkdtempSync(join(tmpdir(), 'skillport-policy-'));
  const policy = join(mkdtempSync(join(tmpdir(), 'skillport-policy-file-')), 'policy.yaml');
  const tree = makeTree({
    'acme/alpha/SKILL.md': skillMd('alpha'),
    'globex/beta/SKILL.md': skillMd('beta'),
    'shared/gamma/SKILL.md': skillMd('gamma'),
  });
  const tokens: Record<string, string> = {};
  let server: RunningServer;
  before(async () => {
    writeFileSync(policy, POLICY_V1);
    tokens['alice'] = await createToken(data, ['--user', 'alice', '--org', 'acme']);
    tokens['bob'] = await createToken(data, ['--user', 'bob', '--org', 'globex']);
    tokens['admin'] = await createToken(data, ['--user', 'root', '--scope', 'admin']);
    server = await startHttp([tree, '--auth', 'tokens', '--data', data, '--policy', policy]);
  });
  after(async () => {
    await server?.stop();
  });

  test('a policy edit takes effect at once and is announced only to the sessions whose view changed', async () => {
    const heard = { alice: 0, bob: 0 };
    const alice = await connectAs(server.url, 'modern', tokens['alice'], { listChanged: { resources: { onChanged: () => void heard.alice++ } } });
    const bob = await connectAs(server.url, 'modern', tokens['bob'], { listChanged: { resources: { onChanged: () => void heard.bob++ } } });
    try {
      assert.deepEqual(await visible(alice), ['skill://acme/alpha/SKILL.md']);
      assert.deepEqual(await visible(bob), ['skill://globex/beta/SKILL.md']);
      // Share gamma with acme only: alice is told, bob is not.
      writeFileSync(policy, `${POLICY_V1}  - uri: skill://shared/\n    allow: [org:acme]\n`);
      await eventually(async () => ((await visible(alice)).includes('skill://shared/gamma/SKILL.md') ? true : undefined), 10_000, 'alice to see gamma');
      await eventually(async () => (heard.alice > 0 ? true : undefined), 10_000, 'alice told');
      assert.deepEqual(await visible(bob), ['skill://globex/beta/SKILL.md']);
      // Now a change for bob: when bob hears it, it is the first thing bob heard.
      writeFileSync(policy, `${POLICY_V1}  - uri: skill://shared/\n    allow: [org:acme, org:globex]\n`);
      await eventually(async () => (heard.bob > 0 ? true : undefined), 10_000, 'bob told');
      assert.equal(heard.bob, 1, 'bob was not told about the change that did not concern him');
      assert.deepEqual(await visible(bob), ['skill://globex/beta/SKILL.md', 'skill://shared/gamma/SKILL.md']);
      // A folder change is announced the same way: a new globex skill concerns bob only.
      const aliceBefore = heard.alice;
      mkdirSync(join(tree, 'globex/delta'));
      writeFileSync(join(tree, 'globex/delta/SKILL.md'), skillMd('delta'));
      await eventually(async () => (heard.bob > 1 ? true : undefined), 10_000, 'bob told of delta');
      assert.equal(heard.alice, aliceBefore, 'alice was not told about a globex skill');
      assert.ok(!(await visible(alice)).includes('skill://globex/delta/SKILL.md'));
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });

  test('a broken policy edit is reported and the policy in force stays', async () => {
    const before = readFileSync(policy, 'utf8');
    const alice = await connectAs(server.url, 'legacy', tokens['alice']);
    try {
      const seen = await visible(alice);
      writeFileSync(policy, 'default: none\nrules:\n  - uri: skill://acme/\n    allow: [orgacme]\n');
      await eventually(async () => (server.stderr().includes('"orgacme" is not public') ? true : undefined), 10_000, 'the error on stderr');
      assert.match(
        server.stderr(),
        /policy\.yaml: rules\[0\]\.allow: "orgacme" is not public, user:NAME, org:NAME, project:NAME or agent:NAME; keeping the policy in force/,
      );
      assert.deepEqual(await visible(alice), seen);
    } finally {
      writeFileSync(policy, before);
      await alice.close();
    }
  });

  test('admin API: read and replace the policy (admin scope); a bad policy is refused with the reason', async () => {
    const api = (token: string, method = 'GET', body?: string) =>
      fetch(server.url.replace(/\/mcp$/, '/api/v1/admin/policy'), {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/yaml' },
        ...(body !== undefined ? { body } : {}),
      });
    assert.equal((await api(tokens['alice']!)).status, 403);
    assert.equal((await api(tokens['alice']!, 'PUT', 'default: public\n')).status, 403);
    const current = await api(tokens['admin']!);
    assert.equal(current.status, 200);
    assert.equal(await current.text(), readFileSync(policy, 'utf8'));
    const bad = await api(tokens['admin']!, 'PUT', 'default: maybe\n');
    assert.equal(bad.status, 400);
    const refused = (await bad.json()) as { error: { code: string; message: string } };
    assert.equal(refused.error.code, 'bad_policy');
    assert.match(refused.error.message, /default must be "none" or "public"/);
    const bob = await connectAs(server.url, 'modern', tokens['bob']);
    try {
      const put = await api(tokens['admin']!, 'PUT', 'default: public\n');
      assert.equal(put.status, 200);
      assert.deepEqual(await put.json(), { ok: true, rules: 0, sessions: 0, default: 'public', precedence: ['user', 'agent', 'project', 'org', 'public'] });
      // In force at once (no wait for the file watcher), and written to the file.
      assert.equal((await visible(bob)).length, 4);
      assert.equal(readFileSync(policy, 'utf8'), 'default: public\n');
    } finally {
      await bob.close();
      writeFileSync(policy, POLICY_V1);
    }
  });

  test('stdio: the principal comes from --principal (or the config file)', async () => {
    writeFileSync(policy, POLICY_V1);
    const { client } = await connectStdio([tree, '--policy', policy, '--principal', 'user:alice org:acme', '--no-watch'], 'legacy');
    try {
      assert.deepEqual(await visible(client), ['skill://acme/alpha/SKILL.md']);
    } finally {
      await client.close();
    }
    const config = join(mkdtempSync(join(tmpdir(), 'skillport-policy-config-')), 'skillport.yaml');
    writeFileSync(config, `dirs: [${JSON.stringify(tree)}]\npolicy: ${JSON.stringify(policy)}\nprincipal:\n  user: bob\n  orgs: [globex]\nwatch: false\n`);
    const fromConfig = await connectStdio(['--config', config], 'modern');
    try {
      assert.deepEqual(
        (await visible(fromConfig.client)).filter((uri) => !uri.includes('delta')),
        ['skill://globex/beta/SKILL.md'],
      );
    } finally {
      await fromConfig.client.close();
    }
    // No principal: anonymous, who sees only what is public (nothing here).
    const anonymous = await connectStdio([tree, '--policy', policy, '--no-watch'], 'legacy');
    try {
      assert.deepEqual(await visible(anonymous.client), []);
    } finally {
      await anonymous.client.close();
    }
  });

  test('a bad --policy or --principal stops the server with one line', async () => {
    const missing = await runCli(['serve', '--no-cache', '--policy', join(tree, 'nope.yaml'), tree]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /--policy .*nope\.yaml: no such file/);
    const broken = join(mkdtempSync(join(tmpdir(), 'skillport-policy-bad-')), 'p.yaml');
    writeFileSync(broken, 'rules:\n  - skills: x\n    allow: [group:a]\n    extra: 1\n');
    const bad = await runCli(['serve', '--no-cache', '--policy', broken, tree]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /p\.yaml: rules\[0\]: unknown key "extra"/);
    const principal = await runCli(['serve', '--no-cache', '--principal', 'group:a', tree]);
    assert.equal(principal.code, 2);
    assert.match(principal.stderr, /"group:a" is not user:NAME/);
  });
});
