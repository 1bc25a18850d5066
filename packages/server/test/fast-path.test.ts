import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { EXAMPLES, connectHttp, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * The HTTP fast path (ADR 0002) must answer exactly as the SDK path does. Two real servers on the same folder,
 * one with --no-fast-path, get the same raw requests (shaped as the SDK client sends them); the answers must be equal.
 */
type Era = 'legacy' | 'modern';

function request(era: Era, id: number, method: string, params: Record<string, unknown>): { headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (era === 'modern') {
    headers['mcp-protocol-version'] = '2026-07-28';
    headers['mcp-method'] = method;
    if (method === 'resources/read' && typeof params['uri'] === 'string') headers['mcp-name'] = params['uri'];
    params = {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'eq', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    };
  } else {
    headers['mcp-protocol-version'] = '2025-11-25';
  }
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) };
}

async function send(url: string, era: Era, id: number, method: string, params: Record<string, unknown>) {
  const { headers, body } = request(era, id, method, params);
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const json = type.startsWith('text/event-stream') ? JSON.parse(/^data: (.*)$/m.exec(text)![1]!) : JSON.parse(text);
  return { status: response.status, type: type.split(';')[0], json };
}

describe('HTTP fast path answers exactly like the SDK path', () => {
  let fast: RunningServer;
  let sdk: RunningServer;
  before(async () => {
    [fast, sdk] = await Promise.all([startHttp([EXAMPLES, '--page-size', '2']), startHttp([EXAMPLES, '--page-size', '2', '--no-fast-path'])]);
  });
  after(async () => {
    await Promise.all([fast.stop(), sdk.stop()]);
  });

  const cases: Array<[string, Record<string, unknown>]> = [
    ['skills/list', {}],
    ['skills/get', { uri: 'skill://csv-data-cleaning/SKILL.md' }],
    ['skills/get', { uri: 'skill://missing/SKILL.md' }],
    ['resources/read', { uri: 'skill://csv-data-cleaning/SKILL.md' }],
    ['resources/read', { uri: 'skill://csv-data-cleaning/scripts/profile_csv.py' }],
    ['resources/read', { uri: 'skill://release-notes/assets/logo.png' }],
    ['resources/read', { uri: 'skill://release-notes/assets' }],
    ['resources/read', { uri: 'skill://release-notes/nope.md' }],
    ['resources/read', { uri: 'skill://release-notes/../csv-data-cleaning/SKILL.md' }],
    ['resources/directory/read', { uri: 'skill://api-design-review' }],
    ['resources/directory/read', { uri: 'skill://api-design-review/references' }],
    ['resources/directory/read', { uri: 'skill://api-design-review/SKILL.md' }],
    ['skills/list', { cursor: 'not-a-cursor' }],
  ];

  for (const era of ['legacy', 'modern'] as const) {
    test(`same answers (${era})`, async () => {
      let id = 1;
      for (const [method, params] of cases) {
        const [a, b] = await Promise.all([send(fast.url, era, id, method, params), send(sdk.url, era, id, method, params)]);
        assert.deepEqual(a, b, `${method} ${JSON.stringify(params)}`);
        id++;
      }
      // Walk every page of skills/list on both and compare page by page.
      let cursor: string | undefined;
      let pages = 0;
      do {
        const params = cursor === undefined ? {} : { cursor };
        const [a, b] = await Promise.all([send(fast.url, era, id, 'skills/list', params), send(sdk.url, era, id, 'skills/list', params)]);
        assert.deepEqual(a, b);
        cursor = a.json.result.nextCursor;
        pages++;
        id++;
      } while (cursor !== undefined);
      assert.equal(pages, 3);
    });
  }

  test('the fast path was really taken', async () => {
    const health = (await (await fetch(fast.url.replace(/\/mcp$/, '/healthz'))).json()) as { requests: { fastPath: number; sdk: number } };
    const baseline = (await (await fetch(sdk.url.replace(/\/mcp$/, '/healthz'))).json()) as { requests: { fastPath: number; sdk: number } };
    assert.ok(health.requests.fastPath >= 20, JSON.stringify(health));
    assert.equal(baseline.requests.fastPath, 0);
  });
});

/**
 * The read figures in docs/benchmarks.md assume that real clients' requests take the fast path. Here the SDK's own
 * client (both eras) lists and reads through SkillsClient, and the server's counters (/healthz) must show those
 * requests on the fast path; a batch and a notification must not take it.
 */
describe('requests of the SDK client take the fast path', () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttp([EXAMPLES]);
  });
  after(async () => {
    await server.stop();
  });
  const counters = async () =>
    ((await (await fetch(server.url.replace(/\/mcp$/, '/healthz'))).json()) as { requests: { fastPath: number; sdk: number } }).requests;

  for (const era of ['legacy', 'modern'] as const) {
    test(`skills/list, skills/get and resources/read from the SDK client (${era})`, async () => {
      const client = await connectHttp(server.url, era);
      try {
        const skills = new SkillsClient(client);
        const before = await counters();
        const { skills: listed } = await skills.list();
        assert.ok(listed.length > 0);
        let reads = 0;
        for (const skill of listed.slice(0, 3)) {
          for (const resource of (skill.resources as Array<{ uri: string }>).slice(0, 2)) {
            await skills.read(skill, resource.uri);
            reads++;
          }
        }
        await skills.get(listed[0]!.uri);
        const after = await counters();
        // Every list page, every read and the get: all on the fast path, none through the SDK handler.
        assert.ok(after.fastPath - before.fastPath >= reads + 2, `${JSON.stringify(before)} -> ${JSON.stringify(after)} for ${reads} reads`);
        assert.equal(after.sdk - before.sdk, 0, `${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
      } finally {
        await client.close();
      }
    });
  }

  test('a batch and a notification go through the SDK handler, not the fast path', async () => {
    const before = await counters();
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'skill://release-notes/SKILL.md' } },
      { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'skill://release-notes/SKILL.md' } },
    ];
    await (await fetch(server.url, { method: 'POST', headers, body: JSON.stringify(batch) })).text();
    const notification = { jsonrpc: '2.0', method: 'notifications/initialized' };
    await (await fetch(server.url, { method: 'POST', headers, body: JSON.stringify(notification) })).text();
    const after = await counters();
    assert.equal(after.fastPath, before.fastPath, `${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
    assert.equal(after.sdk - before.sdk, 2, `${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
  });
});
