import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { EXAMPLES, connectHttp, connectStdio, makeTree, skillMd, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * The limits that protect the HTTP server (docs/security.md, "Limits"), through real sockets and real MCP clients
 * against a real `skillport serve --http`: every bad request is a 4xx (or a JSON-RPC -32602/-32600) with one clear
 * line, refused before the expensive part (reading a body, parsing a URI), and the server keeps serving others.
 */

const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

interface Exchange {
  status: number;
  headers: string;
  body: string;
  /** A whole answer came, or the server closed the connection (rather than the test giving up waiting). */
  closed: boolean;
}

/**
 * Writes `parts` over a bare socket (never ending the request unless a part does) and collects what comes back until
 * a whole answer has come (its Content-Length read) or the server closes the connection, or `waitMs` passes (then
 * `closed` is false: the server was still waiting for the client).
 */
function exchange(url: string, parts: Array<string | Buffer>, waitMs = 15_000): Promise<Exchange> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0),
        headers: split < 0 ? text : text.slice(0, split),
        body: split < 0 ? '' : text.slice(split + 4),
        closed,
      });
    };
    const socket: Socket = connect(Number(target.port), target.hostname, () => {
      for (const part of parts) socket.write(part);
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, split));
      if (split >= 0 && length && Buffer.byteLength(text.slice(split + 4)) >= Number(length[1])) finish(true);
    });
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    const timer = setTimeout(() => finish(false), waitMs);
  });
}

function head(url: string, lines: string[]): string {
  return [`POST ${new URL(url).pathname} HTTP/1.1`, `host: ${new URL(url).host}`, ...lines, '', ''].join('\r\n');
}

function oneLineError(body: string): { code: number; message: string; id?: unknown } {
  const parsed = JSON.parse(body) as { jsonrpc?: string; id?: unknown; error?: { code: number; message: string } };
  assert.equal(parsed.jsonrpc, '2.0', body);
  assert.ok(parsed.error, body);
  assert.doesNotMatch(parsed.error.message, /\n/, 'one line');
  assert.ok(parsed.error.message.length < 400, `short: ${parsed.error.message.slice(0, 200)}…`);
  return { ...parsed.error, id: parsed.id };
}

async function post(url: string, body: string, headers: Record<string, string> = LEGACY_HEADERS): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** The JSON-RPC message of an answer, whether it came as JSON or as one SSE event. */
function message(answer: { type: string; text: string }): Record<string, unknown> {
  return answer.type.startsWith('text/event-stream')
    ? (JSON.parse(/^data: (.*)$/m.exec(answer.text)![1]!) as Record<string, unknown>)
    : (JSON.parse(answer.text) as Record<string, unknown>);
}

describe('serve: request limits', () => {
  let server: RunningServer;
  let skills: string;
  before(async () => {
    skills = makeTree({ 'alpha/SKILL.md': skillMd('alpha'), 'alpha/references/notes.md': 'notes v1\n' });
    server = await startHttp([
      skills,
      EXAMPLES,
      '--no-watch',
      '--max-body',
      '2MiB',
      '--max-header-size',
      '8KiB',
      '--headers-timeout',
      '1500',
      '--request-timeout',
      '3000',
    ]);
  });
  after(async () => {
    await server.stop();
  });

  test('a body declared larger than the limit is refused on its Content-Length, before it is sent', async () => {
    // 100 MB announced, not one byte of it sent: the answer comes anyway, and the connection closes.
    const answer = await exchange(server.url, [head(server.url, ['content-type: application/json', `content-length: ${100 * 1024 * 1024}`])]);
    assert.equal(answer.closed, true, 'the server answered without waiting for the body');
    assert.equal(answer.status, 413);
    assert.match(oneLineError(answer.body).message, /larger than 2097152 bytes/);
  });

  test('a chunked body is refused as soon as it passes the limit, not read to its end', async () => {
    const chunk = Buffer.alloc(512 * 1024, 'a');
    const parts: Array<string | Buffer> = [head(server.url, ['content-type: application/json', 'transfer-encoding: chunked'])];
    // 2.5 MiB sent (over the 2 MiB limit); the body never ends.
    for (let i = 0; i < 5; i++) parts.push(`${chunk.length.toString(16)}\r\n`, chunk, '\r\n');
    const answer = await exchange(server.url, parts);
    assert.equal(answer.closed, true, 'the server answered without waiting for the end of the body');
    assert.equal(answer.status, 413);
    assert.equal(oneLineError(answer.body).code, -32600);
  });

  test('Expect: 100-continue with a body too large: 413 instead of 100', async () => {
    const answer = await exchange(server.url, [
      head(server.url, ['content-type: application/json', 'expect: 100-continue', `content-length: ${10 * 1024 * 1024}`]),
    ]);
    assert.equal(answer.status, 413);
  });

  test('a 5,000-deep body is a 400 with one line, not a 500', async () => {
    for (const body of [
      `{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}`,
      '['.repeat(5000) + ']'.repeat(5000),
    ]) {
      const answer = await post(server.url, body);
      assert.equal(answer.status, 400);
      const error = oneLineError(answer.text);
      assert.equal(error.code, -32600);
      assert.match(error.message, /deeper than 64/);
    }
  });

  test('a 1 MB URI is refused before it is parsed, and not echoed', async () => {
    const uri = `skill://${'a/'.repeat(500_000)}SKILL.md`;
    for (const method of ['resources/read', 'skills/get', 'resources/directory/read']) {
      const answer = await post(server.url, JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { uri } }));
      assert.equal(answer.status, 400, method);
      const error = oneLineError(answer.text);
      assert.equal(error.code, -32602, method);
      assert.equal(error.id, 7);
      assert.match(error.message, /more than this server's limit of 8192/);
    }
  });

  test('an error about a URI under the limit quotes only its start', async () => {
    const uri = `skill://nothing/${'x'.repeat(8000)}/SKILL.md`;
    for (const method of ['resources/read']) {
      const answer = await post(server.url, JSON.stringify({ jsonrpc: '2.0', id: 8, method, params: { uri } }));
      assert.ok(answer.text.length < 2000, `${method}: ${answer.text.length} bytes answered`);
      const error = oneLineError(JSON.stringify(message(answer)));
      assert.notEqual(error.code, -32603);
    }
  });

  test('a batch larger than the limit is refused whole', async () => {
    const batch = Array.from({ length: 100 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'skills/list' }));
    const answer = await post(server.url, JSON.stringify(batch));
    assert.equal(answer.status, 400);
    assert.match(oneLineError(answer.text).message, /batch of 100 messages; this server takes at most 32/);
    // A small batch is still answered.
    const small = await post(server.url, JSON.stringify(batch.slice(0, 2)));
    assert.equal(small.status, 200);
    const answers = (
      small.type.startsWith('application/json')
        ? JSON.parse(small.text)
        : small.text
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => JSON.parse(line.slice(6)))
    ) as unknown[];
    assert.equal(answers.length, 2);
  });

  test('wrong-typed params: -32602 and one line, not -32603 with a validation dump', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['resources/read', { uri: 5 }, /params\.uri: expected string, received number/],
      ['prompts/get', { name: ['x'] }, /params\.name: expected string, received array/],
      ['tools/call', { name: 5 }, /params\.name: expected string/],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 5 }, argument: { name: 'a', value: 'b' } }, /Invalid params for completion\/complete/],
      ['skills/get', { uri: 5 }, /params\.uri: expected string, received number/],
      ['skills/list', { cursor: {} }, /params\.cursor: expected string, received object/],
      ['resources/directory/read', {}, /params\.uri is required/],
      ['tools/list', { cursor: 1 }, /params\.cursor/],
    ];
    for (const [method, params, reason] of cases) {
      for (const era of ['legacy', 'modern'] as const) {
        const headers: Record<string, string> =
          era === 'legacy' ? LEGACY_HEADERS : { ...LEGACY_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
        const body =
          era === 'legacy'
            ? params
            : {
                ...params,
                _meta: {
                  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
                  'io.modelcontextprotocol/clientCapabilities': {},
                },
              };
        const answer = await post(server.url, JSON.stringify({ jsonrpc: '2.0', id: 3, method, params: body }), headers);
        assert.ok(answer.status < 500, `${method} (${era}): ${answer.status}`);
        const error = oneLineError(JSON.stringify(message(answer)));
        assert.equal(error.code, -32602, `${method} (${era}): ${error.message}`);
        assert.match(error.message, reason, `${method} (${era})`);
      }
    }
  });

  test('request headers over the limit: 431 with one line', async () => {
    const answer = await exchange(server.url, [head(server.url, [`x-padding: ${'p'.repeat(16 * 1024)}`, 'content-length: 0'])]);
    assert.equal(answer.status, 431);
    assert.match(oneLineError(answer.body).message, /headers larger than 8192 bytes/);
  });

  test('a 1 MiB header still arriving gets its 431, not a reset (the rest is drained before the close)', async () => {
    // The old server destroyed the socket on the parser's next error (the next chunk): about half the answers were
    // lost to the reset. Several tries, so that a regression shows.
    for (let i = 0; i < 6; i++) {
      const answer = await exchange(server.url, [head(server.url, [`x-padding: ${'p'.repeat(1024 * 1024)}`, 'content-length: 2']), '{}']);
      assert.equal(answer.status, 431, `try ${i + 1}`);
      assert.match(oneLineError(answer.body).message, /headers larger than 8192 bytes/);
    }
  });

  test('on /api/ paths the refusals made before a request exists answer in the REST shape; on /mcp as JSON-RPC', async () => {
    const host = `host: ${new URL(server.url).host}`;
    const restError = (body: string): { code: string; message: string } => {
      const parsed = JSON.parse(body) as { jsonrpc?: string; error?: { code: string; message: string } };
      assert.equal(parsed.jsonrpc, undefined, body);
      assert.equal(typeof parsed.error?.code, 'string', body);
      return parsed.error!;
    };
    const padding = `x-padding: ${'p'.repeat(16 * 1024)}`;
    const api = await exchange(server.url, [['GET /api/v1/skills?q=1 HTTP/1.1', host, padding, '', ''].join('\r\n')]);
    assert.equal(api.status, 431);
    assert.deepEqual(restError(api.body), { code: 'headers_too_large', message: 'Request headers larger than 8192 bytes (--max-header-size)' });
    // After a request answered on the same connection: the refused one's path counts, not the one before.
    const pipelined = await new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () =>
        socket.write([`GET /mcp HTTP/1.1`, host, '', `GET /api/v1/skills HTTP/1.1`, host, padding, '', ''].join('\r\n')),
      );
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', () => {});
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    // (The first one's answer may be lost: the connection closes on the parse error, before that answer is written.)
    const refusal = pipelined.slice(pipelined.indexOf('HTTP/1.1 431'));
    assert.ok(refusal.startsWith('HTTP/1.1 431'), pipelined.slice(0, 400));
    assert.equal(restError(refusal.slice(refusal.indexOf('\r\n\r\n') + 4)).code, 'headers_too_large');
    // A malformed body after the headers were read (node's parser refuses the chunk size).
    const chunked = await exchange(server.url, [['POST /api/v1/skills HTTP/1.1', host, 'transfer-encoding: chunked', '', 'zz', ''].join('\r\n')]);
    assert.equal(chunked.status, 400);
    assert.equal(restError(chunked.body).code, 'bad_request');
    // The MCP endpoint, and paths outside the API, keep the JSON-RPC envelope.
    for (const path of ['/mcp', '/elsewhere']) {
      const answer = await exchange(server.url, [[`POST ${path} HTTP/1.1`, host, padding, '', ''].join('\r\n')]);
      assert.equal(answer.status, 431, path);
      assert.equal(oneLineError(answer.body).code, -32600, path);
    }
  });

  test('a Host header with userinfo or a path is refused, not read as its first name', async () => {
    const port = new URL(server.url).port;
    for (const host of ['127.0.0.1:80@evil.example', `127.0.0.1:${port}@evil.example`, 'localhost:80/evil', '127.0.0.1:99999', 'localhost:80:80']) {
      const answer = await exchange(server.url, [
        [
          `POST /mcp HTTP/1.1`,
          `host: ${host}`,
          'content-type: application/json',
          'accept: application/json, text/event-stream',
          'content-length: 2',
          'connection: close',
          '',
          '{}',
        ].join('\r\n'),
      ]);
      assert.equal(answer.status, 403, host);
      assert.match(oneLineError(answer.body).message, /Host/);
    }
  });

  test('a client that sends its headers too slowly is answered 408 and cut off; others are served meanwhile', async () => {
    const slow = exchange(server.url, [`POST /mcp HTTP/1.1\r\nhost: ${new URL(server.url).host}\r\nx-slow: `], 20_000);
    const client = await connectHttp(server.url, 'legacy');
    try {
      assert.ok((await client.listResources()).resources.length > 0);
    } finally {
      await client.close();
    }
    const answer = await slow;
    assert.equal(answer.closed, true, 'the slow connection was closed by the server');
    assert.equal(answer.status, 408);
    assert.match(oneLineError(answer.body).message, /not received in time/);
  });

  test('a read refused because the file changed on disk answers the documented retryable code', async () => {
    const uri = 'skill://alpha/references/notes.md';
    // --no-watch: the catalog keeps the old digest, so the read sees bytes that no longer match it. --no-fast-path: the
    // SDK path answers (the fast path would retry once on the rescanned skill). --no-scan: the background scan reads
    // the files through the same verifying reader, and its stale read would rescan the skill before this one.
    const own = makeTree({ 'alpha/SKILL.md': skillMd('alpha'), 'alpha/references/notes.md': 'notes v1\n' });
    const sdkOnly = await startHttp([own, '--no-watch', '--no-fast-path', '--no-scan']);
    try {
      writeFileSync(join(own, 'alpha/references/notes.md'), 'notes v2, longer\n');
      const answer = await post(sdkOnly.url, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri } }));
      assert.equal(answer.status, 200);
      const error = oneLineError(JSON.stringify(message(answer)));
      assert.equal(error.code, -32011, error.message);
      assert.match(error.message, /changed on disk since it was listed; list the skill again and retry/);
    } finally {
      await sdkOnly.stop();
    }
  });
});

describe('serve: connections per client address', () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttp([EXAMPLES, '--no-watch', '--max-connections-per-client', '3']);
  });
  after(async () => {
    await server.stop();
  });

  test('past the limit a new connection gets 429 and one line; a freed slot serves again', async () => {
    const target = new URL(server.url);
    const idle: Socket[] = [];
    for (let i = 0; i < 3; i++) {
      idle.push(
        await new Promise<Socket>((resolve) => {
          const socket = connect(Number(target.port), target.hostname, () => resolve(socket));
          socket.on('error', () => {});
        }),
      );
    }
    try {
      const refused = await exchange(server.url, [head(server.url, ['content-length: 0'])]);
      assert.equal(refused.status, 429);
      assert.match(oneLineError(refused.body).message, /Too many connections .* at most 3 at a time/);
    } finally {
      for (const socket of idle) socket.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const health = await fetch(`${target.origin}/healthz`);
    assert.equal(health.status, 200);
  });
});

describe('serve (stdio): the same request screening', () => {
  test('a URI over --max-uri-length and a wrong-typed uri: -32602 with one line', async () => {
    const { client } = await connectStdio([EXAMPLES, '--no-watch', '--max-uri-length', '100'], 'legacy');
    try {
      await assert.rejects(client.readResource({ uri: `skill://release-notes/${'x'.repeat(200)}.md` }), (error: { code?: number; message?: string }) => {
        assert.equal(error.code, -32602);
        assert.match(error.message ?? '', /more than this server's limit of 100 \(--max-uri-length\)/);
        return true;
      });
      await assert.rejects(client.readResource({ uri: 5 as unknown as string }), (error: { code?: number; message?: string }) => {
        assert.equal(error.code, -32602);
        assert.match(error.message ?? '', /params\.uri: expected string, received number/);
        assert.doesNotMatch(error.message ?? '', /\n/);
        return true;
      });
      assert.ok((await client.readResource({ uri: 'skill://release-notes/SKILL.md' })).contents.length === 1);
    } finally {
      await client.close();
    }
  });
});
