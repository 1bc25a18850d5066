import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { CLI, STDIO_HANDSHAKE, eventually, makeTree, removeTrees, sdkShaped, skillMd, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * Bounded memory per client (docs/security.md, "Slow readers"): through real sockets against a real `skillport serve`.
 * A large answer is written at the pace the client reads it (the server queues a window, not the answer), a reader
 * that stops reading is cut after --write-timeout while others are served, and over stdio the server stops reading
 * requests while its answers wait unread. No wall-clock or memory figure is asserted: bench/slow-readers.mjs
 * measures RSS.
 */

const BIG_URI = 'skill://big/reference.txt';
const BIN_URI = 'skill://big/blob.bin';
// 12 MB of text with multi-byte characters (2, 3 and 4 bytes) falling across the 64 KiB windows the answer is made in.
const LINE = 'Reference text, café, 日本語 and 🎉 emoji; "quoted" \\ backslash\tand tab.\n';
const BIG_TEXT = LINE.repeat(Math.ceil(12e6 / Buffer.byteLength(LINE)));
const BIN = Buffer.from(Array.from({ length: 700_001 }, (_, i) => (i * 7919) % 256));

function bigTree(): string {
  return makeTree({
    'big/SKILL.md': skillMd('big'),
    'big/reference.txt': BIG_TEXT,
    'big/blob.bin': BIN,
  });
}

/** A resources/read over a raw socket that is never read: the kernel's buffers fill, then the server's. */
function stalledReader(url: string, uri = BIG_URI): Socket {
  const target = new URL(url);
  const { headers, params } = sdkShaped('modern', 'resources/read', { uri });
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params });
  const head = Object.entries({ ...headers, host: target.host, 'content-length': String(Buffer.byteLength(body)) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const socket = connect(Number(target.port), target.hostname, () => {
    socket.write(`POST /mcp HTTP/1.1\r\n${head}\r\n${body}`);
    socket.pause();
  });
  socket.on('error', () => {});
  return socket;
}

async function health(server: RunningServer): Promise<{ writes: { queuedBytes: number; dropped: number }; requests: { fastPath: number } }> {
  return (await (await fetch(server.url.replace(/\/mcp$/, '/healthz'))).json()) as never;
}

async function read(url: string, uri: string): Promise<unknown> {
  const { headers, params } = sdkShaped('modern', 'resources/read', { uri });
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'resources/read', params }) });
  assert.equal(response.status, 200);
  return response.json();
}

after(() => removeTrees());

describe('a large answer waits for its reader', () => {
  let server: RunningServer;
  let sdkOnly: RunningServer;
  before(async () => {
    const tree = bigTree();
    [server, sdkOnly] = await Promise.all([startHttp([tree, '--no-watch', '--write-timeout', '60000']), startHttp([tree, '--no-watch', '--no-fast-path'])]);
  });
  after(async () => {
    await Promise.all([server?.stop(), sdkOnly?.stop()]);
  });

  test('streamed answers are the SDK path answers, byte for byte once parsed (text across windows, and base64)', async () => {
    for (const uri of [BIG_URI, BIN_URI]) {
      const [fast, sdk] = await Promise.all([read(server.url, uri), read(sdkOnly.url, uri)]);
      assert.deepEqual(fast, sdk, uri);
    }
    const answer = (await read(server.url, BIG_URI)) as { result: { contents: Array<{ text: string }> } };
    assert.equal(answer.result.contents[0]!.text, BIG_TEXT);
    const binary = (await read(server.url, BIN_URI)) as { result: { contents: Array<{ blob: string }> } };
    assert.ok(Buffer.from(binary.result.contents[0]!.blob, 'base64').equals(BIN));
  });

  test('four readers that never read: the server queues a window each, not the 12 MB answer', async () => {
    const readers = [1, 2, 3, 4].map(() => stalledReader(server.url));
    try {
      // Each answer started (its first windows queued), then waits: the kernel's buffers are full.
      await eventually(async () => ((await health(server)).writes.queuedBytes > 0 ? true : undefined), 20_000, 'answers waiting to be read');
      let most = 0;
      for (let i = 0; i < 10; i++) {
        most = Math.max(most, (await health(server)).writes.queuedBytes);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // A window is 64 KiB of text, at most ~6x that escaped: well under a MiB per reader, never the 12 MB answer.
      assert.ok(most < 4 * 1024 * 1024, `${most} bytes queued for four stalled readers`);
      // Meanwhile another client is answered in full.
      const answer = (await read(server.url, BIG_URI)) as { result: { contents: Array<{ text: string }> } };
      assert.equal(answer.result.contents[0]!.text.length, BIG_TEXT.length);
    } finally {
      for (const socket of readers) socket.destroy();
    }
  });
});

describe('--write-timeout', () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttp([bigTree(), '--no-watch', '--write-timeout', '1000']);
  });
  after(async () => {
    await server?.stop();
  });

  for (const [label, stall] of [
    ['streamed (fast path)', stalledReader],
    ['written whole by the SDK (a request the fast path leaves to it)', stalledSdkReader],
  ] as const) {
    test(`a reader that stops reading is cut, and the next client is served: ${label}`, async () => {
      const socket = stall(server.url);
      try {
        const before = (await health(server)).writes.dropped;
        // A paused socket does not see the server close it: the server's count says so, then reading shows it.
        await eventually(async () => ((await health(server)).writes.dropped > before ? true : undefined), 20_000, 'the stalled reader cut');
        let received = 0;
        const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        socket.on('data', (chunk: Buffer) => (received += chunk.length));
        socket.resume();
        await closed;
        assert.ok(received < Buffer.byteLength(BIG_TEXT), `the whole answer came (${received} bytes)`);
      } finally {
        socket.destroy();
      }
      const answer = (await read(server.url, BIG_URI)) as { result: { contents: Array<{ text: string }> } };
      assert.equal(answer.result.contents[0]!.text.length, BIG_TEXT.length);
    });
  }
});

/** A 2025-era resources/read with an extra member the fast path does not take: the SDK writes the whole answer. */
function stalledSdkReader(url: string): Socket {
  const target = new URL(url);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: BIG_URI, _meta: { extra: true } } });
  const socket = connect(Number(target.port), target.hostname, () => {
    socket.write(
      `POST /mcp HTTP/1.1\r\nhost: ${target.host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-11-25\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    socket.pause();
  });
  socket.on('error', () => {});
  return socket;
}

describe('stdio: a client that does not read stdout', () => {
  test('the server stops reading requests while its answers wait, then answers every one once read', async () => {
    const tree = makeTree({ 'big/SKILL.md': skillMd('big'), 'big/reference.txt': 'x'.repeat(4 * 1024 * 1024) });
    const proc = spawn(process.execPath, [CLI, 'serve', '--no-cache', '--no-watch', tree], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    proc.stderr.resume();
    proc.stdout.pause();
    try {
      const send = (message: unknown) => proc.stdin.write(`${JSON.stringify(message)}\n`);
      for (const message of STDIO_HANDSHAKE) send(message);
      // Twenty 4 MiB answers nobody reads, then 8,000 small requests (~360 KB of stdin, far more than a pipe holds).
      const reads = 20;
      for (let i = 0; i < reads; i++) send({ jsonrpc: '2.0', id: `read-${i}`, method: 'resources/read', params: { uri: BIG_URI } });
      const count = 8000;
      for (let i = 0; i < count; i++) send({ jsonrpc: '2.0', id: 10 + i, method: 'ping' });
      // A server that reads on regardless takes every byte; one that holds back leaves them in our pipe.
      // Waited for until stdin is drained (a server reading on) or has not moved for 3 s (one holding back).
      let last = -1;
      let since = Date.now();
      await eventually(
        async () => {
          const left = proc.stdin.writableLength;
          if (left !== last) [last, since] = [left, Date.now()];
          return left === 0 || Date.now() - since > 3000 ? true : undefined;
        },
        30_000,
        'stdin drained or still',
      );
      assert.ok(proc.stdin.writableLength > 100_000, `the server read all but ${proc.stdin.writableLength} bytes of requests while its stdout was full`);
      // The client reads: everything is answered.
      let answered = 0;
      proc.stdout.on('data', (chunk: Buffer) => {
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) answered++;
      });
      proc.stdout.resume();
      await eventually(async () => (answered >= count + reads + 1 ? true : undefined), 60_000, `${count + reads + 1} answers`);
    } finally {
      proc.kill();
    }
  });
});
