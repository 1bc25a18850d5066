import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createToken, makeTree, removeTrees, startHttp } from '@skillport/test-kit';
import { NO_CHROMIUM, chromiumPath, launch } from './browser.js';
import type { RunningServer } from '@skillport/test-kit';

/**
 * The web catalog shows what a skill needs and, for a signed-in caller, whether the policy's grants meet it; a
 * skill requiring a scope the caller lacks is the same 404 as a missing one.
 */
after(removeTrees);

describe('web catalog: requirements and readiness', () => {
  const data = mkdtempSync(join(tmpdir(), 'skillport-web-req-'));
  const policy = join(mkdtempSync(join(tmpdir(), 'skillport-web-req-policy-')), 'policy.yaml');
  const tree = makeTree({
    'gmail-digest/SKILL.md':
      '---\nname: gmail-digest\ndescription: Send a weekly digest by email.\nrequires:\n  mcp: [rube]\nallowed-tools: Read mcp__rube__send\ncompatibility: Needs a Composio account.\n---\n# Digest\n',
    'billing/SKILL.md': '---\nname: billing\ndescription: Issue refunds.\nrequires:\n  scopes: [billing]\n---\n# Refunds\n',
  });
  const tokens: Record<string, string> = {};
  let server: RunningServer;
  let base: string;
  before(async () => {
    writeFileSync(
      policy,
      'default: public\ngrants:\n  - for: org:acme\n    connections: [rube]\n    scopes: [billing]\n  - for: org:globex\n    connections: [github]\n',
    );
    tokens['alice'] = await createToken(data, ['--user', 'alice', '--org', 'acme']);
    tokens['bob'] = await createToken(data, ['--user', 'bob', '--org', 'globex']);
    server = await startHttp([tree, '--auth', 'tokens', '--data', data, '--policy', policy]);
    base = server.url.replace(/\/mcp$/, '');
  });
  after(async () => {
    await server?.stop();
  });

  const page = async (path: string, who: string) => {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${tokens[who]}` } });
    return { status: response.status, text: await response.text() };
  };

  test('requirements on the page; readiness for the caller; a scope-restricted skill is a 404 without the scope', async () => {
    const alice = await page('/skills/gmail-digest', 'alice');
    assert.equal(alice.status, 200);
    assert.match(alice.text, /<h2 id="req-h">Requirements<\/h2>/);
    assert.match(alice.text, /<dt>MCP servers<\/dt><dd><code>rube<\/code>/);
    assert.match(alice.text, /<dt>Allowed tools<\/dt><dd><code>Read<\/code> <code>mcp__rube__send<\/code>/);
    assert.match(alice.text, /<dt>Compatibility<\/dt><dd>Needs a Composio account\.<\/dd>/);
    assert.match(alice.text, /data-status="ready"><strong>For you:<\/strong> ready/);
    const bob = await page('/skills/gmail-digest', 'bob');
    assert.match(bob.text, /data-status="needs"><strong>For you:<\/strong> needs MCP server &quot;rube&quot;/);

    assert.equal((await page('/skills/billing', 'alice')).status, 200);
    const hidden = await page('/skills/billing', 'bob');
    const missing = await page('/skills/no-such-skill', 'bob');
    assert.equal(hidden.status, 404);
    assert.equal(hidden.text.replaceAll('billing', 'X'), missing.text.replaceAll('no-such-skill', 'X'));
    const home = await page('/', 'bob');
    assert.ok(!home.text.includes('/skills/billing'));
    assert.match(home.text, /<span class="pill needs" title="Needs">MCP: rube<\/span>/);
  });

  test('in Chromium: the panel is a labelled section with the readiness line', { skip: chromiumPath() === undefined ? NO_CHROMIUM : false }, async () => {
    const browser = await launch(chromiumPath()!);
    try {
      const context = await browser.newContext({ extraHTTPHeaders: { authorization: `Bearer ${tokens['bob']}` } });
      const page = await context.newPage();
      await page.goto(`${base}/skills/gmail-digest`);
      const panel = page.getByRole('region', { name: 'Requirements' });
      assert.equal(await panel.isVisible(), true);
      assert.match(await panel.innerText(), /For you: needs MCP server "rube"/);
      assert.match(await panel.innerText(), /MCP servers\s+rube/);
      await context.close();
    } finally {
      await browser.close();
    }
  });
});
