import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANONYMOUS } from '../src/access/principal.js';
import type { Principal } from '../src/access/principal.js';
import { clientAddressing } from '../src/http/client-address.js';
import { perClient, perPrincipal } from '../src/http/middleware/client-limits.js';
import { OpenCounts } from '../src/http/open-counts.js';
import { serveApp } from './middleware-harness.js';

/**
 * http/middleware/client-limits.ts: answers in progress per client address (the forwarded one from a trusted proxy)
 * and per identified principal; past a cap 429 naming the flag; a finished answer gives its slot back.
 */
test('per forwarded address and per principal, each answer holding a slot until it closes', async () => {
  const release: Array<() => void> = [];
  const alice: Principal = { ...ANONYMOUS, via: 'token', user: 'alice', tokenId: 'a1' };
  const served = await serveApp((app) =>
    app.get(
      '/slow',
      perClient(clientAddressing({ trust: ['loopback'] }), new OpenCounts(2)),
      async (c, next) => {
        c.set('principal', c.req.header('x-user') === 'alice' ? alice : ANONYMOUS);
        await next();
      },
      perPrincipal(new OpenCounts(1)),
      async (c) => {
        await new Promise<void>((resolve) => release.push(resolve));
        return c.text('done');
      },
    ),
  );
  const ask = (from: string, user = '') => fetch(`${served.url}/slow`, { headers: { 'x-forwarded-for': from, 'x-user': user } });
  try {
    const held = [ask('10.0.0.1', 'alice'), ask('10.0.0.1')];
    await waitUntil(() => release.length === 2);
    const third = await ask('10.0.0.1');
    assert.equal(third.status, 429);
    assert.match(((await third.json()) as { error: { message: string } }).error.message, /from 10\.0\.0\.1: at most 2 .*--max-requests-per-client/);
    const aliceElsewhere = await ask('10.0.0.2', 'alice');
    assert.equal(aliceElsewhere.status, 429);
    assert.match(((await aliceElsewhere.json()) as { error: { message: string } }).error.message, /--max-requests-per-principal/);
    // Another address, anonymous (not counted per principal): served.
    const other = ask('10.0.0.3');
    await waitUntil(() => release.length === 3);
    for (const done of release.splice(0)) done();
    for (const answer of [...(await Promise.all(held)), await other]) assert.equal(await answer.text(), 'done');
    // Slots given back: alice is served again.
    const again = ask('10.0.0.1', 'alice');
    await waitUntil(() => release.length === 1);
    release.splice(0)[0]!();
    assert.equal((await again).status, 200);
  } finally {
    for (const done of release) done();
    await served.close();
  }
});

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition());
}
