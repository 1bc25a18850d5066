import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AccessControl } from '../src/access/access-control.js';
import { authenticate } from '../src/http/middleware/authenticate.js';
import { requireScope } from '../src/http/middleware/require-scope.js';
import { tempFolder } from '@skillport/test-kit';
import { serveApp } from './middleware-harness.js';

/**
 * http/middleware/authenticate.ts and require-scope.ts over a real token store: no credential or a bad one is a 401
 * with the RFC 6750 challenge, a token without the scope a 403 `insufficient_scope`, a good one reaches the route
 * with its principal set.
 */
let access: AccessControl;
let reader: string;
let admin: string;
before(async () => {
  access = await AccessControl.open({ auth: 'tokens', dataDir: tempFolder('middleware-auth') });
  reader = (await access.store!.createToken({ user: 'alice', scopes: ['read'] })).token;
  admin = (await access.store!.createToken({ user: 'root', scopes: ['admin'] })).token;
});
after(async () => {
  await access.close();
});

test('authenticate, then requireScope', async () => {
  const served = await serveApp((app) => app.get('/x', authenticate(access), requireScope(access, 'admin'), (c) => c.text(`hello ${c.get('principal').user}`)));
  try {
    const as = (token?: string) => fetch(`${served.url}/x`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
    const none = await as();
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer resource_metadata=/);
    const bad = await as('skp_000000000000_nope');
    assert.equal(bad.status, 401);
    assert.match(bad.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const wrongScope = await as(reader);
    assert.equal(wrongScope.status, 403);
    assert.match(wrongScope.headers.get('www-authenticate') ?? '', /insufficient_scope/);
    const ok = await as(admin);
    assert.equal(await ok.text(), 'hello root');
  } finally {
    await served.close();
  }
});
