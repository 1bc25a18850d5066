import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CLI, makeTree, removeTrees, runCli, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/** `skillport show` prints a skill's requirements and its readiness for the host (--available), over HTTP, stdio and a folder. */
after(removeTrees);

const tree = makeTree({
  'gmail-digest/SKILL.md':
    '---\nname: gmail-digest\ndescription: Send a weekly digest by email.\nrequires:\n  mcp: [rube]\ncompatibility: Needs a Composio account.\n---\n# Digest\n',
});

describe('skillport show: requirements and readiness', () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttp([tree]);
  });
  after(async () => {
    await server?.stop();
  });

  test('needs, then ready once the server is provided; --json for scripts; a bad --available is a usage error', async () => {
    for (const where of [server.url, `stdio:${process.execPath} ${CLI} serve --no-cache ${tree}`, tree]) {
      const lacking = await runCli(['show', where, 'gmail-digest', '--available', 'mcp:github tool:Bash']);
      assert.equal(lacking.code, 0, lacking.stderr);
      assert.match(lacking.stdout, /^requires: {5}MCP server: rube; compatibility: Needs a Composio account\.$/m);
      assert.match(lacking.stdout, /^availability: needs MCP server "rube"$/m);
      const ready = await runCli(['show', where, 'gmail-digest', '--available', 'mcp:rube']);
      assert.match(ready.stdout, /^availability: ready$/m, ready.stdout);
      const unknown = await runCli(['show', where, 'gmail-digest']);
      assert.match(unknown.stdout, /^availability: may need MCP server "rube" \(not reported by the host\) \(say what the host has with --available\)$/m);
    }
    const json = JSON.parse((await runCli(['show', '--json', server.url, 'gmail-digest', '--available', 'mcp:github'])).stdout) as Record<string, unknown>;
    assert.deepEqual((json['requirements'] as { mcpServers: unknown }).mcpServers, [{ name: 'rube' }]);
    assert.deepEqual(json['availability'], { status: 'needs', needs: { mcpServers: ['rube'] } });
    const bad = await runCli(['show', server.url, 'gmail-digest', '--available', 'rube']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /"rube" is not mcp:NAME, tool:NAME or agent:NAME/);
  });
});
