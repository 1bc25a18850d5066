import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { CSRF_COOKIE, MAX_FORM_BYTES, csrf } from '../src/http/middleware/csrf.js';
import { serveApp } from './middleware-harness.js';

/**
 * http/middleware/csrf.ts: a POST to a form path passes only with the CSRF cookie's value in `_csrf`, from this site
 * (no cross-site or same-site Sec-Fetch-Site, an Origin only of this host and port); its fields then reach the
 * route. Other methods and paths pass untouched.
 */

const VALUE = 'a'.repeat(32);
let served: Awaited<ReturnType<typeof serveApp>>;
let host: string;
before(async () => {
  served = await serveApp((app) => {
    app.use(
      '*',
      csrf({
        forms: new Set(['/form']),
        refuse: async (_req, res) => {
          res.writeHead(403, { 'content-type': 'text/plain' });
          res.end('refused');
        },
      }),
    );
    app.post('/form', (c) => c.text(`fields ${c.get('form')?.get('x')}`));
    app.all('*', async (c) => c.text(`passed ${c.req.method} ${(await c.req.text()).length}`));
  });
  host = new URL(served.url).host;
});
after(async () => served.close());

function send(path: string, method: string, headers: Record<string, string>, body = ''): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${served.url}${path}`, { method, headers: { host, ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded', cookie: `${CSRF_COOKIE}=${VALUE}` };
const body = (csrfValue: string) => `x=hello&_csrf=${csrfValue}`;

test('a form post with the cookie value, from this site, passes with its fields', async () => {
  const extras: Array<Record<string, string>> = [{}, { origin: `http://${host}` }, { 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'none' }];
  for (const extra of extras) {
    const answer = await send('/form', 'POST', { ...FORM, ...extra }, body(VALUE));
    assert.deepEqual(answer, { status: 200, body: 'fields hello' }, JSON.stringify(extra));
  }
});

test('a forged, cross-site, other-origin, unreadable or oversized form post is refused', async () => {
  const port = Number(new URL(served.url).port);
  const cases: Array<[string, Record<string, string>, string]> = [
    ['no cookie', { 'content-type': FORM['content-type'] }, body(VALUE)],
    ['wrong value', FORM, body('b'.repeat(32))],
    ['shorter value', FORM, body('a'.repeat(31))],
    ['no value', FORM, 'x=hello'],
    ['cross-site', { ...FORM, 'sec-fetch-site': 'cross-site' }, body(VALUE)],
    ['same-site', { ...FORM, 'sec-fetch-site': 'same-site' }, body(VALUE)],
    ['another port', { ...FORM, origin: `http://127.0.0.1:${port + 1}` }, body(VALUE)],
    ['an opaque origin', { ...FORM, origin: 'null' }, body(VALUE)],
    ['JSON, not a form', { ...FORM, 'content-type': 'application/json' }, JSON.stringify({ _csrf: VALUE })],
    ['over the form limit', FORM, `${body(VALUE)}&pad=${'p'.repeat(MAX_FORM_BYTES)}`],
  ];
  for (const [label, headers, payload] of cases) assert.deepEqual(await send('/form', 'POST', headers, payload), { status: 403, body: 'refused' }, label);
});

test('other methods and other paths pass untouched, their bodies unread', async () => {
  assert.deepEqual(await send('/form', 'GET', {}), { status: 200, body: 'passed GET 0' });
  assert.deepEqual(await send('/other', 'POST', { 'content-type': FORM['content-type'] }, 'x=1'), { status: 200, body: 'passed POST 3' });
  assert.deepEqual(await send('/form?next=/', 'POST', FORM, body(VALUE)), { status: 200, body: 'fields hello' });
});
