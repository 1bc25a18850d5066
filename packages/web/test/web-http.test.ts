import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLES, fixtureArgs, makeFixture, serve } from './fixture.js';
import type { Fixture, Served } from './fixture.js';

/**
 * The web catalog over plain HTTP, served by the real CLI: routes, the caller's view, sign-in and CSRF, hostile
 * content, downloads, admin pages. What only a browser can show (script not running, search as you type,
 * keyboard, accessibility) is in web-browser.test.ts.
 */
async function get(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`${base}${path}`, { headers, redirect: 'manual' });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

function cookieOf(headers: Headers, name: string): string | undefined {
  for (const line of headers.getSetCookie()) if (line.startsWith(`${name}=`)) return line;
  return undefined;
}

/** A page's CSRF value and the cookie that goes with it. */
async function csrf(base: string, session?: string): Promise<{ token: string; cookie: string }> {
  // Signed in, the sign-in page sends home: the sign-out form on the home page carries the value too.
  const page = await get(base, session ? '/' : '/signin', session ? { cookie: session } : {});
  const set = cookieOf(page.headers, 'skillport_csrf');
  const match = /name="_csrf" value="([^"]+)"/.exec(page.text);
  assert.ok(set && match, 'the sign-in page sets a CSRF cookie and puts the value in the form');
  return { token: match[1]!, cookie: set.split(';')[0]! };
}

async function post(base: string, path: string, form: Record<string, string>, cookie: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    body: new URLSearchParams(form),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
    redirect: 'manual',
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

describe('web catalog, open server (no --auth)', () => {
  let server: Served;
  let many: string;
  before(async () => {
    // 130 skills: three pages of 50.
    many = mkdtempSync(join(tmpdir(), 'skillport-web-many-'));
    for (let i = 0; i < 130; i++) {
      const name = `bulk-skill-${String(i).padStart(3, '0')}`;
      mkdirSync(join(many, 'bulk', name), { recursive: true });
      writeFileSync(
        join(many, 'bulk', name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: Bulk skill number ${i} for paging${i % 10 === 0 ? ' and zebra crossings' : ''}\nmetadata:\n  tags: ${i % 2 === 0 ? 'even' : 'odd'}\n---\n# ${name}\n`,
      );
    }
    server = await serve([EXAMPLES, many]);
  });
  after(() => server.stop());

  test('GET / is the catalog: HTML, strict CSP, the search box, skills as links with descriptions', async () => {
    const page = await get(server.base, '/');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(page.text, /<input type="search" id="q" name="q"/);
    assert.match(page.text, /<a class="skill-name" href="\/skills\/api-design-review">api-design-review<\/a>/);
    assert.match(page.text, /Review REST and HTTP API designs/);
    assert.match(page.text, /<script src="\/assets\/app\.js" defer><\/script>/);
    assert.doesNotMatch(page.text, /<script>/, 'no inline script');
    assert.match(page.text, /136 skills/);
  });

  test('the assets are served from skillport itself', async () => {
    const js = await get(server.base, '/assets/app.js');
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type') ?? '', /javascript/);
    const css = await get(server.base, '/assets/app.css');
    assert.equal(css.status, 200);
    assert.equal((await get(server.base, '/assets/nope.js')).status, 404);
  });

  test('pages: 50 skills a page, a next link, a page past the end shows the last', async () => {
    const first = await get(server.base, '/?folder=bulk');
    assert.equal((first.text.match(/class="skill-name"/g) ?? []).length, 50);
    assert.match(first.text, /page 1 of 3/);
    assert.match(first.text, /href="\/\?folder=bulk&amp;page=2" rel="next"/);
    const third = await get(server.base, '/?folder=bulk&page=3');
    assert.equal((third.text.match(/class="skill-name"/g) ?? []).length, 30);
    assert.match((await get(server.base, '/?folder=bulk&page=99')).text, /page 3 of 3/);
    assert.equal((await get(server.base, '/?page=-4')).status, 200);
  });

  test('search ranks like list_skills and filters by tag and origin; the fragment is the result list alone', async () => {
    const hits = await get(server.base, '/fragments/results?q=zebra');
    assert.equal(hits.status, 200);
    assert.doesNotMatch(hits.text, /<html/);
    assert.equal((hits.text.match(/class="skill-name"/g) ?? []).length, 13);
    const csv = await get(server.base, '/fragments/results?q=clean+messy+csv');
    const first = /class="skill-name" href="([^"]+)"/.exec(csv.text);
    assert.equal(first?.[1], '/skills/csv-data-cleaning');
    const even = await get(server.base, '/fragments/results?q=zebra&tag=even');
    assert.equal((even.text.match(/class="skill-name"/g) ?? []).length, 13);
    const odd = await get(server.base, '/fragments/results?q=zebra&tag=odd');
    assert.match(odd.text, /No skill matches/);
    const registry = await get(server.base, '/?origin=registry');
    assert.match(registry.text, /0 skills/);
  });

  test('a skill page: rendered SKILL.md with an outline, the frontmatter, the files, the use-it panel', async () => {
    const page = await get(server.base, '/skills/csv-data-cleaning');
    assert.equal(page.status, 200);
    assert.match(page.text, /<h1 id="h-[^"]+">/);
    assert.match(page.text, /<ol class="outline">/);
    assert.match(page.text, /<table class="kv">/);
    assert.match(page.text, /class="tree"/);
    assert.match(page.text, /skillport install http:\/\/127\.0\.0\.1:\d+ csv-data-cleaning --agent claude-code/);
    assert.match(page.text, /&quot;type&quot;: &quot;http&quot;/);
  });

  test('missing skills, files and malformed paths are 404 pages, never a crash', async () => {
    for (const path of [
      '/skills/nope',
      '/skills/%ZZ',
      '/skills/csv-data-cleaning/-/files/nope.md',
      '/skills/csv-data-cleaning/-/files/..%2F..%2Fetc%2Fpasswd',
      '/skills/a/../b',
      '/skills/csv-data-cleaning/-/bogus',
      '/skills/',
    ]) {
      const page = await get(server.base, path);
      assert.equal(page.status, 404, path);
      assert.match(page.text, /There is no skill or page at this address/, path);
    }
    assert.equal((await get(server.base, `/?q=${'x'.repeat(5000)}`)).status, 200);
    const posted = await fetch(`${server.base}/`, { method: 'POST', body: 'x' });
    assert.equal(posted.status, 405);
  });

  test('/mcp and /healthz are unchanged; unknown paths still 404 as before', async () => {
    const health = await get(server.base, '/healthz');
    assert.equal(health.status, 200);
    const mcp = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.notEqual(mcp.status, 404);
    const unknown = await get(server.base, '/wp-admin');
    assert.equal(unknown.status, 404);
    assert.match(unknown.text, /jsonrpc/);
  });
});

test('--no-web leaves / to MCP as before (a JSON-RPC 404)', async () => {
  const server = await serve([EXAMPLES, '--no-web']);
  try {
    const page = await get(server.base, '/');
    assert.equal(page.status, 404);
    assert.match(page.text, /Not found: MCP is served at \/mcp/);
    assert.equal((await get(server.base, '/assets/app.js')).status, 404);
  } finally {
    await server.stop();
  }
});

describe('web catalog with --auth tokens, a policy and a registry', () => {
  let fixture: Fixture;
  let server: Served;
  let admin: string;
  let reader: string;
  before(async () => {
    fixture = makeFixture();
    server = await serve(fixtureArgs(fixture));
    admin = `skillport_session=${encodeURIComponent(fixture.adminToken)}`;
    reader = `skillport_session=${encodeURIComponent(fixture.readerToken)}`;
  });
  after(() => server.stop());

  test('without a session, pages send to the sign-in page and fragments answer 401', async () => {
    const page = await get(server.base, '/skills/pdf-tools');
    assert.equal(page.status, 303);
    assert.equal(page.headers.get('location'), '/signin?next=%2Fskills%2Fpdf-tools');
    assert.equal((await get(server.base, '/fragments/results?q=pdf')).status, 401);
    assert.equal((await get(server.base, '/signin')).status, 200);
  });

  test('sign-in takes a token into an HttpOnly SameSite=Strict cookie (Secure behind HTTPS); CSRF is required', async () => {
    const form = await csrf(server.base);
    const refused = await post(server.base, '/signin', { token: fixture.readerToken, next: '/' }, 'other=1');
    assert.equal(refused.status, 403, 'no CSRF cookie');
    const forged = await post(server.base, '/signin', { token: fixture.readerToken, _csrf: 'x'.repeat(32) }, form.cookie);
    assert.equal(forged.status, 403, 'wrong CSRF value');
    const crossSite = await post(server.base, '/signin', { token: fixture.readerToken, _csrf: form.token }, form.cookie, { 'sec-fetch-site': 'cross-site' });
    assert.equal(crossSite.status, 403, 'a cross-site post');
    const bad = await post(server.base, '/signin', { token: 'skp_000000000000_nope', _csrf: form.token }, form.cookie);
    assert.equal(bad.status, 401);
    assert.match(bad.text, /role="alert"/);
    const ok = await post(server.base, '/signin', { token: fixture.readerToken, _csrf: form.token, next: '/skills/pdf-tools' }, form.cookie);
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get('location'), '/skills/pdf-tools');
    const session = cookieOf(ok.headers, 'skillport_session') ?? '';
    assert.match(session, /HttpOnly/);
    assert.match(session, /SameSite=Strict/);
    assert.doesNotMatch(session, /Secure/);
    const offsite = await post(server.base, '/signin', { token: fixture.readerToken, _csrf: form.token, next: '//evil.example/' }, form.cookie);
    assert.equal(offsite.headers.get('location'), '/');
    const https = await post(server.base, '/signin', { token: fixture.readerToken, _csrf: form.token }, form.cookie, { 'x-forwarded-proto': 'https' });
    assert.match(cookieOf(https.headers, 'skillport_session') ?? '', /; Secure/);
  });

  test("every page answers from the caller's view: a hidden skill is the same 404 as a missing one", async () => {
    const hidden = await get(server.base, '/skills/lab/secret-skill', { cookie: reader });
    const missing = await get(server.base, '/skills/lab/no-such-skill', { cookie: reader });
    assert.equal(hidden.status, 404);
    const withoutCsrf = (text: string) => text.replace(/name="_csrf" value="[^"]+"/, '');
    assert.equal(withoutCsrf(hidden.text), withoutCsrf(missing.text));
    assert.equal((await get(server.base, '/skills/lab/secret-skill/-/files/SKILL.md', { cookie: reader })).status, 404);
    assert.equal((await get(server.base, '/skills/lab/secret-skill/-/raw/SKILL.md', { cookie: reader })).status, 404);
    const search = await get(server.base, '/fragments/results?q=deployment+runbook', { cookie: reader });
    assert.doesNotMatch(search.text, /secret-skill/);
    const home = await get(server.base, '/', { cookie: reader });
    assert.doesNotMatch(home.text, /secret-skill|internal \(/);
    assert.equal((await get(server.base, '/skills/lab/secret-skill', { cookie: admin })).status, 200);
    assert.match((await get(server.base, '/fragments/results?q=deployment+runbook', { cookie: admin })).text, /secret-skill/);
    // A bearer header works too (curl), with the same view.
    assert.equal((await get(server.base, '/skills/lab/secret-skill', { authorization: `Bearer ${fixture.readerToken}` })).status, 404);
  });

  test('versions from the registry: tags, revoked with its reason, signature and signer, provenance, review', async () => {
    const page = await get(server.base, '/skills/pdf-tools', { cookie: reader });
    assert.equal(page.status, 200);
    assert.match(page.text, /<table class="versions">/);
    assert.match(page.text, /leaked a credential in scripts\/upload\.sh/);
    assert.match(page.text, /<span class="state ok">signed<\/span> <code class="digest" title="ed25519:/);
    assert.match(page.text, /https:\/\/git\.example\/acme\/skills @ <code>9a8b7c6d5e4f<\/code>/);
    assert.match(page.text, /<span class="pill">latest<\/span>/);
    assert.match(page.text, /approved/);
    assert.match(page.text, /href="\/skills\/1\.0\.0\/pdf-tools">1\.0\.0<\/a>/);
    const old = await get(server.base, '/skills/1.0.0/pdf-tools', { cookie: reader });
    assert.equal(old.status, 200);
    assert.match(old.text, /Use camelot for tables\./);
    const revoked = await get(server.base, '/skills/0.9.0/pdf-tools', { cookie: reader });
    assert.equal(revoked.status, 410);
    assert.match(revoked.text, /leaked a credential/);
  });

  test('compare: files added and changed, a line diff; a revoked version is refused with its reason', async () => {
    const page = await get(server.base, '/skills/pdf-tools/-/compare?from=1.0.0&to=1.1.0', { cookie: reader });
    assert.equal(page.status, 200);
    assert.match(page.text, /<tr class="added"><th scope="row">scripts\/merge\.py<\/th>/);
    assert.match(page.text, /<tr class="changed"><th scope="row"><a href="#diff-SKILL_md">SKILL\.md<\/a>/);
    assert.match(page.text, /<tr class="del">[^]*?Use `pdftotext` to extract text\.<\/td><\/tr>/);
    assert.match(page.text, /<tr class="add">[^]*?Use `pdftotext -layout` to extract text, keeping columns\.<\/td><\/tr>/);
    const refused = await get(server.base, '/skills/pdf-tools/-/compare?from=0.9.0&to=1.1.0', { cookie: reader });
    assert.equal(refused.status, 410);
    assert.match(refused.text, /leaked a credential/);
    assert.equal((await get(server.base, '/skills/pdf-tools/-/compare?from=7.7.7&to=1.1.0', { cookie: reader })).status, 404);
  });

  test('hostile SKILL.md: raw HTML is text, javascript:/data:/vbscript: and protocol-relative links are dropped', async () => {
    const page = await get(server.base, '/skills/lab/hostile-markdown', { cookie: reader });
    assert.equal(page.status, 200);
    const body = page.text.replace('<script src="/assets/app.js" defer></script>', '');
    assert.doesNotMatch(body, /<script/i);
    assert.doesNotMatch(body, /<(img|iframe|svg)\b[^>]*\bon\w+=/i);
    assert.doesNotMatch(body, /<iframe/i);
    assert.doesNotMatch(body, /href="(javascript|data|vbscript):/i);
    assert.doesNotMatch(body, /href="\/\/evil/);
    assert.doesNotMatch(body, /<img src="https:/);
    assert.doesNotMatch(body, /style="/);
    assert.match(body, /&lt;script&gt;window\.__pwned = 'script tag'&lt;\/script&gt;/);
    // Relative links point at the skill's file pages.
    assert.match(body, /<a href="\/skills\/lab\/hostile-markdown\/-\/files\/evil\.html">the page<\/a>/);
  });

  test('HTML and SVG files are never rendered inline: their page shows text, their bytes come as attachments', async () => {
    const view = await get(server.base, '/skills/lab/hostile-markdown/-/files/evil.svg', { cookie: reader });
    assert.equal(view.status, 200);
    assert.match(view.text, /&lt;svg xmlns=/);
    for (const name of ['evil.html', 'evil.svg']) {
      const raw = await get(server.base, `/skills/lab/hostile-markdown/-/raw/${name}?inline=1`, { cookie: reader, 'sec-fetch-dest': 'image' });
      assert.equal(raw.status, 200);
      assert.match(raw.headers.get('content-disposition') ?? '', /^attachment; filename="evil\.(html|svg)"/);
      assert.equal(raw.headers.get('content-type'), 'text/plain; charset=utf-8');
      assert.match(raw.headers.get('content-security-policy') ?? '', /sandbox/);
      assert.equal(raw.headers.get('x-content-type-options'), 'nosniff');
    }
  });

  test('admin pages: only for admin; the audit log (filters), tokens (revoke with CSRF), the policy', async () => {
    assert.equal((await get(server.base, '/admin/audit', { cookie: reader })).status, 403);
    assert.doesNotMatch((await get(server.base, '/', { cookie: reader })).text, /href="\/admin\/audit"/);
    await get(server.base, '/skills/csv-data-cleaning', { cookie: reader });
    const audit = await get(server.base, '/admin/audit?user=reader&skill=csv-data-cleaning', { cookie: admin });
    assert.equal(audit.status, 200);
    assert.match(audit.text, /<td>reader \(token [0-9a-f]+\)<\/td><td>read<\/td><td>web<\/td><td>csv-data-cleaning/);
    assert.doesNotMatch(audit.text, /<td>admin \(token/);
    assert.equal((await get(server.base, '/admin/audit?since=yesterday', { cookie: admin })).status, 400);
    assert.match((await get(server.base, '/admin/audit?since=1h&until=2000-01-01', { cookie: admin })).text, /No event matches/);
    const policy = await get(server.base, '/admin/policy', { cookie: admin });
    assert.match(policy.text, /allow: \[user:admin\]/);
    const tokens = await get(server.base, '/admin/tokens', { cookie: admin });
    const id = /name="id" value="([0-9a-f]+)"><button type="submit" class="danger" aria-label="Revoke token [0-9a-f]+ of reader"/.exec(tokens.text)?.[1];
    assert.ok(id, 'the reader token has a revoke button');
    const form = await csrf(server.base, admin);
    const both = `${admin}; ${form.cookie}`;
    assert.equal((await post(server.base, '/admin/tokens/revoke', { id }, both)).status, 403, 'no CSRF value');
    assert.equal((await post(server.base, '/admin/tokens/revoke', { id, _csrf: form.token }, `${reader}; ${form.cookie}`)).status, 403, 'not an admin');
    const done = await post(server.base, '/admin/tokens/revoke', { id, _csrf: form.token }, both);
    assert.equal(done.status, 303);
    assert.match(decodeURIComponent(done.headers.get('location') ?? ''), /revoked/);
    // The revoked token's session is over: back to sign-in, and its cookie is cleared.
    const after = await get(server.base, '/', { cookie: reader });
    assert.equal(after.status, 303);
    assert.match(cookieOf(after.headers, 'skillport_session') ?? '', /Max-Age=0/);
  });
});
