import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EXAMPLES, JSON_RPC_HEADERS, sdkShaped, startHttp } from '@skillport/test-kit';
import type { Era, RunningServer } from '@skillport/test-kit';

/**
 * An outside audit of the HTTP fast path (ADR 0002): odd-but-legal and hostile requests sent to a server with the
 * fast path and to one with --no-fast-path must get the same answers (status, content type, JSON), and the fast
 * path's successes the same bytes. Each case here was a divergence (or an answer against the JSON-RPC/MCP rules on
 * both paths) before its fix.
 */
/** A request shaped as the SDK client shapes it (so the fast path may take it); `message` overrides members. */
function shaped(era: Era, method: string, params: Record<string, unknown>, message: Record<string, unknown> = {}) {
  const { headers, params: body } = sdkShaped(era, method, params, 'audit');
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: body, ...message }) };
}

interface Answer {
  status: number;
  type: string;
  json: unknown;
  text: string;
}

async function send(url: string, request: { headers: Record<string, string>; body: string }): Promise<Answer> {
  const response = await fetch(url, { method: 'POST', ...request });
  const text = await response.text();
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!;
  const json = type === 'text/event-stream' ? [...text.matchAll(/^data: (.*)$/gm)].map((match) => JSON.parse(match[1]!)) : text === '' ? '' : JSON.parse(text);
  return { status: response.status, type, json, text };
}

describe('HTTP fast path audit: the same answers as the SDK path for odd and hostile requests', () => {
  let fast: RunningServer;
  let sdk: RunningServer;
  before(async () => {
    [fast, sdk] = await Promise.all([startHttp([EXAMPLES, '--page-size', '2']), startHttp([EXAMPLES, '--page-size', '2', '--no-fast-path'])]);
  });
  after(async () => {
    await Promise.all([fast?.stop(), sdk?.stop()]);
  });

  const counters = async (server: RunningServer) =>
    ((await (await fetch(server.url.replace(/\/mcp$/, '/healthz'))).json()) as { requests: { fastPath: number; sdk: number } }).requests;

  /** Both servers' answers to one request; they must be equal as JSON (with the same status and content type). */
  async function both(label: string, request: { headers: Record<string, string>; body: string }): Promise<[Answer, Answer]> {
    const [a, b] = await Promise.all([send(fast.url, request), send(sdk.url, request)]);
    assert.deepEqual({ status: a.status, type: a.type, json: a.json }, { status: b.status, type: b.type, json: b.json }, label);
    return [a, b];
  }

  const hot: Array<[string, Record<string, unknown>]> = [
    ['skills/list', {}],
    ['skills/get', { uri: 'skill://csv-data-cleaning/SKILL.md' }],
    ['resources/read', { uri: 'skill://csv-data-cleaning/SKILL.md' }],
    ['resources/read', { uri: 'skill://release-notes/assets/logo.png' }],
    ['resources/directory/read', { uri: 'skill://csv-data-cleaning' }],
    ['tools/call', { name: 'list_skills', arguments: { query: 'csv' } }],
    ['tools/call', { name: 'list_skills' }],
  ];

  for (const era of ['legacy', 'modern'] as const) {
    test(`request ids: JSON-RPC's integers beyond 2^53 are refused as the SDK refuses them, the rest answered (${era})`, async () => {
      for (const [method, params] of hot) {
        for (const id of [2 ** 53, 1e21, -(2 ** 53), 2 ** 53 - 1, -(2 ** 53 - 1), 0, -7, '', 'x'.repeat(5000)]) {
          const [a] = await both(`${method} id ${String(id).slice(0, 20)}`, shaped(era, method, params, { id }));
          if (Number.isSafeInteger(id) || typeof id === 'string') assert.ok(a.status === 200 && 'result' in (a.json as object), `${method} id ${id}`);
          else assert.equal((a.json as { error?: { code: number } }).error?.code, -32600, `${method} id ${id}`);
        }
      }
    });

    test(`successes are the same bytes on both paths (${era})`, async () => {
      const before = await counters(fast);
      for (const [method, params] of hot) {
        const [a, b] = await both(method, shaped(era, method, params));
        assert.equal(a.text, b.text, `${method}: the same bytes`);
      }
      assert.equal((await counters(fast)).fastPath - before.fastPath, hot.length, 'the fast path answered every one of them');
    });

    test(`skills/list with an empty cursor is refused after the first page was served (${era})`, async () => {
      await both('first page', shaped(era, 'skills/list', {}));
      for (const cursor of ['', ' ']) {
        const [a] = await both(`cursor ${JSON.stringify(cursor)}`, shaped(era, 'skills/list', { cursor }));
        assert.equal((a.json as { error?: { code: number } }).error?.code, -32602);
      }
    });
  }

  for (const era of ['legacy', 'modern'] as const) {
    test(`skills/get of another spelling of a skill's URI is the client's error (-32602 naming the URI), not an internal error (${era})`, async () => {
      for (const uri of [
        'skill://csv-data-cleaning/%53KILL.md',
        'skill://csv-data-cleaning/SKILL%2Emd',
        'skill://csv%2Ddata-cleaning/SKILL.md',
        'skill://csv-data-cleaning/SKILL.md#frag',
        'skill://csv-data-cleaning/SKILL.md#',
      ]) {
        const [a] = await both(uri, shaped(era, 'skills/get', { uri }));
        const error = (a.json as { error?: { code: number; message: string } }).error;
        assert.equal(error?.code, -32602, `${uri}: ${a.text.slice(0, 200)}`);
        assert.match(error!.message, /this skill's URI is skill:\/\/csv-data-cleaning\/SKILL\.md/);
      }
    });
  }

  for (const era of ['legacy', 'modern'] as const) {
    test(`resources/read: dot segments are refused whatever the scheme's case (the SDK lowercases it, then resolves them) (${era})`, async () => {
      for (const uri of [
        'SKILL://csv-data-cleaning/./SKILL.md',
        'Skill://csv-data-cleaning/scripts/../SKILL.md',
        'SKILL://csv-data-cleaning/scripts/%2e%2e/SKILL.md',
        'sKiLl://api-design-review/references/pagination/../checklist.md',
      ]) {
        const [a] = await both(uri, shaped(era, 'resources/read', { uri }));
        const error = (a.json as { error?: { code: number; message: string } }).error;
        assert.equal(error?.code, -32602, `${uri}: ${a.text.slice(0, 200)}`);
        assert.match(error!.message, /^Resource not found/, uri);
      }
      // The scheme's case alone is no trick: the file is read (as the SDK reads it, under its lowercase URI).
      const [ok] = await both('upper-case scheme', shaped(era, 'resources/read', { uri: 'SKILL://csv-data-cleaning/SKILL.md' }));
      assert.equal((ok.json as { result?: { contents: Array<{ uri: string }> } }).result?.contents[0]?.uri, 'skill://csv-data-cleaning/SKILL.md');
    });
  }

  test('2026-07-28 envelopes the SDK refuses (wrong-typed clientInfo or clientCapabilities members) are refused on the fast path too', async () => {
    const envelopes: Array<Record<string, unknown>> = [
      { 'io.modelcontextprotocol/clientCapabilities': { roots: 5 } },
      { 'io.modelcontextprotocol/clientCapabilities': { extensions: 'x' } },
      { 'io.modelcontextprotocol/clientCapabilities': { sampling: [] } },
      { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: 1 } } },
      { 'io.modelcontextprotocol/clientCapabilities': { experimental: 3 } },
      { 'io.modelcontextprotocol/clientInfo': { name: 'a', version: '1', title: 5 } },
      { 'io.modelcontextprotocol/clientInfo': { name: 'a', version: '1', icons: 'x' } },
    ];
    for (const [method, params] of hot) {
      for (const envelope of envelopes) {
        const [a] = await both(`${method} ${JSON.stringify(envelope)}`, shaped('modern', method, { ...params, _meta: envelope }));
        assert.equal(a.status, 400);
        assert.equal((a.json as { error?: { code: number } }).error?.code, -32602);
      }
      // Members the schemas allow (a title, a roots capability) are answered, by the fast path.
      const before = await counters(fast);
      const fine = {
        'io.modelcontextprotocol/clientInfo': { name: 'a', version: '1', title: 'A' },
        'io.modelcontextprotocol/clientCapabilities': { roots: {} },
      };
      const [ok] = await both(`${method} allowed envelope`, shaped('modern', method, { ...params, _meta: fine }));
      assert.ok('result' in (ok.json as object), method);
      assert.equal((await counters(fast)).fastPath - before.fastPath, 1, `${method}: answered by the fast path`);
    }
  });

  test('a message that is not a JSON-RPC 2.0 request is an Invalid Request (-32600), even with bad params', async () => {
    const messages: Array<Record<string, unknown>> = [
      { id: 1, method: 'resources/read', params: { uri: 5 } },
      { jsonrpc: '1.0', id: 1, method: 'resources/read', params: { uri: 'skill://a/../b/SKILL.md' } },
      { jsonrpc: '2.0', id: 1.5, method: 'resources/read', params: { uri: 5 } },
      { jsonrpc: '2.0', id: 1e21, method: 'tools/call', params: { name: 5 } },
      { jsonrpc: '2.0', id: 1, method: 'skills/get', params: {}, extra: true },
      // params, when present, are a structured value (JSON-RPC 2.0, 4.2).
      { jsonrpc: '2.0', id: 1, method: 'skills/list', params: null },
      { jsonrpc: '2.0', id: 1, method: 'resources/read', params: 'skill://csv-data-cleaning/SKILL.md' },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: 5 },
    ];
    for (const message of messages) {
      const request = { headers: { ...JSON_RPC_HEADERS, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify(message) };
      const [a] = await both(JSON.stringify(message), request);
      assert.equal(a.status, 400, JSON.stringify(message));
      assert.equal((a.json as { error?: { code: number } }).error?.code, -32600, JSON.stringify(message));
    }
    // By-position params (an array) make a valid JSON-RPC request whose params these methods do not take: -32602.
    for (const method of ['skills/list', 'resources/read', 'tools/call']) {
      const message = { jsonrpc: '2.0', id: 1, method, params: [] };
      const [a] = await both(JSON.stringify(message), {
        headers: { ...JSON_RPC_HEADERS, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify(message),
      });
      assert.equal((a.json as { error?: { code: number } }).error?.code, -32602, method);
    }
  });

  test('a batch is answered with an array, whatever the number of answers in it (JSON-RPC 2.0, section 6)', async () => {
    const request = (id: number) => ({ jsonrpc: '2.0', id, method: 'skills/get', params: { uri: 'skill://csv-data-cleaning/SKILL.md' } });
    const notification = { jsonrpc: '2.0', method: 'notifications/initialized' };
    for (const batch of [[request(1)], [request(1), notification], [notification, request(2)], [request(1), request(2)]]) {
      const [a] = await both(JSON.stringify(batch), { headers: { ...JSON_RPC_HEADERS, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify(batch) });
      assert.equal(a.status, 200);
      assert.ok(Array.isArray(a.json), `${JSON.stringify(batch)} answered ${a.text.slice(0, 100)}`);
      assert.deepEqual(
        (a.json as Array<{ id: number }>).map((answer) => answer.id),
        batch.flatMap((message) => ('id' in message ? [message.id] : [])),
      );
    }
  });

  test('2025-era Accept headers: media types are case-insensitive; both types are still required', async () => {
    for (const [method, params] of hot) {
      for (const [accept, status] of [
        ['Application/JSON, Text/Event-Stream', 200],
        ['TEXT/EVENT-STREAM;q=0.9, APPLICATION/JSON', 200],
        ['application/json', 406],
        ['text/event-stream', 406],
      ] as const) {
        const request = shaped('legacy', method, params);
        const [a] = await both(`${method} accept ${accept}`, { ...request, headers: { ...request.headers, accept } });
        assert.equal(a.status, status, `${method} accept ${accept}: ${a.text.slice(0, 200)}`);
      }
    }
  });

  test('a batch reusing an id is refused, one error per request, never one answer for two requests', async () => {
    const get = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'skills/get', params: { uri: 'skill://csv-data-cleaning/SKILL.md' } });
    const batch = [get(1), get(1), get(2)];
    const [a] = await both('reused id', { headers: { ...JSON_RPC_HEADERS, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify(batch) });
    assert.equal(a.status, 400);
    const answers = a.json as Array<{ id: number; error?: { code: number; message: string } }>;
    assert.deepEqual(
      answers.map((answer) => [answer.id, answer.error?.code]),
      [
        [1, -32600],
        [1, -32600],
        [2, -32600],
      ],
    );
    assert.match(answers[0]!.error!.message, /id 1 is used by another request/);
    // 1 and "1" are different ids: both answered.
    const [b] = await both('1 and "1"', { headers: { ...JSON_RPC_HEADERS, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify([get(1), get('1')]) });
    assert.deepEqual(
      (b.json as Array<{ id: unknown; result?: unknown }>).map((answer) => [answer.id, 'result' in answer]),
      [
        [1, true],
        ['1', true],
      ],
    );
  });
});
