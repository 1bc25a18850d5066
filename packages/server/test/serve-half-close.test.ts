import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import type { Socket } from 'node:net';
import { eventually, makeTree, removeTrees, sdkShaped, skillMd, startHttp, tempFolder } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * A client may send its request and half-close (FIN) at once, as a one-shot netcat or some proxies do. The answer must still come when it is made asynchronously (a file read from disk), and the
 * connection must still close once answered; the write timeout still cuts a half-closed client that does not read.
 * Real sockets (node:net) against a real `skillport serve --http`.
 */

const FILES = 6;
// A marker per file that JSON does not escape, so it can be found in the raw bytes of the answer.
const marker = (i: number) => `half-close-marker-${i}-${'abc'.repeat(8)}`;
const BIG = 'Reference text line that is long enough to fill buffers quickly.\n'.repeat(200_000);

function tree(): string {
  const spec: Record<string, string> = { 'notes/SKILL.md': skillMd('notes'), 'notes/big.txt': BIG };
  for (let i = 0; i < FILES; i++) spec[`notes/file-${i}.md`] = `# File ${i}\n\n${marker(i)}\n`;
  return makeTree(spec);
}

function readRequest(url: string, uri: string, id: number, extra: Record<string, unknown> = {}): string {
  const target = new URL(url);
  const { headers, params } = sdkShaped('modern', 'resources/read', { uri, ...extra });
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'resources/read', params });
  const head = Object.entries({ ...headers, host: target.host, 'content-length': String(Buffer.byteLength(body)) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `POST /mcp HTTP/1.1\r\n${head}\r\n${body}`;
}

function listenRequest(url: string, id: number): string {
  const target = new URL(url);
  const { headers, params } = sdkShaped('modern', 'subscriptions/listen', { notifications: { resourcesListChanged: true } });
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params });
  const head = Object.entries({ ...headers, host: target.host, 'content-length': String(Buffer.byteLength(body)) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `POST /mcp HTTP/1.1\r\n${head}\r\n${body}`;
}

const getRequest = (url: string, token?: string) =>
  `GET /mcp HTTP/1.1\r\nhost: ${new URL(url).host}\r\naccept: text/event-stream\r\n${token ? `authorization: Bearer ${token}\r\n` : ''}\r\n`;

const jwt = (key: Parameters<SignJWT['sign']>[0]) =>
  new SignJWT({ sub: 'alice', scope: 'read' })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer('https://idp.example.test')
    .setAudience('skillport')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(key);

/** Sends `bytes`, half-closes at once, and collects everything the server sends until it closes the connection. */
function sendAndHalfClose(url: string, bytes: string): Promise<string> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ port: Number(target.port), host: target.hostname, allowHalfOpen: true }, () => socket.end(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    // With allowHalfOpen the socket closes only when the server ended its side too: the connection is not left open.
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

// Not anchored to a line: an answer sized by content-length ends without a newline before the next status line.
const statusLines = (answer: string) => answer.match(/HTTP\/1\.1 \d{3}/g) ?? [];

after(() => removeTrees());

describe('a request followed at once by the client half-closing', () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttp([tree(), '--no-watch']);
  });
  after(async () => {
    await server?.stop();
  });

  test('a first read of a file (answered asynchronously) is answered in full, then the connection closes', async () => {
    const answer = await sendAndHalfClose(server.url, readRequest(server.url, 'skill://notes/file-0.md', 1));
    assert.deepEqual(statusLines(answer), ['HTTP/1.1 200'], answer.slice(0, 200));
    assert.ok(answer.includes(marker(0)), `the file's text in the answer: ${answer.slice(0, 300)}`);
  });

  test('pipelined reads before the FIN are all answered, in order', async () => {
    const requests = [1, 2, 3].map((i) => readRequest(server.url, `skill://notes/file-${i}.md`, 10 + i)).join('');
    const answer = await sendAndHalfClose(server.url, requests);
    assert.deepEqual(statusLines(answer), ['HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 200'], answer.slice(0, 300));
    const at = [1, 2, 3].map((i) => answer.indexOf(marker(i)));
    assert.ok(
      at.every((position, i) => position > 0 && (i === 0 || position > at[i - 1]!)),
      `each file's text, in order: ${at.join(', ')}`,
    );
  });

  test('a read the SDK answers (a request shape the fast path leaves to it) is answered too', async () => {
    const answer = await sendAndHalfClose(server.url, readRequest(server.url, 'skill://notes/file-4.md', 20, { _meta: { extra: true } }));
    assert.deepEqual(statusLines(answer), ['HTTP/1.1 200'], answer.slice(0, 200));
    assert.ok(answer.includes(marker(4)), `the file's text in the answer: ${answer.slice(0, 300)}`);
  });

  test('a connection half-closed with no request, or in the middle of one, is closed by the server', async () => {
    assert.equal(await sendAndHalfClose(server.url, ''), '');
    const partial = readRequest(server.url, 'skill://notes/file-5.md', 30);
    const answer = await sendAndHalfClose(server.url, partial.slice(0, partial.length - 10));
    assert.doesNotMatch(answer, /^HTTP\/1\.1 200/m);
  });
});

describe('open-ended answers and the FIN', () => {
  let server: RunningServer;
  // Behind JWTs, whose signatures are checked off the main thread: a refusal is made after the FIN has arrived.
  let guarded: RunningServer;
  let good: string;
  let forged: string;
  before(async () => {
    const [keys, other] = await Promise.all([generateKeyPair('ES256'), generateKeyPair('ES256')]);
    const pem = join(tempFolder('half-close-jwt'), 'key.pem');
    writeFileSync(pem, await exportSPKI(keys.publicKey));
    [good, forged] = await Promise.all([jwt(keys.privateKey), jwt(other.privateKey)]);
    const jwtArgs = ['--auth', 'jwt', '--jwt-key', pem, '--jwt-issuer', 'https://idp.example.test', '--jwt-audience', 'skillport'];
    [server, guarded] = await Promise.all([startHttp([tree(), '--no-watch']), startHttp([tree(), '--no-watch', ...jwtArgs])]);
  });
  after(async () => {
    await Promise.all([server?.stop(), guarded?.stop()]);
  });

  test('a GET /mcp that is refused (405; 401 with a forged token) is answered before the connection closes', async () => {
    assert.deepEqual(statusLines(await sendAndHalfClose(server.url, getRequest(server.url))), ['HTTP/1.1 405']);
    assert.deepEqual(statusLines(await sendAndHalfClose(guarded.url, getRequest(guarded.url, good))), ['HTTP/1.1 405']);
    assert.deepEqual(statusLines(await sendAndHalfClose(guarded.url, getRequest(guarded.url, forged))), ['HTTP/1.1 401']);
  });

  test('a read pipelined before a GET /mcp is answered, then the GET', async () => {
    const answer = await sendAndHalfClose(server.url, readRequest(server.url, 'skill://notes/file-5.md', 40) + getRequest(server.url));
    assert.deepEqual(statusLines(answer), ['HTTP/1.1 200', 'HTTP/1.1 405'], answer.slice(0, 300));
    assert.ok(answer.includes(marker(5)), `the file's text in the answer: ${answer.slice(0, 300)}`);
  });

  test('a read pipelined before a subscriptions/listen stream is answered; the stream then ends at the FIN', async () => {
    const answer = await sendAndHalfClose(server.url, readRequest(server.url, 'skill://notes/file-3.md', 41) + listenRequest(server.url, 42));
    assert.equal(statusLines(answer)[0], 'HTTP/1.1 200', answer.slice(0, 300));
    assert.ok(answer.includes(marker(3)), `the file's text in the answer: ${answer.slice(0, 300)}`);
  });

  test('a subscriptions/listen stream open when the client half-closes ends at the FIN', async () => {
    const target = new URL(server.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect({ port: Number(target.port), host: target.hostname, allowHalfOpen: true }, () => socket.write(listenRequest(server.url, 43)));
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        // The stream has started (its first event is written): now the FIN.
        if (Buffer.concat(chunks).includes('\n\n')) socket.end();
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    assert.deepEqual(statusLines(answer), ['HTTP/1.1 200'], answer.slice(0, 300));
    assert.match(answer, /content-type: text\/event-stream/i);
  });
});

describe('--write-timeout with a half-closed client', () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttp([tree(), '--no-watch', '--write-timeout', '1000']);
  });
  after(async () => {
    await server?.stop();
  });

  test('a client that half-closes and never reads is still cut', async () => {
    const target = new URL(server.url);
    const socket: Socket = connect({ port: Number(target.port), host: target.hostname, allowHalfOpen: true }, () => {
      socket.end(readRequest(server.url, 'skill://notes/big.txt', 1));
      socket.pause();
    });
    socket.on('error', () => {});
    const health = async () => ((await (await fetch(server.url.replace(/\/mcp$/, '/healthz'))).json()) as { writes: { dropped: number } }).writes.dropped;
    try {
      const before = await health();
      await eventually(async () => ((await health()) > before ? true : undefined), 20_000, 'the half-closed reader cut');
    } finally {
      socket.destroy();
    }
  });
});
