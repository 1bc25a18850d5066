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
    const home = await get(base, '/', session('admin'));
    const token = /name="_csrf" value="([^"]+)"/.exec(home.text)?.[1];
    const csrfCookie = home.headers
      .getSetCookie()
      .find((line) => line.startsWith('skillport_csrf='))
      ?.split(';')[0];
    assert.ok(token && csrfCookie);
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
});
