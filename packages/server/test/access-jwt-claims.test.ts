import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import { JwtConfigError, JwtRejected, JwtVerifier } from '../src/access/jwt.js';

/** The claim mapping, configured (a config file's `jwtClaims`), on a verifier over a local JWKS file. */
describe('JWT claim mapping', () => {
  test('renamed and nested claims map to the principal', async () => {
    const keys = await generateKeyPair('ES256', { extractable: true });
    const file = join(mkdtempSync(join(tmpdir(), 'skillport-jwt-unit-')), 'jwks.json');
    writeFileSync(file, JSON.stringify({ keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'a' }] }));
    const verifier = new JwtVerifier({
      keyFile: file,
      issuer: 'i',
      audience: 'a',
      claims: { user: 'email', orgs: 'realm.groups', agent: 'azp', scopes: 'perms' },
    });
    const principal = verifier.principalFrom({
      email: 'alice@acme.test',
      realm: { groups: ['acme', 'ops'] },
      azp: 'copilot',
      perms: ['skillport:admin', 'other'],
    });
    assert.deepEqual(
      { user: principal.user, orgs: principal.orgs, agent: principal.agent, scopes: [...principal.scopes] },
      { user: 'alice@acme.test', orgs: ['acme', 'ops'], agent: 'copilot', scopes: ['admin'] },
    );
    assert.throws(() => verifier.principalFrom({ realm: { groups: 'x' } }), JwtRejected);
    assert.throws(() => verifier.principalFrom({ email: 'a', realm: { groups: [1] } }), /must be a string or a list of strings/);
  });

  test('configuration mistakes are refused up front', () => {
    assert.throws(() => new JwtVerifier({ jwksUrl: 'ftp://x/jwks', issuer: 'i', audience: 'a' }), JwtConfigError);
    assert.throws(() => new JwtVerifier({ jwksUrl: 'not a url', issuer: 'i', audience: 'a' }), /not a URL/);
    assert.throws(() => new JwtVerifier({ keyFile: '/nonexistent/key.pem', issuer: 'i', audience: 'a' }), /--jwt-key/);
    assert.throws(() => new JwtVerifier({ jwksUrl: 'https://x/jwks', issuer: [], audience: 'a' }), /needs an issuer/);
  });
});
