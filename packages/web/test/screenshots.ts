import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { NO_CHROMIUM, chromiumPath, launch } from './browser.js';
import { REPO, fixtureArgs, makeFixture, serve } from './fixture.js';

/**
 * `npm run screenshots`: PNGs of each page of the web catalog into docs/screenshots/ (for the README), taken in
 * Chromium from the test fixture served by the real CLI, signed in as an admin.
 */
const out = join(REPO, 'docs/screenshots');
const path = chromiumPath();
if (path === undefined) {
  process.stderr.write(`screenshots: ${NO_CHROMIUM}\n`);
  process.exit(1);
}
mkdirSync(out, { recursive: true });
const fixture = makeFixture();
const server = await serve(fixtureArgs(fixture));
const browser = await launch(path);
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const shot = async (name: string, full = true) => {
    await page.screenshot({ path: join(out, `${name}.png`), fullPage: full });
    process.stderr.write(`screenshots: docs/screenshots/${name}.png\n`);
  };
  await page.goto(`${server.base}/`);
  await shot('signin', false);
  await page.fill('#token', fixture.adminToken);
  await page.click('button[type=submit]');
  await page.waitForURL(`${server.base}/`);
  await shot('home', false);
  await page.fill('#q', 'clean csv');
  await page.waitForSelector('#results .skill-name');
  await page.waitForTimeout(400);
  await shot('search', false);
  await page.goto(`${server.base}/skills/pdf-tools`);
  await shot('skill');
  await page.goto(`${server.base}/skills/pdf-tools/-/files/references/forms.md`);
  await shot('file', false);
  await page.goto(`${server.base}/skills/pdf-tools/-/compare?from=1.0.0&to=1.1.0`);
  await shot('compare');
  await page.goto(`${server.base}/skills/lab/hostile-markdown`);
  await shot('hostile');
  await page.goto(`${server.base}/admin/audit`);
  await shot('admin-audit', false);
  await page.goto(`${server.base}/admin/tokens`);
  await shot('admin-tokens', false);
} finally {
  await browser.close();
  await server.stop();
}
