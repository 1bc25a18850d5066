import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createToken, makeTree, publish as publishCli, removeTrees, startHttp, storeDir } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * The gate in the web catalog, through a real `serve --http --data --auth tokens --policy` process: the admin review
 * page lists a held version with its findings; approve and reject are CSRF-protected forms, audited; a held version
 * has no page for others; the skill page shows the version's scan and similar skills within the caller's view.
 */
const POLICY = `default: none
rules:
  - skills: ["tool-*"]
    allow: [org:acme]
    revoke: [user:lead]
  - skills: ["hidden-*"]
    allow: [org:beta]
gate:
  review: medium
`;
const skill = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;

async function get(base: string, path: string, cookie: string) {
  const response = await fetch(`${base}${path}`, { headers: { cookie }, redirect: 'manual' });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

async function post(base: string, path: string, form: Record<string, string>, cookie: string) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    body: new URLSearchParams(form),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    redirect: 'manual',
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** Publishes a folder holding `text` as its SKILL.md through the real CLI; returns its JSON answer. */
async function publish(base: string, token: string, name: string, version: string, text: string): Promise<Record<string, unknown>> {
  const folder = makeTree({ [`${name}/SKILL.md`]: text });
  const run = await publishCli([join(folder, name), '--version', version, '--registry', base, '--token', token]);
  assert.equal(run.code, 0, run.stderr);
  return run.json!;
}

describe('the review queue and scan in the web catalog', () => {
  let server: RunningServer;
  let base: string;
  const t: Record<string, string> = {};
  before(async () => {
    const data = storeDir();
    const policy = join(makeTree({}), 'policy.yaml');
    writeFileSync(policy, POLICY);
    t['ci'] = await createToken(data, ['--user', 'ci', '--org', 'acme', '--scope', 'publish']);
    t['admin'] = await createToken(data, ['--user', 'root', '--org', 'acme', '--scope', 'admin']);
    t['reader'] = await createToken(data, ['--user', 'alice', '--org', 'acme']);
    t['beta'] = await createToken(data, ['--user', 'bob', '--org', 'beta', '--scope', 'publish']);
    t['lead'] = await createToken(data, ['--user', 'lead', '--org', 'acme', '--scope', 'publish']);
    server = await startHttp(['--data', data, '--auth', 'tokens', '--policy', policy]);
    base = server.url.replace(/\/mcp$/, '');
    await publish(base, t['ci']!, 'tool-pdf', '1.0.0', skill('tool-pdf', 'Extract text and tables from PDF files.', '# PDF\n\nRead the file.'));
    await publish(base, t['ci']!, 'tool-pdfs', '1.0.0', skill('tool-pdfs', 'Extract text and tables from PDF files.', '# PDFs\n\nRead the files.'));
    await publish(base, t['beta']!, 'hidden-pdf', '1.0.0', skill('hidden-pdf', 'Extract text and tables from PDF files.', '# Hidden'));
    const held = await publish(
      base,
      t['ci']!,
      'tool-setup',
      '1.0.0',
      skill('tool-setup', 'Sets the machine up.', '```bash\nsudo apt-get install -y qpdf\n```'),
    );
    assert.equal(held['review'], 'pending');
    const lint = await publish(base, t['ci']!, 'tool-lint', '1.0.0', skill('tool-lint', 'Lints the tree.', '```bash\nsudo npm i -g eslint\n```'));
    assert.equal(lint['review'], 'pending');
  });
  after(async () => {
    await server?.stop();
    removeTrees();
  });
  const session = (who: string) => `skillport_session=${encodeURIComponent(t[who]!)}`;

  test('a held version has no page for readers, and is listed with its findings on the admin review page', async () => {
    assert.equal((await get(base, '/skills/tool-setup', session('reader'))).status, 404);
    assert.equal((await get(base, '/admin/review', session('reader'))).status, 403);
    const page = await get(base, '/admin/review', session('admin'));
    assert.equal(page.status, 200);
    assert.match(page.text, /<h2>tool-setup@1\.0\.0<\/h2>/);
    assert.match(page.text, /<code>script-sudo<\/code>/);
    assert.match(page.text, /sudo apt-get install -y qpdf/);
  });

  test('approve and reject are CSRF-protected forms; a decision is audited and serves the version', async () => {
    const { value: token, cookie: csrfCookie } = await csrfFor('admin');
    const form = { name: 'tool-setup', version: '1.0.0', decision: 'approved', reason: 'package install only' };
    assert.equal((await post(base, '/admin/review/decide', form, `${session('admin')}; ${csrfCookie}`)).status, 403, 'no CSRF value');
    assert.equal((await post(base, '/admin/review/decide', { ...form, _csrf: token }, `${session('reader')}; ${csrfCookie}`)).status, 403, 'not an admin');
    const done = await post(base, '/admin/review/decide', { ...form, _csrf: token }, `${session('admin')}; ${csrfCookie}`);
    assert.equal(done.status, 303);
    assert.match(new URL(done.headers.get('location') ?? '', base).searchParams.get('notice') ?? '', /tool-setup@1\.0\.0 approved/);
    const page = await get(base, '/skills/tool-setup', session('reader'));
    assert.equal(page.status, 200);
    assert.match(page.text, /<h2 id="scan-h">Scan<\/h2><p class="meta">The registry scanned this version at publish: 1 medium\.<\/p>/);
    const audit = await get(base, '/admin/audit', session('admin'));
    assert.match(audit.text, /<td>review<\/td><td>web<\/td>/);
  });

  test('the skill page names similar skills of the caller’s view, never a hidden one', async () => {
    const page = await get(base, '/skills/tool-pdf', session('reader'));
    assert.match(page.text, /<h2 id="similar-h">Similar skills<\/h2>/);
    assert.match(page.text, /<a href="\/skills\/tool-pdfs">tool-pdfs<\/a>/);
    assert.doesNotMatch(page.text, /hidden-pdf/);
  });

  /** A CSRF value and its cookie, from any page the viewer may open. */
  async function csrfFor(who: string): Promise<{ value: string; cookie: string }> {
    const home = await get(base, '/', session(who));
    const value = /name="_csrf" value="([^"]+)"/.exec(home.text)?.[1];
    const cookie = home.headers
      .getSetCookie()
      .find((line) => line.startsWith('skillport_csrf='))
      ?.split(';')[0];
    assert.ok(value && cookie);
    return { value, cookie };
  }

  test('a per-name reviewer (a policy revoke: grant, publish scope, no admin) reviews on /review; the decision is audited', async () => {
    const home = await get(base, '/', session('lead'));
    assert.match(home.text, /<a href="\/review">Review<\/a>/);
    assert.doesNotMatch(home.text, /href="\/admin\/audit"/, 'no admin link without the admin scope');
    assert.equal((await get(base, '/admin/review', session('lead'))).status, 403, 'the admin pages still need the admin scope');
    const page = await get(base, '/review', session('lead'));
    assert.equal(page.status, 200);
    assert.match(page.text, /<h2>tool-lint@1\.0\.0<\/h2>/);
    assert.match(page.text, /action="\/review\/decide"/);
    const csrf = await csrfFor('lead');
    const form = { name: 'tool-lint', version: '1.0.0', decision: 'approved', reason: 'global lint install is fine' };
    assert.equal((await post(base, '/review/decide', form, `${session('lead')}; ${csrf.cookie}`)).status, 403, 'no CSRF value');
    const done = await post(base, '/review/decide', { ...form, _csrf: csrf.value }, `${session('lead')}; ${csrf.cookie}`);
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location')?.split('?')[0], '/review');
    assert.match(new URL(done.headers.get('location') ?? '', base).searchParams.get('notice') ?? '', /tool-lint@1\.0\.0 approved/);
    assert.equal((await get(base, '/skills/tool-lint', session('reader'))).status, 200, 'approved: served to readers');
    const audit = await get(base, '/admin/audit?skill=tool-lint', session('admin'));
    assert.match(audit.text, /<td>lead \(token [0-9a-f]+\)<\/td><td>review<\/td><td>web<\/td><td>tool-lint/);
    assert.match(audit.text, /<td>review<\/td><td>web<\/td>/);
    assert.match(audit.text, /global lint install is fine/);
  });

  test('a publisher sees its own held version without the forms, and cannot decide it; others see nothing of it', async () => {
    await publish(base, t['ci']!, 'tool-fmt', '1.0.0', skill('tool-fmt', 'Formats the tree.', '```bash\nsudo npm i -g prettier\n```'));
    const own = await get(base, '/review', session('ci'));
    assert.match(own.text, /<h2>tool-fmt@1\.0\.0<\/h2>/);
    assert.match(own.text, /Waiting for a reviewer of tool-fmt/);
    assert.doesNotMatch(own.text, /action="\/review\/decide"/);
    const csrf = await csrfFor('ci');
    const form = { name: 'tool-fmt', version: '1.0.0', decision: 'approved', reason: 'mine', _csrf: csrf.value };
    const refused = await post(base, '/review/decide', form, `${session('ci')}; ${csrf.cookie}`);
    assert.equal(refused.status, 303);
    assert.doesNotMatch(new URL(refused.headers.get('location') ?? '', base).searchParams.get('notice') ?? '', /approved\.$/);
    assert.equal((await get(base, '/skills/tool-fmt', session('reader'))).status, 404, 'still held');
    // Another organisation's publisher: no such version, as for one that does not exist; a reader: an empty queue.
    const beta = await csrfFor('beta');
    const hidden = await post(base, '/review/decide', { ...form, _csrf: beta.value }, `${session('beta')}; ${beta.cookie}`);
    const missing = await post(base, '/review/decide', { ...form, name: 'tool-none', _csrf: beta.value }, `${session('beta')}; ${beta.cookie}`);
    const notice = (response: { headers: Headers }) => new URL(response.headers.get('location') ?? '', base).searchParams.get('notice') ?? '';
    assert.equal(notice(hidden).replaceAll('tool-fmt', 'NAME'), notice(missing).replaceAll('tool-none', 'NAME'));
    assert.doesNotMatch((await get(base, '/review', session('beta'))).text, /tool-/);
    assert.match((await get(base, '/review', session('reader'))).text, /Nothing is waiting for review/);
  });
});
