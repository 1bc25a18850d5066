import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixtureArgs, makeFixture, runCli, serve } from './fixture.js';
import type { Fixture, Served } from './fixture.js';

/**
 * The web forms' CSRF check against a page of another port of the same host. Cookies are not isolated by port, so
 * such a page can set `skillport_csrf` for this host and post a form carrying the same value; a browser that sends
 * no `Sec-Fetch-Site` (older Safari, embedded views) still sends `Origin`, which must then be this site's.
 */
describe('web forms refuse a post whose Origin is another site, even with a matching csrf cookie', () => {
  let fixture: Fixture;
  let served: Served;
  before(async () => {
    fixture = makeFixture();
    served = await serve(fixtureArgs(fixture));
  });
  after(async () => served.stop());

  const forged = 'abcdefabcdefabcdefabcdefabcdefab';
  const post = (origin: string | undefined, id: string) =>
    fetch(`${served.base}/admin/tokens/revoke`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `skillport_session=${encodeURIComponent(fixture.adminToken)}; skillport_csrf=${forged}`,
        ...(origin !== undefined ? { origin } : {}),
      },
      body: new URLSearchParams({ id, _csrf: forged }).toString(),
    });

  test('another port, another host or an opaque origin: 403, and the token stays valid', async () => {
    const id = fixture.readerToken.slice(4, 16);
    const port = new URL(served.base).port;
    for (const origin of ['http://127.0.0.1:1', 'http://localhost:9999', `http://127.0.0.1:${port}.evil.example`, 'null']) {
      const answer = await post(origin, id);
      assert.equal(answer.status, 403, origin);
    }
    const list = runCli(['token', 'list', '--data', fixture.dataDir, '--json']);
    const reader = (JSON.parse(list.stdout) as { tokens: Array<{ id: string; revokedAt?: string | null }> }).tokens.find((token) => token.id === id);
    assert.ok(reader, list.stdout);
    assert.ok(!reader.revokedAt, 'the reader token was revoked by a forged form');
  });

  test('the site own origin, or no Origin at all (not a browser), is judged by the csrf token as before', async () => {
    const answer = await post(served.base, 'ffffffffffff');
    assert.equal(answer.status, 303);
    assert.equal((await post(undefined, 'ffffffffffff')).status, 303);
  });
});
