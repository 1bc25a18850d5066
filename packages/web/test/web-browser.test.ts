import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { NO_CHROMIUM, chromiumPath, launch } from './browser.js';
import { fixtureArgs, makeFixture } from './fixture.js';
import type { Fixture, Served } from './fixture.js';
import { serve } from './fixture.js';

/**
 * The web catalog in a real browser: Chromium (Debian's package) driven by playwright-core, against the real CLI.
 * Clicks through sign-in, search as you type, a skill, its files, a compare, sign-out; opens the hostile skills and
 * checks no script of theirs ran; runs axe-core in each page; walks the keyboard path. Skips, saying why, on a
 * machine without Chromium.
 */
const chromium = chromiumPath();
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** axe-core in the page (evaluated through the DevTools protocol: the page's CSP does not apply to it). */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  })) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`);
}

describe('web catalog in Chromium', { skip: chromium === undefined ? NO_CHROMIUM : false }, () => {
  let fixture: Fixture;
  let server: Served;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const dialogs: string[] = [];
  const cspViolations: string[] = [];

  before(async () => {
    fixture = makeFixture();
    server = await serve(fixtureArgs(fixture));
    browser = await launch(chromium!);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function pwned(): Promise<unknown> {
    return page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned);
  }

  test('sign in with a token, then the catalog', async () => {
    await page.goto(`${server.base}/skills/pdf-tools`);
    assert.match(page.url(), /\/signin\?next=%2Fskills%2Fpdf-tools$/);
    assert.deepEqual(await seriousViolations(page), []);
    await page.getByLabel('Token').fill('skp_000000000000_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Token').fill(fixture.readerToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.base}/skills/pdf-tools`);
    assert.equal(await page.getByRole('heading', { level: 1 }).first().innerText(), 'pdf-tools v1.1.0');
    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'skillport_session');
    assert.ok(session?.httpOnly, 'the session cookie is HttpOnly');
    assert.equal(session?.sameSite, 'Strict');
    assert.equal(await page.evaluate(() => document.cookie), '', 'no cookie is readable by script');
  });

  test('search as you type: results follow the typing without a page load, the same ranking as list_skills', async () => {
    await page.goto(`${server.base}/`);
    assert.deepEqual(await seriousViolations(page), []);
    const marker = await page.evaluate(() => ((window as unknown as { __marker: number }).__marker = 42));
    await page.getByRole('searchbox', { name: 'Search skills' }).pressSequentially('clean messy csv', { delay: 20 });
    await page.waitForFunction(() => document.querySelector('#results-summary')?.textContent?.includes('for “clean messy csv”'));
    assert.equal(await page.evaluate(() => (window as unknown as { __marker?: number }).__marker), marker, 'no navigation happened');
    assert.equal(await page.locator('#results .skill-name').first().innerText(), 'csv-data-cleaning');
    assert.match(page.url(), /\?q=clean\+messy\+csv$/);
    await page.getByLabel('Tag').selectOption('pdf');
    await page.waitForFunction(() => document.querySelector('#results-summary')?.textContent?.startsWith('0 results'));
    await page.getByLabel('Tag').selectOption('');
    await page.getByRole('searchbox', { name: 'Search skills' }).fill('pdf tables');
    await page.waitForFunction(() => document.querySelector('#results .skill-name')?.textContent === 'pdf-tools');
  });

  test('a skill: rendered SKILL.md, outline, files, versions; a file; two versions compared', async () => {
    await page.getByRole('link', { name: 'pdf-tools' }).first().click();
    await page.waitForURL(`${server.base}/skills/pdf-tools`);
    assert.deepEqual(await seriousViolations(page), []);
    await page.getByRole('link', { name: 'Tables' }).click();
    assert.match(page.url(), /#h-tables$/);
    const versions = page.locator('table.versions');
    assert.match(await versions.innerText(), /revoked\s+leaked a credential/);
    assert.match(await versions.innerText(), /signed/);
    await page.getByRole('link', { name: 'forms', exact: true }).first().click();
    await page.waitForURL(/\/-\/files\/references\/forms\.md$/);
    assert.match(await page.locator('pre.file-text').innerText(), /Release 1\.1\.0/);
    assert.deepEqual(await seriousViolations(page), []);
    await page.goBack();
    await page.getByLabel('From').selectOption('1.0.0');
    await page.getByLabel('To').selectOption('1.1.0');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL(/\/-\/compare\?from=1\.0\.0&to=1\.1\.0$/);
    assert.match(await page.locator('table.changes').innerText(), /scripts\/merge\.py\s+added/);
    assert.match(await page.locator('table.diff').first().innerText(), /Use `pdftotext -layout` to extract text, keeping columns\./);
    assert.deepEqual(await seriousViolations(page), []);
  });

  test('the copy buttons copy the install line', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    await page.goto(`${server.base}/skills/pdf-tools`);
    await page.getByRole('button', { name: 'Copy' }).first().click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    // The server takes tokens: login first, then install.
    assert.match(
      copied,
      /^echo "<your token>" \| skillport login http:\/\/127\.0\.0\.1:\d+\nskillport install http:\/\/127\.0\.0\.1:\d+ pdf-tools --agent claude-code$/,
    );
  });

  test('hostile skills: no script of theirs runs, the CSP is in force, markup files are not rendered', async () => {
    const response = await page.goto(`${server.base}/skills/lab/hostile-markdown`);
    assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
    await page.waitForTimeout(300);
    assert.equal(await pwned(), undefined);
    assert.equal(await page.locator('.markdown script, .markdown iframe, .markdown img[onerror], .markdown svg').count(), 0);
    assert.equal(await page.locator('a[href^="javascript:"], a[href^="data:"], a[href^="vbscript:"]').count(), 0);
    // Clicking every link in the rendered SKILL.md runs nothing either.
    for (const href of await page.locator('.markdown a').evaluateAll((links) => links.map((link) => link.getAttribute('href'))))
      assert.match(href ?? '', /^(\/skills\/|#|https?:)/);
    await page.getByRole('link', { name: 'the page' }).click();
    await page.waitForURL(/\/-\/files\/evil\.html$/);
    assert.match(await page.locator('pre.file-text').innerText(), /<script>window.__pwned = 'html file'<\/script>/);
    assert.equal(await pwned(), undefined);
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download' }).click();
    assert.equal((await download).suggestedFilename(), 'evil.html');
    assert.equal(await pwned(), undefined);
    // Opened directly, an SVG answers as a download, not a document in this origin.
    const svg = await page.request.get(`${server.base}/skills/lab/hostile-markdown/-/raw/evil.svg`);
    assert.match(svg.headers()['content-disposition'] ?? '', /^attachment/);
    assert.deepEqual(dialogs, []);
    await page.goto(`${server.base}/?q=hostile`);
    assert.equal(await pwned(), undefined);
    assert.deepEqual(dialogs, []);
  });

  test('keyboard: skip link, search, a result, the skill page, all without a mouse', async () => {
    await page.goto(`${server.base}/`);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'q');
    await page.keyboard.type('release notes');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#results-summary')?.textContent?.includes('for “release notes”'));
    // Tab through the filters and the button to the first result.
    let label = '';
    for (let i = 0; i < 10 && label !== 'release-notes'; i++) {
      await page.keyboard.press('Tab');
      label = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText ?? '');
    }
    assert.equal(label, 'release-notes');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${server.base}/skills/release-notes`);
    assert.deepEqual(await seriousViolations(page), []);
  });

  test('with JavaScript off, reading works: search is a plain form, pages are whole', async () => {
    const cookies = await context.cookies();
    const plain = await browser.newContext({ javaScriptEnabled: false });
    try {
      await plain.addCookies(cookies);
      const tab = await plain.newPage();
      await tab.goto(`${server.base}/`);
      await tab.getByRole('searchbox', { name: 'Search skills' }).fill('git commit message');
      await tab.getByRole('button', { name: 'Search' }).click();
      await tab.waitForURL(/\?q=git\+commit\+message/);
      assert.equal(await tab.locator('#results .skill-name').first().innerText(), 'git-commit-messages');
      await tab.locator('#results .skill-name').first().click();
      await tab.waitForURL(`${server.base}/skills/git-commit-messages`);
      assert.ok((await tab.locator('.markdown h1, .markdown h2').count()) > 0);
    } finally {
      await plain.close();
    }
  });

  test('admin pages in the browser, and sign-out', async () => {
    // A reader sees no admin link; an admin signs in and reads the audit log.
    assert.equal(await page.getByRole('link', { name: 'Admin' }).count(), 0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${server.base}/signin`);
    await page.goto(`${server.base}/skills/pdf-tools`);
    assert.match(page.url(), /\/signin\?next=/, 'signed out: pages need sign-in again');
    await page.getByLabel('Token').fill(fixture.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.base}/skills/pdf-tools`);
    await page.getByRole('link', { name: 'Admin' }).click();
    await page.waitForURL(`${server.base}/admin/audit`);
    assert.deepEqual(await seriousViolations(page), []);
    await page.getByLabel('User').fill('reader');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/user=reader/);
    assert.match(await page.locator('table.audit').innerText(), /reader \(token [0-9a-f]+\)\s+read\s+web\s+pdf-tools/);
    await page.getByRole('link', { name: 'Tokens' }).click();
    assert.deepEqual(await seriousViolations(page), []);
    await page.getByRole('link', { name: 'Policy' }).click();
    assert.match(await page.locator('pre.code').innerText(), /secret-skill/);
    assert.deepEqual(cspViolations, [], 'our own pages break no CSP rule');
  });
});
