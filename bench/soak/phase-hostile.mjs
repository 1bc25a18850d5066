// Phase e: hostile HTTP against a real server with a registry, each request on its own raw socket (the bytes are
// exactly what is written here). Every one must be answered with a 4xx (or a JSON-RPC error in a 200) carrying one
// short line, never a 5xx, never a crash; then slowloris: other clients' p99 with and without slow connections.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTree } from './churn.mjs';
import { log, percentile, settledMemory, sleep, startServe } from './lib.mjs';
import { startReaders } from './readers.mjs';
import { memory, summarise } from './report.mjs';

const MiB = 1024 * 1024;

/**
 * Sends `head` (request line and headers, without the blank line) and then `body` (a Buffer, or {chunks, size}
 * streamed in 64 KiB pieces, or {chunked: total} with chunked transfer encoding) on a new socket; resolves with the
 * status, the answer, and how many body bytes had been written when the answer began.
 */
function raw(port, head, body, { localAddress, timeoutMs = 60_000 } = {}) {
  return new Promise((done) => {
    const socket = connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) });
    let answer = Buffer.alloc(0);
    let written = 0;
    let writtenAtAnswer;
    let finished = false;
    const started = performance.now();
    const finish = (error) => {
      if (finished) return;
      finished = true;
      socket.destroy();
      const text = answer.toString('utf8');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
      const split = text.indexOf('\r\n\r\n');
      let bodyText = split < 0 ? '' : text.slice(split + 4);
      if (/transfer-encoding: chunked/i.test(text.slice(0, split))) bodyText = unchunk(bodyText);
      done({
        status,
        body: bodyText.slice(0, 2000),
        answerBytes: answer.byteLength,
        writtenAtAnswer: writtenAtAnswer ?? written,
        ms: performance.now() - started,
        error,
      });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('data', (chunk) => {
      if (writtenAtAnswer === undefined) writtenAtAnswer = written;
      answer = Buffer.concat([answer, chunk]);
      // One answer is enough: stop once its body is complete (Content-Length) or the server closes.
      const text = answer.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text.slice(0, end))?.[1];
      const chunkedDone = end >= 0 && /transfer-encoding: chunked/i.test(text.slice(0, end)) && text.endsWith('\r\n0\r\n\r\n');
      if (chunkedDone || (end >= 0 && length !== undefined && answer.byteLength >= end + 4 + Number(length))) {
        clearTimeout(timer);
        finish();
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      finish();
    });
    socket.on('error', (error) => {
      // A reset after the answer (the server refused the rest of the body) is the expected end.
      if (answer.byteLength === 0) {
        clearTimeout(timer);
        finish(error.code);
      }
    });
    socket.on('connect', async () => {
      socket.write(`${head}\r\n\r\n`);
      if (body === undefined) return;
      if (Buffer.isBuffer(body)) {
        socket.write(body);
        written = body.byteLength;
        return;
      }
      const piece = Buffer.alloc(64 * 1024, 0x20);
      const total = body.size ?? body.chunked;
      while (written < total && !finished && writtenAtAnswer === undefined && !socket.destroyed) {
        const data = body.chunked ? Buffer.concat([Buffer.from(`${piece.byteLength.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
        written += piece.byteLength;
        if (!socket.write(data)) await new Promise((r) => socket.once('drain', r).once('close', r));
        else await new Promise((r) => setImmediate(r)); // let the answer in while sending
      }
      if (body.chunked && !socket.destroyed && writtenAtAnswer === undefined) socket.write('0\r\n\r\n');
    });
  });
}

/** The body of a chunked answer, decoded. */
function unchunk(text) {
  let out = '';
  let rest = text;
  for (;;) {
    const line = rest.indexOf('\r\n');
    if (line < 0) return out;
    const size = Number.parseInt(rest.slice(0, line), 16);
    if (!(size > 0)) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

const jsonHead = (port, length, extra = '') =>
  `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25${length === undefined ? '' : `\r\nContent-Length: ${length}`}${extra}`;
const rpcBody = (method, params) => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));

export function cases(port) {
  const post = (body, extra = '') => [jsonHead(port, body.byteLength, extra), body];
  const longUri = `skill://${'a/'.repeat(512 * 1024)}SKILL.md`;
  const deep = Buffer.from(`${'['.repeat(200_000)}${']'.repeat(200_000)}`);
  const batch = Buffer.from(JSON.stringify(Array.from({ length: 10_000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'skills/list', params: {} }))));
  const badUtf8 = Buffer.concat([
    Buffer.from('{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://'),
    Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
    Buffer.from('/SKILL.md"}}'),
  ]);
  const list = rpcBody('skills/list', {});
  return [
    ['body 10 MiB, Content-Length', () => raw(port, jsonHead(port, 10 * MiB), { size: 10 * MiB })],
    ['body 100 MiB, Content-Length, streamed', () => raw(port, jsonHead(port, 100 * MiB), { size: 100 * MiB })],
    ['body 100 MiB, chunked, streamed', () => raw(port, `${jsonHead(port, undefined)}\r\nTransfer-Encoding: chunked`, { chunked: 100 * MiB })],
    [
      'registry upload 100 MiB, Content-Length, streamed',
      () =>
        raw(
          port,
          `POST /api/v1/skills HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer soak-token\r\nContent-Type: application/vnd.skillport.skill+gzip\r\nContent-Length: ${100 * MiB}`,
          { size: 100 * MiB },
        ),
    ],
    ['JSON nested 200,000 deep', () => raw(port, ...post(deep))],
    ['resources/read of a 1 MiB URI', () => raw(port, ...post(rpcBody('resources/read', { uri: longUri })))],
    ['skills/get of a 1 MiB URI', () => raw(port, ...post(rpcBody('skills/get', { uri: longUri })))],
    ['request line of 1 MiB', () => raw(port, `GET /mcp?${'x'.repeat(MiB)} HTTP/1.1\r\nHost: 127.0.0.1:${port}`)],
    ['header of 1 MiB', () => raw(port, `${jsonHead(port, list.byteLength)}\r\nX-Big: ${'y'.repeat(MiB)}`, list)],
    ['batch of 10,000 skills/list', () => raw(port, ...post(batch))],
    ['invalid UTF-8 in the JSON', () => raw(port, ...post(badUtf8))],
    ['not JSON at all', () => raw(port, ...post(Buffer.from('{"jsonrpc": "2.0", "id": 1, "method": ')))],
    ['wrong-typed params', () => raw(port, ...post(rpcBody('resources/read', { uri: 42 })))],
    ['Content-Type text/plain', () => raw(port, jsonHead(port, list.byteLength).replace('application/json', 'text/plain'), list)],
    ['Content-Type multipart/form-data', () => raw(port, jsonHead(port, list.byteLength).replace('application/json', 'multipart/form-data; boundary=x'), list)],
    ['no Content-Type', () => raw(port, jsonHead(port, list.byteLength).replace('Content-Type: application/json\r\n', ''), list)],
    ['HTTP/1.0 POST', () => raw(port, jsonHead(port, list.byteLength).replace('HTTP/1.1', 'HTTP/1.0'), list)],
    ['HTTP/1.0 without Host', () => raw(port, `GET /healthz HTTP/1.0`)],
    ['Host evil.example', () => raw(port, jsonHead(port, list.byteLength).replace(`Host: 127.0.0.1:${port}`, 'Host: evil.example'), list)],
    [
      'Host 127.0.0.1:80@evil.example',
      () => raw(port, jsonHead(port, list.byteLength).replace(`Host: 127.0.0.1:${port}`, 'Host: 127.0.0.1:80@evil.example'), list),
    ],
    ['Origin http://evil.example', () => raw(port, ...post(list, '\r\nOrigin: http://evil.example'))],
    ['method PUT on /mcp', () => raw(port, jsonHead(port, list.byteLength).replace('POST', 'PUT'), list)],
    ['unknown JSON-RPC method', () => raw(port, ...post(rpcBody('no/such/method', {})))],
    ['path traversal URI', () => raw(port, ...post(rpcBody('resources/read', { uri: 'skill://../../etc/passwd' })))],
  ];
}

/** A clear refusal: a 4xx, or a JSON-RPC error in a 200; one line of message, and a small answer (no amplification). */
function judge(name, answer) {
  let message = '';
  const success = answer.status === 200 && !/"error"/.test(answer.body);
  if (success) message = '';
  else
    try {
      const json = JSON.parse(answer.body.includes('data: ') ? /^data: (.*)$/m.exec(answer.body)[1] : answer.body);
      message = json.error?.message ?? json.error ?? '';
      if (typeof message === 'object') message = message.message ?? JSON.stringify(message);
    } catch {
      message = answer.body.trim();
    }
  const refused = (answer.status >= 400 && answer.status < 500) || (answer.status === 200 && /"error"/.test(answer.body));
  const ok = name.startsWith('HTTP/1.0') ? answer.status > 0 && answer.status < 500 : refused;
  const oneLine = !String(message).includes('\n') && String(message).length <= 300;
  return {
    name,
    ms: Math.round(answer.ms),
    status: answer.status,
    ok: ok && oneLine && answer.answerBytes < 16 * 1024,
    message: String(message).slice(0, 160),
    answerBytes: answer.answerBytes,
    bodyBytesSentBeforeAnswer: answer.writtenAtAnswer,
    error: answer.error,
  };
}

/**
 * `count` slow connections from 8 loopback addresses, each trickling one header line a second and never ending its
 * headers; a connection the server cuts comes back 100 ms later, as an attacker's would. `stop()` closes them all.
 */
export function slowConnections(port, count, rng) {
  const sockets = [];
  let stopped = false;
  const open = () => {
    if (stopped) return;
    const socket = connect({ port, host: '127.0.0.1', localAddress: `127.0.0.${2 + (sockets.length % 8)}` });
    socket.on('error', () => undefined);
    socket.on('close', () => setTimeout(open, 100)); // cut by the server: come back, as an attacker would
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write(`X-${rng.int(1e9)}: ${rng.int(1e9)}\r\n`)), 1000);
    sockets.push(socket);
  };
  for (let i = 0; i < count; i++) open();
  return {
    stop() {
      stopped = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** Normal readers' latency while `slow` connections trickle their headers from other addresses. */
async function slowloris(server, config, rng, slow) {
  const connections = slowConnections(Number(new URL(server.url).port), slow, rng);
  await sleep(500);
  const readers = startReaders(server.url, { clients: 8, rng });
  await sleep(config.short ? 3000 : 10_000);
  const stats = await readers.stop();
  connections.stop();
  return stats;
}

export async function phaseHostile(config, rng) {
  const tree = makeTree(8, rng);
  const data = mkdtempSync(join(tmpdir(), 'skillport-soak-hostile-'));
  const server = await startServe([tree.root, '--data', data]);
  try {
    const port = Number(new URL(server.url).port);
    const slow = config.short ? 200 : 1000;
    const warm = startReaders(server.url, { clients: 8, rng });
    await sleep(2000);
    await warm.stop();
    // The figure with readers only in the warm-up (how the phase measured before 2026-12-01), then a warm-up with the
    // phase's own kinds of work, briefly, as phase a's: one pass of the hostile cases and the slow connections for
    // 2 s. What any first use costs stays then in the baseline: Node keeps up to 1000 HTTP parsers for reuse after
    // many connections (2.5 MiB outside V8's heap, 0.4 MiB in it), code compiled for the refusal paths.
    const readersOnly = await settledMemory(server, config.settleMs);
    for (const [, run] of cases(port)) await run();
    const slowWarm = slowConnections(port, slow, rng);
    await sleep(2000);
    slowWarm.stop();
    const before = await settledMemory(server, config.settleMs);
    const results = [];
    // Three rounds of every case, memory after each (after the same settle): growth round after round would be a leak.
    const rounds = [];
    for (let round = 0; round < 3; round++) {
      for (const [name, run] of cases(port)) {
        const answer = await run();
        if (round > 0) continue;
        results.push(judge(name, answer));
        if (!results.at(-1).ok) log(`   NOT OK: ${JSON.stringify(results.at(-1))}`);
      }
      rounds.push(await settledMemory(server, config.settleMs));
    }
    // Baseline and slowloris, measured back to back with the same readers.
    const base = await slowloris(server, config, rng, 0);
    const under = await slowloris(server, config, rng, slow);
    const alive = (await fetch(`${server.base}/healthz`).catch(() => undefined))?.status === 200;
    const after = await settledMemory(server, config.settleMs);
    const p99 = (stats) => percentile(stats.latencies, 99);
    const result = {
      requests: results.length,
      refusedClearly: results.filter((r) => r.ok).length,
      status5xx: results.filter((r) => r.status >= 500).length,
      cases: results,
      slowloris: {
        slowConnections: slow,
        baseline: summarise(base),
        under: summarise(under),
        p99Ratio: Number((p99(under) / Math.max(0.1, p99(base))).toFixed(2)),
      },
      aliveAfter: alive,
      crashed: server.crashed,
      memory: {
        ...memory(before, after),
        afterEachRoundOfCasesMiB: rounds.map((m) => Math.round(m.rss)),
        liveHeapEachRoundMiB: rounds.map((m) => m.liveHeap),
        // After the probe's full collection: what the process still holds when the garbage is gone (allocator retention).
        rssAfterGcEachRoundMiB: rounds.map((m) => m.rssAfterGc),
        outsideHeapEachRoundMiB: rounds.map((m) => m.outsideHeap),
        // Everything measured after each round (young generation, V8's heap pages, full collections since the last).
        eachRound: rounds,
        // The same for the baseline and the end of the phase.
        settled: { readersOnly, before, after },
        // Slowloris alone: from after the last round of cases to after the slow connections are gone.
        slowloris: memory(rounds.at(-1), after),
        // Against the baseline of a warm-up with readers only (no hostile case, no slow connection yet).
        afterReadersOnlyWarmUp: memory(readersOnly, after),
      },
    };
    log(`   ${result.refusedClearly}/${results.length} refused with one clear line, ${result.status5xx} 5xx; slowloris p99 ratio ${result.slowloris.p99Ratio}`);
    return result;
  } finally {
    await server.stop();
    tree.remove();
    rmSync(data, { recursive: true, force: true });
  }
}
