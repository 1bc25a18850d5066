import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { makeTree, skillMd, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * A 2025-era JSON-RPC batch of reads of one large file, sent by a client that never reads its answer: the batch's
 * answers must be produced one at a time at the reader's pace, as a single read's are, not all built in memory
 * first (a batch of 32 reads of an 11 MB file once took the server from ~200 MB to 2.1 GB, outside V8's heap, and
 * held the event loop while the 350 MB answer was serialised).
 */

const BIG = randomBytes(8 * 1024 * 1024).toString('base64'); // ~11 MB of text
// Text with multi-byte characters (cut between windows only at character boundaries) and a binary file (base64).
const WIDE = 'ünïcödé 😀 "quoted" \\ back\n'.repeat(40_000);
const BINARY = randomBytes(700_000);
const URI = 'skill://big/references/big.txt';
const HEADERS = 'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n';

function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

function post(url: URL, body: string): Socket {
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  socket.write(`POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\n${HEADERS}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  return socket;
}

const batch = (n: number) =>
  JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'resources/read', params: { uri: URI } })));

describe('a JSON-RPC batch answered at the reader pace', { skip: process.platform !== 'linux' ? 'reads /proc' : false }, () => {
  let server: RunningServer;
  let url: URL;
  before(async () => {
    const dir = makeTree({ 'big/SKILL.md': skillMd('big'), 'big/references/big.txt': BIG, 'big/references/wide.txt': WIDE });
    writeFileSync(join(dir, 'big/references/data.bin'), BINARY);
    server = await startHttp([dir, '--no-watch']);
    url = new URL(server.url);
  });
  after(async () => server.stop());

  test('32 reads of an 11 MB file in one batch, never read: the server stays far below the answer size', async () => {
    const baseline = rssMiB(server.proc.pid!);
    const socket = post(url, batch(32));
    // The first bytes come once the first answer is ready (before, only once all 32 were): give the server a
    // moment past them to build whatever it builds ahead of a reader that does not read.
    await new Promise<void>((done) => socket.once('data', () => (socket.pause(), done())));
    let peak = 0;
    for (let i = 0; i < 10; i++) {
      await new Promise((done) => setTimeout(done, 200));
      peak = Math.max(peak, rssMiB(server.proc.pid!));
    }
    socket.destroy();
    // 32 answers are ~360 MB of JSON (before: +1.9 GB); one at a time is one answer and the socket's buffers.
    assert.ok(peak - baseline < 200, `RSS grew ${Math.round(peak - baseline)} MiB (from ${Math.round(baseline)} MiB)`);
    const health = await fetch(new URL('/healthz', url));
    assert.equal(health.status, 200);
  });

  test('10 clients each sending a batch of reads of the 11 MB file, never read: no client holds a whole answer', async () => {
    const baseline = rssMiB(server.proc.pid!);
    const sockets = Array.from({ length: 10 }, () => post(url, batch(8)));
    await Promise.all(sockets.map((socket) => new Promise<void>((done) => socket.once('data', () => (socket.pause(), done())))));
    let peak = 0;
    for (let i = 0; i < 10; i++) {
      await new Promise((done) => setTimeout(done, 200));
      peak = Math.max(peak, rssMiB(server.proc.pid!));
    }
    for (const socket of sockets) socket.destroy();
    // One answer built whole is ~35 MiB (the text, its JSON, the bytes to send): ten clients held ~350-460 MiB so.
    // Streamed from the file's one shared copy, each holds a window and its socket's buffers.
    assert.ok(peak - baseline < 120, `RSS grew ${Math.round(peak - baseline)} MiB (from ${Math.round(baseline)} MiB)`);
    const health = await fetch(new URL('/healthz', url));
    assert.equal(health.status, 200);
  });

  test('a batch read to the end is every answer, in order, as one JSON array; notifications alone get 202', async () => {
    const body = JSON.stringify([
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } },
      { jsonrpc: '2.0', id: 'a', method: 'resources/read', params: { uri: URI } },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'skill://big/nothing.txt' } },
      { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'skill://big/references/wide.txt' } },
      { jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: 'skill://big/references/data.bin' } },
    ]);
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    const answer = await fetch(new URL('/mcp', url), { method: 'POST', headers, body });
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    const items = (await answer.json()) as Array<{ id: unknown; result?: { contents: Array<{ text: string; blob: string }> }; error?: { code: number } }>;
    assert.deepEqual(
      items.map((item) => item.id),
      ['a', 2, 3, 4, 5],
    );
    assert.equal(items[3]!.result!.contents[0]!.text, WIDE);
    assert.equal(items[4]!.result!.contents[0]!.blob, BINARY.toString('base64'));
    // Each element is what the same read alone answers (the SDK's answer on the fast path's terms).
    for (const [at, uri] of [
      [0, URI],
      [3, 'skill://big/references/wide.txt'],
      [4, 'skill://big/references/data.bin'],
    ] as const) {
      const alone = await fetch(new URL('/mcp', url), {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: items[at]!.id, method: 'resources/read', params: { uri } }),
      });
      assert.deepEqual(items[at], await alone.json());
    }
    assert.equal(items[0]!.result!.contents[0]!.text, BIG);
    assert.deepEqual(items[1]!.result, {});
    assert.ok(items[2]!.error, 'a missing file is an error answer within the batch');
    const quiet = await fetch(new URL('/mcp', url), {
      method: 'POST',
      headers,
      body: JSON.stringify([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }]),
    });
    assert.equal(quiet.status, 202);
  });
});
