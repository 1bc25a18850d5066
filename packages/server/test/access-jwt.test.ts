import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair } from 'jose';
import { EXAMPLES, runCli, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { connectAs, rawRequest } from '@skillport/test-kit';

/**
 * `--auth jwt`: a real JWKS served by a node:http server in this test (the server fetches it over HTTP), real signed
 * tokens, issuer/audience/expiry checks, the documented claim mapping, and a local key file.
 */
const ISSUER = 'https://idp.example.test';
const AUDIENCE = 'skillport';

describe('--auth jwt', () => {
  let jwks: Server;
  let jwksUrl: string;
  let jwksHits = 0;
  let server: RunningServer;
  let keyFileServer: RunningServer;
  let keys: Awaited<ReturnType<typeof generateKeyPair>>;
  let otherKeys: Awaited<ReturnType<typeof generateKeyPair>>;
  const policyDir = mkdtempSync(join(tmpdir(), 'skillport-jwt-'));
  const policy = join(policyDir, 'policy.yaml');
  writeFileSync(
    policy,
    'default: none\nrules:\n  - skills: "csv-*"\n    allow: [org:acme]\n  - skills: "git-*"\n    allow: [project:web]\n  - skills: release-notes\n    allow: [public]\n',
  );

  const sign = (
    claims: Record<string, unknown>,
    options: {
      key?: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
      issuer?: string;
      audience?: string;
      expires?: string | number;
      kid?: string;
    } = {},
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: options.kid ?? 'k1' })
      .setIssuer(options.issuer ?? ISSUER)
      .setAudience(options.audience ?? AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(options.expires ?? '5m')
      .sign(options.key ?? keys.privateKey);

  before(async () => {
    keys = await generateKeyPair('ES256', { extractable: true });
    otherKeys = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    jwks = createServer((_req, res) => {
      jwksHits++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
    const pem = join(policyDir, 'key.pem');
    writeFileSync(pem, await exportSPKI(keys.publicKey));
    [server, keyFileServer] = await Promise.all([
      startHttp([EXAMPLES, '--auth', 'jwt', '--jwks', jwksUrl, '--jwt-issuer', ISSUER, '--jwt-audience', AUDIENCE, '--policy', policy]),
      startHttp([EXAMPLES, '--auth', 'jwt', '--jwt-key', pem, '--jwt-issuer', ISSUER, '--jwt-audience', AUDIENCE]),
    ]);
  });
  after(async () => {
    await Promise.all([server?.stop(), keyFileServer?.stop()]);
    await new Promise<void>((resolve) => jwks.close(() => resolve()));
  });

  const me = async (url: string, token: string) => {
    const response = await fetch(url.replace(/\/mcp$/, '/api/v1/me'), { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, challenge: response.headers.get('www-authenticate') };
  };

  test('claims map to the principal as documented', async () => {
    const token = await sign({ sub: 'alice', orgs: ['acme', 'beta'], projects: 'web', agent: 'copilot', scope: 'read skillport:publish other' });
    const answer = await me(server.url, token);
    assert.equal(answer.status, 200);
    assert.deepEqual(
      {
        user: answer.body['user'],
        orgs: answer.body['orgs'],
        projects: answer.body['projects'],
        agent: answer.body['agent'],
        scopes: answer.body['scopes'],
        via: answer.body['via'],
      },
      { user: 'alice', orgs: ['acme', 'beta'], projects: ['web'], agent: 'copilot', scopes: ['publish', 'read'], via: 'jwt' },
    );
    assert.ok(jwksHits >= 1, 'the JWKS was fetched over HTTP');
  });

  test('the view follows the claims, through a real MCP client', async () => {
    const acme = await connectAs(server.url, 'modern', await sign({ sub: 'alice', orgs: 'acme', scope: 'read' }));
    const web = await connectAs(server.url, 'legacy', await sign({ sub: 'bob', projects: ['web'], scp: ['read'] }));
    try {
      const names = async (client: typeof acme) =>
        (await client.listResources()).resources
          .filter((resource) => resource.uri !== 'skill://index.json')
          .map((resource) => resource.name)
          .sort();
      assert.deepEqual(await names(acme), ['csv-data-cleaning', 'release-notes']);
      assert.deepEqual(await names(web), ['git-commit-messages', 'release-notes']);
    } finally {
      await Promise.all([acme.close(), web.close()]);
    }
  });

  test('wrong issuer, audience, signature, an expired token or a missing sub: 401 invalid_token', async () => {
    const cases: Array<[string, Promise<string>, RegExp]> = [
      ['issuer', sign({ sub: 'a', scope: 'read' }, { issuer: 'https://evil.example' }), /iss/],
      ['audience', sign({ sub: 'a', scope: 'read' }, { audience: 'someone-else' }), /aud/],
      ['signature', sign({ sub: 'a', scope: 'read' }, { key: otherKeys.privateKey }), /signature|no key/],
      ['unknown key id', sign({ sub: 'a', scope: 'read' }, { key: otherKeys.privateKey, kid: 'k2' }), /no key/],
      ['expired', sign({ sub: 'a', scope: 'read' }, { expires: Math.floor(Date.now() / 1000) - 3600 }), /expired/],
      ['no sub', sign({ scope: 'read' }), /"sub"/],
      ['bad org name', sign({ sub: 'a', orgs: ['a b'], scope: 'read' }), /org/],
    ];
    for (const [what, token, reason] of cases) {
      const answer = await me(server.url, await token);
      assert.equal(answer.status, 401, what);
      assert.equal(answer.body['error'], 'invalid_token', what);
      assert.match(String(answer.body['error_description']), reason, what);
      assert.match(answer.challenge ?? '', /^Bearer resource_metadata="[^"]+", error="invalid_token"/, what);
    }
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'a', iss: ISSUER, aud: AUDIENCE, exp: 9e9, scope: 'read' })).toString('base64url')}.`;
    assert.equal((await me(server.url, unsigned)).status, 401, 'alg none is refused');
  });

  test('a token without the read scope: 403 insufficient_scope', async () => {
    const token = await sign({ sub: 'alice', scope: 'publish-ish' });
    const raw = await rawRequest(server.url, 'legacy', token, 1, 'skills/list', {});
    assert.equal(raw.status, 403);
    assert.equal(raw.json.error, 'insufficient_scope');
  });

  test('the protected resource metadata names the issuer as authorization server', async () => {
    const metadata = (await (await fetch(server.url.replace(/\/mcp$/, '/.well-known/oauth-protected-resource/mcp'))).json()) as Record<string, unknown>;
    assert.deepEqual(metadata['authorization_servers'], [ISSUER]);
  });

  test('a local PEM key file works the same', async () => {
    const answer = await me(keyFileServer.url, await sign({ sub: 'carol', scope: 'read' }));
    assert.equal(answer.status, 200);
    assert.equal(answer.body['user'], 'carol');
    assert.equal((await me(keyFileServer.url, await sign({ sub: 'carol', scope: 'read' }, { key: otherKeys.privateKey }))).status, 401);
  });

  test('misconfiguration: one line, exit 1', async () => {
    const noIssuer = await runCli(['serve', '--http', '--port', '0', '--no-cache', '--auth', 'jwt', '--jwks', jwksUrl, EXAMPLES]);
    assert.equal(noIssuer.code, 1);
    assert.match(noIssuer.stderr, /needs an issuer/);
    const both = await runCli([
      'serve',
      '--http',
      '--port',
      '0',
      '--no-cache',
      '--auth',
      'jwt',
      '--jwks',
      jwksUrl,
      '--jwt-key',
      'x.pem',
      '--jwt-issuer',
      ISSUER,
      '--jwt-audience',
      AUDIENCE,
      EXAMPLES,
    ]);
    assert.equal(both.code, 1);
    assert.match(both.stderr, /exactly one of --jwks URL or --jwt-key FILE/);
    const privateJwk = join(policyDir, 'private.json');
    writeFileSync(privateJwk, JSON.stringify(await exportJWK(keys.privateKey)));
    const priv = await runCli([
      'serve',
      '--http',
      '--port',
      '0',
      '--no-cache',
      '--auth',
      'jwt',
      '--jwt-key',
      privateJwk,
      '--jwt-issuer',
      ISSUER,
      '--jwt-audience',
      AUDIENCE,
      EXAMPLES,
    ]);
    assert.equal(priv.code, 1);
    assert.match(priv.stderr, /public keys only/);
  });
});
