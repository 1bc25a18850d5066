import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { connectHttp, makeTree, skillMd, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * One Origin policy for every path (http/middleware/host-guard.ts): a browser Origin must be this server's own
 * origin (its host and port, as the Host header names them) or one the operator lists with --allowed-origin. A page
 * on another port of the same machine (`http://127.0.0.1:4199`) once passed on /mcp, where only the host name was
 * compared, while the web catalog's forms refused it. MCP clients send no Origin and are served as before.
 */

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'skills/list', params: {} });
const INSPECTOR = 'http://localhost:6274';

describe('the Origin policy, one for /mcp, the API and the web catalog', () => {
  let server: RunningServer;
  let base: URL;
  before(async () => {
    const dir = makeTree({ 'alpha/SKILL.md': skillMd('alpha') });
    server = await startHttp([dir, '--no-watch', '--allowed-origin', INSPECTOR]);
    base = new URL(server.url);
  });
  after(async () => server.stop());

  const otherPort = () => `http://127.0.0.1:${Number(base.port) === 4199 ? 4198 : 4199}`;
  const ask = (path: string, origin: string | undefined, post = false) =>
    fetch(new URL(path, base), {
      method: post ? 'POST' : 'GET',
      headers: { ...(post ? MCP_HEADERS : {}), ...(origin !== undefined ? { origin } : {}) },
      ...(post ? { body: LIST } : {}),
    });

  test('an Origin of another port on the same host is refused on /mcp, the API, the web catalog and /healthz', async () => {
    for (const origin of [otherPort(), `http://localhost:${base.port}`, 'https://127.0.0.1', 'null']) {
      const mcp = await ask('/mcp', origin, true);
      assert.equal(mcp.status, 403, `/mcp with Origin ${origin}`);
      const body = (await mcp.json()) as { jsonrpc: string; error: { message: string } };
      assert.equal(body.jsonrpc, '2.0');
      assert.match(body.error.message, /Origin/);
      for (const path of ['/api/v1/me', '/', '/healthz']) assert.equal((await ask(path, origin)).status, 403, `${path} with Origin ${origin}`);
    }
  });

  test("the server's own origin and a listed one are served; a request without Origin is too", async () => {
    for (const origin of [base.origin, INSPECTOR, undefined]) {
      assert.equal((await ask('/mcp', origin, true)).status, 200, `/mcp with Origin ${origin}`);
      assert.equal((await ask('/api/v1/me', origin)).status, 200, `/api/v1/me with Origin ${origin}`);
    }
  });

  test('MCP clients (no Origin) and a browser client on a listed origin list and read through the SDK', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const client = await connectHttp(server.url, era);
      try {
        const { skills } = await new SkillsClient(client).list();
        assert.deepEqual(
          skills.map((skill) => skill.uri),
          ['skill://alpha/SKILL.md'],
        );
      } finally {
        await client.close();
      }
    }
    const browser = new Client({ name: 'inspector', version: '1' });
    await browser.connect(new StreamableHTTPClientTransport(base, { requestInit: { headers: { origin: INSPECTOR } } }));
    try {
      assert.equal((await new SkillsClient(browser).list()).skills.length, 1);
    } finally {
      await browser.close();
    }
    const refused = new Client({ name: 'page', version: '1' });
    await assert.rejects(refused.connect(new StreamableHTTPClientTransport(base, { requestInit: { headers: { origin: otherPort() } } })));
  });
});
