import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXAMPLES, eventually, runCli, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { connectAs, createToken, rawRequest } from '@skillport/test-kit';

/** `--auth tokens`: tokens from the CLI, answers as MCP clients expect (401/403, RFC 9728), changes without restart. */
describe('--auth tokens', () => {
  const data = mkdtempSync(join(tmpdir(), 'skillport-tokens-'));
  let server: RunningServer;
  let reader: string;
  let admin: string;
  before(async () => {
    reader = await createToken(data, ['--user', 'alice', '--org', 'acme']);
    admin = await createToken(data, ['--user', 'root', '--scope', 'admin']);
    server = await startHttp([EXAMPLES, '--auth', 'tokens', '--data', data]);
  });
  after(async () => {
    await server?.stop();
  });

  test("only the token's hash is stored", () => {
    // Every file in the data folder (the registry may keep folders of blobs there too).
    for (const name of readdirSync(data, { recursive: true }) as string[]) {
      if (!statSync(join(data, name)).isFile()) continue;
      const bytes = readFileSync(join(data, name));
      assert.ok(!bytes.includes(reader.slice(18)), `${name} holds no token secret`);
      assert.ok(!bytes.includes(admin.slice(18)), `${name} holds no token secret`);
    }
  });

  test('no token: 401 with WWW-Authenticate pointing at the protected resource metadata', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}',
    });
    assert.equal(response.status, 401);
    const header = response.headers.get('www-authenticate') ?? '';
    const origin = new URL(server.url).origin;
    assert.equal(header, `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`);
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    assert.equal(metadata['resource'], server.url);
    assert.deepEqual(metadata['scopes_supported'], ['read', 'publish', 'admin']);
    assert.deepEqual(metadata['bearer_methods_supported'], ['header']);
    // The bare well-known path answers too.
    assert.equal((await fetch(`${origin}/.well-known/oauth-protected-resource`)).status, 200);
  });

  test('a wrong, malformed or made-up token: 401 invalid_token; the MCP client cannot connect', async () => {
    for (const bad of ['nope', `${reader}x`, reader.replace(/_[^_]+$/, '_' + 'A'.repeat(43)), 'skp_000000000000_' + 'B'.repeat(43)]) {
      const raw = await rawRequest(server.url, 'legacy', bad, 1, 'skills/list', {});
      assert.equal(raw.status, 401, bad);
      assert.equal(raw.json.error, 'invalid_token');
    }
    const basic = await fetch(server.url, { method: 'POST', headers: { authorization: 'Basic YTpi', 'content-type': 'application/json' }, body: '{}' });
    assert.equal(basic.status, 401);
    assert.match(basic.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    await assert.rejects(connectAs(server.url, 'modern', 'skp_000000000000_' + 'C'.repeat(43)));
  });

  test('a valid token connects; a missing scope is 403 insufficient_scope', async () => {
    const client = await connectAs(server.url, 'modern', reader);
    try {
      assert.ok((await client.listResources()).resources.length > 0);
    } finally {
      await client.close();
    }
    const metrics = await fetch(server.url.replace(/\/mcp$/, '/metrics'), { headers: { authorization: `Bearer ${reader}` } });
    assert.equal(metrics.status, 403);
    assert.match(metrics.headers.get('www-authenticate') ?? '', /^Bearer error="insufficient_scope", scope="admin"/);
    const publishOnly = await createToken(data, ['--user', 'ci', '--scope', 'publish']);
    const asPublisher = await fetch(server.url.replace(/\/mcp$/, '/api/v1/admin/tokens'), { headers: { authorization: `Bearer ${publishOnly}` } });
    assert.equal(asPublisher.status, 403);
    const asAdmin = await fetch(server.url.replace(/\/mcp$/, '/api/v1/admin/tokens'), { headers: { authorization: `Bearer ${admin}` } });
    assert.equal(asAdmin.status, 200);
    const listed = (await asAdmin.json()) as { tokens: Array<Record<string, unknown>> };
    assert.ok(listed.tokens.length >= 3);
    assert.ok(JSON.stringify(listed).indexOf('skp_') < 0, 'the API never shows a token');
    // healthz no longer shows catalog figures to everyone.
    assert.deepEqual(await (await fetch(server.url.replace(/\/mcp$/, '/healthz'))).json(), { status: 'ok' });
  });

  test('a new token works at once; a revoked one stops at once, and its open stream is told and closed', async () => {
    const fresh = await createToken(data, ['--user', 'bob', '--org', 'acme']);
    let notified = 0;
    const client = await connectAs(server.url, 'modern', fresh, { listChanged: { resources: { onChanged: () => void notified++ } } });
    try {
      assert.ok((await client.listResources()).resources.length > 0);
      const id = /^skp_([0-9a-f]{12})_/.exec(fresh)![1]!;
      const listed = await runCli(['token', 'list', '--data', data]);
      assert.equal(listed.code, 0);
      assert.match(listed.stdout, new RegExp(`${id}  user:bob org:acme \\[read\\]  active`));
      const revoked = await runCli(['token', 'revoke', '--data', data, id]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.match(revoked.stderr, /revoked token/);
      // The very next request is refused: tokens are looked up at every request.
      const raw = await rawRequest(server.url, 'legacy', fresh, 2, 'skills/list', {});
      assert.equal(raw.status, 401);
      assert.match(raw.json.error_description, /revoked/);
      // The open subscription stream heard list_changed (within the store poll).
      await eventually(async () => (notified > 0 ? true : undefined), 10_000, 'list_changed after revocation');
      const again = await runCli(['token', 'revoke', '--data', data, id]);
      assert.equal(again.code, 0);
      assert.match(again.stderr, /already revoked/);
      assert.match((await runCli(['token', 'list', '--data', data])).stdout, new RegExp(`${id}  user:bob org:acme \\[read\\]  revoked`));
    } finally {
      await client.close().catch(() => {});
    }
  });

  test('token CLI errors are one clear line with an exit code', async () => {
    const badId = await runCli(['token', 'revoke', '--data', data, 'xyz']);
    assert.equal(badId.code, 2);
    assert.match(badId.stderr, /not a token id/);
    const unknown = await runCli(['token', 'revoke', '--data', data, '0123456789ab']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no token 0123456789ab/);
    const badUser = await runCli(['token', 'create', '--data', data, '--user', 'a b']);
    assert.equal(badUser.code, 1);
    assert.match(badUser.stderr, /user "a b" is not a valid name/);
    const badScope = await runCli(['token', 'create', '--data', data, '--user', 'x', '--scope', 'root']);
    assert.equal(badScope.code, 2);
    const json = await runCli(['token', 'create', '--data', data, '--user', 'eve', '--org', 'a', '--org', 'b', '--expires', '30d', '--json']);
    const record = JSON.parse(json.stdout) as { token: string; orgs: string[]; expiresAt: string };
    assert.deepEqual(record.orgs, ['a', 'b']);
    assert.ok(Date.parse(record.expiresAt) > Date.now() + 29 * 86400e3);
  });

  test('an expired token is refused', async () => {
    const run = await runCli(['token', 'create', '--data', data, '--user', 'old', '--expires', '2020-01-01T00:00:00Z']);
    const raw = await rawRequest(server.url, 'legacy', run.stdout.trim(), 3, 'skills/list', {});
    assert.equal(raw.status, 401);
    assert.match(raw.json.error_description, /expired/);
  });

  test('misconfiguration stops the server with one line', async () => {
    const noData = await runCli(['serve', '--http', '--port', '0', '--no-cache', '--auth', 'tokens', EXAMPLES]);
    assert.equal(noData.code, 1);
    assert.match(noData.stderr, /--auth tokens needs --data DIR/);
    const badAuth = await runCli(['serve', '--auth', 'magic', EXAMPLES]);
    assert.equal(badAuth.code, 2);
  });
});
