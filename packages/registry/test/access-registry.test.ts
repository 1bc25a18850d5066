import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { connectAs, createToken } from '@skillport/test-kit';
import { publish, registryUrl, releaseFolder, storeDir } from '@skillport/test-kit';

/**
 * The registry behind identity: with --auth tokens, writes need the publish scope (admin for revoke) instead of the
 * shared SKILLPORT_PUBLISH_TOKEN, and the registry's API and exact versions follow the visibility policy.
 */
describe('registry with --auth tokens and a policy', () => {
  const data = storeDir();
  const policy = join(data, 'policy.yaml');
  writeFileSync(policy, 'default: none\nrules:\n  - skills: "acme-*"\n    allow: [org:acme]\n  - skills: "globex-*"\n    allow: [org:globex]\n');
  const tokens: Record<string, string> = {};
  let server: RunningServer;
  before(async () => {
    tokens['acmePublisher'] = await createToken(data, ['--user', 'ci', '--org', 'acme', '--scope', 'publish']);
    tokens['acmeReader'] = await createToken(data, ['--user', 'alice', '--org', 'acme']);
    tokens['globexReader'] = await createToken(data, ['--user', 'bob', '--org', 'globex']);
    tokens['admin'] = await createToken(data, ['--user', 'root', '--org', 'acme', '--scope', 'admin']);
    server = await startHttp(['--data', data, '--auth', 'tokens', '--policy', policy]);
  });
  after(async () => {
    await server?.stop();
  });

  test('writes need the publish scope; revoke needs admin', async () => {
    const registry = registryUrl(server.url);
    const refused = await publish([releaseFolder('acme-deploy', '1'), '--registry', registry, '--token', tokens['acmeReader']!, '--version', '1.0.0']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /publish needs a token with the publish scope/);
    const first = await publish([releaseFolder('acme-deploy', '1'), '--registry', registry, '--token', tokens['acmePublisher']!, '--version', '1.0.0']);
    assert.equal(first.code, 0, first.stderr);
    const second = await publish([releaseFolder('acme-deploy', '2'), '--registry', registry, '--token', tokens['acmePublisher']!, '--version', '1.1.0']);
    assert.equal(second.code, 0, second.stderr);
    const revokeDenied = await fetch(`${registry}/api/v1/skills/acme-deploy/versions/1.0.0/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens['acmePublisher']}`, 'content-type': 'application/json' },
      body: '{"reason":"x"}',
    });
    assert.equal(revokeDenied.status, 403);
  });

  test('the registry API shows a caller only the names its view allows; hidden answers like unpublished', async () => {
    const registry = registryUrl(server.url);
    const get = async (token: string, path: string) => {
      const response = await fetch(`${registry}${path}`, { headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, body: (await response.json()) as { skills: Array<{ name: string }> } };
    };
    assert.deepEqual(
      (await get(tokens['acmeReader']!, '/api/v1/skills')).body.skills.map((skill: { name: string }) => skill.name),
      ['acme-deploy'],
    );
    assert.deepEqual((await get(tokens['globexReader']!, '/api/v1/skills')).body.skills, []);
    for (const path of ['/api/v1/skills/acme-deploy', '/api/v1/skills/acme-deploy/versions/1.0.0', '/api/v1/skills/acme-deploy/versions/1.0.0/archive']) {
      const hidden = await get(tokens['globexReader']!, path);
      const missing = await get(tokens['globexReader']!, path.replace('acme-deploy', 'acme-nothing'));
      assert.equal(hidden.status, 404, path);
      assert.deepEqual(JSON.stringify(hidden).replaceAll('acme-deploy', 'X'), JSON.stringify(missing).replaceAll('acme-nothing', 'X'), path);
    }
    assert.equal((await get(tokens['acmeReader']!, '/api/v1/skills/acme-deploy')).status, 200);
  });

  test('exact versions over MCP follow the view', async () => {
    const acme = await connectAs(server.url, 'legacy', tokens['acmeReader']!);
    const globex = await connectAs(server.url, 'legacy', tokens['globexReader']!);
    try {
      const exact = (await acme.callTool({ name: 'activate_skill', arguments: { name: 'acme-deploy', version: '1.0.0' } })) as {
        content: Array<{ text: string }>;
        isError?: boolean;
      };
      assert.ok(!exact.isError, exact.content[0]?.text);
      assert.match(exact.content[0]!.text, /Release 1\./);
      const uri = /uri="([^"]+)"/.exec(exact.content[0]!.text)![1]!;
      // The same exact-version URI is not found for globex, exactly like a URI that does not exist.
      const hidden = await globex.readResource({ uri }).then(
        () => 'read',
        (error: Error) => error.message,
      );
      const missing = await globex.readResource({ uri: uri.replace('acme-deploy', 'acme-nothing') }).then(
        () => 'read',
        (error: Error) => error.message,
      );
      assert.equal(hidden.replace(uri, 'U'), missing.replace(uri.replace('acme-deploy', 'acme-nothing'), 'U'));
      const tool = (await globex.callTool({ name: 'activate_skill', arguments: { uri } })) as { content: Array<{ text: string }>; isError?: boolean };
      assert.equal(tool.isError, true);
      assert.doesNotMatch(tool.content[0]!.text, /Release/);
    } finally {
      await Promise.all([acme.close(), globex.close()]);
    }
  });
});
