import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CLI, EXAMPLES, startStaticHost } from '@skillport/test-kit';
import type { StaticHost } from '@skillport/test-kit';
import type { Browser } from 'playwright-core';
import { NO_CHROMIUM, chromiumPath, launch } from './browser.js';
import { serve } from './fixture.js';
import type { Served } from './fixture.js';

/**
 * Where sign-in sends the browser next, and what a broken session cookie does. `next` is resolved as a URL against
 * the site and kept only when it stays on the site's origin: every spelling a browser reads as another host (a tab
 * or backslash after the slash, protocol-relative, scheme-relative, encoded) goes to `/`. A session cookie that is
 * not a token (undecodable, garbage, a wrong secret) is cleared and the caller is signed out, on every page. Over
 * plain HTTP, then in Chromium, which is what decides where a Location really leads.
 */

/** Each `next` a browser would follow off the site; `HOST` is replaced by a real local server's host:port. */
const HOSTILE_NEXT = [
  '/\t/HOST/phish',
  '/\\HOST/phish',
  '//HOST/phish',
  '///HOST/phish',
  '/\\/HOST/phish',
  '/\t\\HOST/phish',
  '\t//HOST/phish',
  ' //HOST/phish',
  'https:HOST/phish',
  'http://HOST/phish',
  'HTTP://HOST/phish',
  '/.//HOST/phish',
  '/..//HOST/phish',
  '/%2e//HOST/phish',
  'javascript:alert(1)',
  '/\r\nlocation: http://HOST/phish',
];

function token(dataDir: string, user: string): string {
  return execFileSync(process.execPath, [CLI, 'token', 'create', '--data', dataDir, '--user', user, '--description', 'web session tests'], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  }).trim();
}

async function get(base: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, { headers, redirect: 'manual' });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

function setCookie(headers: Headers, name: string): string | undefined {
  return headers.getSetCookie().find((line) => line.startsWith(`${name}=`));
}

describe('web sign-in: next stays on the site; a bad session cookie signs out', () => {
  let server: Served;
  let evil: StaticHost;
  let reader: string;
  let dataDir: string;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'skillport-web-session-'));
    reader = token(dataDir, 'reader');
    server = await serve([EXAMPLES, '--data', dataDir, '--auth', 'tokens']);
    evil = await startStaticHost({ '/phish': 'phished' });
  });
  after(async () => {
    await server.stop();
    await evil.close();
  });
  const evilHost = () => evil.origin.slice('http://'.length);
  const hostile = () => HOSTILE_NEXT.map((next) => next.replace('HOST', evilHost()));

  test('signed in, GET /signin?next=… sends only to a path of this site', async () => {
    const session = { cookie: `skillport_session=${encodeURIComponent(reader)}` };
    for (const next of hostile()) {
      const answer = await get(server.base, `/signin?next=${encodeURIComponent(next)}`, session);
      assert.equal(answer.status, 303, JSON.stringify(next));
      assert.equal(answer.headers.get('location'), '/', `next=${JSON.stringify(next)} must send home`);
    }
    // Paths of the site are kept, with their query and fragment; an absolute URL of the site itself becomes its path.
    for (const [next, expected] of [
      ['/skills/pdf-tools?x=1#h', '/skills/pdf-tools?x=1#h'],
      ['/admin/audit', '/admin/audit'],
      [`${server.base}/skills/csv-data-cleaning`, '/skills/csv-data-cleaning'],
      ['/a b', '/a%20b'],
      // Same scheme, no slashes: a relative path of this site, as the browser reads it too.
      [`http:${evilHost()}/phish`, `/${evilHost()}/phish`],
    ] as const) {
      const answer = await get(server.base, `/signin?next=${encodeURIComponent(next)}`, session);
      assert.equal(answer.headers.get('location'), expected, JSON.stringify(next));
    }
  });

  test('the sign-in form carries only a safe next', async () => {
    for (const next of hostile()) {
      const page = await get(server.base, `/signin?next=${encodeURIComponent(next)}`);
      assert.equal(page.status, 200);
      const carried = /name="next" value="([^"]*)"/.exec(page.text)?.[1];
      assert.equal(carried, '/', `the form for next=${JSON.stringify(next)}`);
    }
  });

  test('a malformed, garbage or wrongly-signed session cookie is cleared and treated as signed out on every page', async () => {
    const [, id] = /^skp_([^_]+)_/.exec(reader) ?? [];
    const bad = ['%', '%E0%A4%A', 'garbage', `skp_${id}_${'A'.repeat(43)}`, '%00', encodeURIComponent('é'.repeat(200))];
    for (const value of bad) {
      const cookie = { cookie: `skillport_session=${value}` };
      for (const path of ['/', '/skills/csv-data-cleaning', '/admin', '/admin/tokens', '/skills/csv-data-cleaning/-/files/SKILL.md']) {
        const answer = await get(server.base, path, cookie);
        assert.equal(answer.status, 303, `${path} with cookie ${value}: ${answer.text.slice(0, 200)}`);
        assert.equal(answer.headers.get('location'), `/signin?next=${encodeURIComponent(path)}`);
        assert.match(setCookie(answer.headers, 'skillport_session') ?? '', /^skillport_session=; .*Max-Age=0/, `${path} clears cookie ${value}`);
      }
      const fragment = await get(server.base, '/fragments/results?q=csv', cookie);
      assert.equal(fragment.status, 401, `fragment with cookie ${value}`);
      assert.match(setCookie(fragment.headers, 'skillport_session') ?? '', /Max-Age=0/);
      const signin = await get(server.base, '/signin', cookie);
      assert.equal(signin.status, 200, `the sign-in page with cookie ${value}`);
      assert.match(signin.text, /name="token"/);
      assert.match(setCookie(signin.headers, 'skillport_session') ?? '', /Max-Age=0/);
    }
    // The server served on: a good cookie still signs in.
    const good = await get(server.base, '/', { cookie: `skillport_session=${encodeURIComponent(reader)}` });
    assert.equal(good.status, 200);
    assert.equal(setCookie(good.headers, 'skillport_session'), undefined, 'a good cookie is left alone');
  });

  describe('in Chromium', { skip: chromiumPath() === undefined ? NO_CHROMIUM : false }, () => {
    let browser: Browser;
    before(async () => {
      browser = await launch(chromiumPath()!);
    });
    after(async () => {
      await browser?.close();
    });

    test('signed in, every hostile next leaves the tab on the site', async () => {
      const context = await browser.newContext();
      await context.addCookies([{ name: 'skillport_session', value: encodeURIComponent(reader), url: server.base }]);
      const page = await context.newPage();
      const site = new URL(server.base).origin;
      for (const next of hostile()) {
        await page.goto(`${server.base}/signin?next=${encodeURIComponent(next)}`);
        assert.equal(new URL(page.url()).origin, site, `next=${JSON.stringify(next)} took the tab to ${page.url()}`);
      }
      assert.equal(evil.count('/phish'), 0, 'the other server was never asked');
      await context.close();
    });

    test('signing in through the form with a hostile next lands on the site', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const next = `/\t/${evilHost()}/phish`;
      await page.goto(`${server.base}/signin?next=${encodeURIComponent(next)}`);
      await page.fill('input[name="token"]', reader);
      await Promise.all([
        page.waitForURL((url) => url.pathname === '/' || url.origin !== new URL(server.base).origin),
        page.press('input[name="token"]', 'Enter'),
      ]);
      assert.equal(new URL(page.url()).origin, new URL(server.base).origin, page.url());
      assert.equal(evil.count('/phish'), 0);
      await context.close();
    });

    test('a malformed session cookie shows the sign-in page, and the cookie is gone', async () => {
      const context = await browser.newContext();
      await context.addCookies([{ name: 'skillport_session', value: '%', url: server.base }]);
      const page = await context.newPage();
      const answer = await page.goto(`${server.base}/skills/csv-data-cleaning`);
      assert.equal(answer?.status(), 200);
      assert.equal(new URL(page.url()).pathname, '/signin');
      assert.equal(
        (await context.cookies(server.base)).find((c) => c.name === 'skillport_session'),
        undefined,
      );
      await context.close();
    });
  });
});
