import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AccessControl } from '../src/access/access-control.js';
import { DEFAULT_REQUEST_LIMITS } from '../src/http/limits.js';
import { mcpBodyLimit, mcpRequest } from '../src/http/middleware/mcp-request.js';
import { serveApp } from './middleware-harness.js';

/**
 * http/middleware/mcp-request.ts: the MCP request screen. Oversized, too deep, unparsable, too-large batches and
 * screened-out requests never reach the route; what passes arrives parsed as `rpc`; other media types go on unparsed.
 */
let access: AccessControl;
before(async () => {
  access = await AccessControl.open({});
});
after(async () => {
  await access.close();
});

test('each refusal, and what reaches the route', async () => {
  const limits = { ...DEFAULT_REQUEST_LIMITS, maxBodyBytes: 1024, maxJsonDepth: 4, maxBatch: 2, maxUriLength: 64 };
  const served = await serveApp((app) =>
    app.post('/mcp', mcpBodyLimit(limits), mcpRequest(access, limits), (c) => c.json({ reached: c.get('rpc') ?? 'unparsed' })),
  );
  const post = async (body: string, type = 'application/json') => {
    const response = await fetch(`${served.url}/mcp`, { method: 'POST', headers: { 'content-type': type }, body });
    return { status: response.status, json: (await response.json()) as Record<string, { message: string; code: number } & Record<string, unknown>> };
  };
  try {
    assert.equal((await post('x'.repeat(2000))).status, 413);
    const deep = await post('[[[[[[1]]]]]]');
    assert.equal(deep.status, 400);
    assert.match(deep.json['error']!.message, /--max-json-depth/);
    assert.equal((await post('{nope')).json['error']!.code, -32700);
    const batch = JSON.stringify([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'ping' })));
    assert.match((await post(batch)).json['error']!.message, /--max-batch/);
    const longUri = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: `skill://${'a'.repeat(100)}/SKILL.md` } });
    assert.equal((await post(longUri)).json['error']!.code, -32602);
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    assert.deepEqual((await post(JSON.stringify(ping))).json, { reached: { body: ping, method: 'ping' } });
    assert.deepEqual((await post('hello', 'text/plain')).json, { reached: 'unparsed' });
  } finally {
    await served.close();
  }
});
