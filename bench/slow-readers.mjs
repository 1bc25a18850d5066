#!/usr/bin/env node
// bench/slow-readers: the server's memory while clients ask for a large file and never read the answer. Over HTTP,
// `--readers` raw connections each send one resources/read of an `--size` MB text file (shaped as the SDK client
// sends it, so the fast path answers) and then never read; over stdio, one `serve` process is sent `--readers` reads
// on stdin while nobody reads its stdout. Prints the server's RSS before, at its peak (sampled every 50 ms for
// `--hold` seconds) and after the readers went away (`--settle` seconds), and whether a normal client is answered
// while the slow readers hold their connections. `--batch N`: each HTTP reader sends one 2025-era JSON-RPC batch of
// N reads of the file instead (batches are answered by the SDK path, element by element).
// Usage: node bench/slow-readers.mjs [--readers 100] [--size 11] [--hold 8] [--settle 8] [--transport http|stdio|both] [--batch 0]
//        [--cli path/to/packages/cli/dist/src/bin.js] (another build, for a before/after figure) [--json]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { measuredCommit, options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const readers = Number(flags.value('readers', '100'));
const sizeMb = Number(flags.value('size', '11'));
const holdMs = Number(flags.value('hold', '8')) * 1000;
const settleMs = Number(flags.value('settle', '8')) * 1000;
const transport = flags.value('transport', 'both');
const batch = Number(flags.value('batch', '0'));
const cli = resolve(flags.value('cli', join(repo, 'packages/cli/dist/src/bin.js')));
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const log = (line) => process.stderr.write(`${line}\n`);
const MB = 1024 * 1024;

const rssOf = (pid) => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
  } catch {
    return 0;
  }
};

/** A skill whose one large file is `sizeMb` MB of text lines. */
function tree() {
  const root = mkdtempSync(join(tmpdir(), 'skillport-slow-readers-'));
  const dir = join(root, 'skills', 'big');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), '---\nname: big\ndescription: A skill with one large reference file.\n---\n\n# Big\n');
  const line = 'The quick brown fox jumps over the lazy dog; a line of reference text for the slow-readers bench.\n';
  writeFileSync(join(dir, 'reference.txt'), line.repeat(Math.ceil((sizeMb * 1e6) / line.length)));
  return root;
}

function start(args, stdio) {
  return spawn(process.execPath, [cli, 'serve', '--no-cache', '--no-watch', ...args], { stdio, env: { ...process.env, NO_COLOR: '1' } });
}

/** Samples RSS every 50 ms until `stop()`; returns the peak. */
function sampler(pid) {
  let peak = rssOf(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssOf(pid));
  };
}

const READ_URI = 'skill://big/reference.txt';

function readRequest(id) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'resources/read',
    params: {
      uri: READ_URI,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'slow-reader', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}

async function http(root) {
  const proc = start(['--http', '--port', '0', join(root, 'skills')], ['ignore', 'ignore', 'pipe']);
  let stderr = '';
  const url = await new Promise((done, fail) => {
    proc.stderr.on('data', (chunk) => {
      stderr += chunk;
      const found = / on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (found) done(new URL(found[1]));
    });
    proc.once('exit', () => fail(new Error(`serve exited: ${stderr}`)));
  });
  const body = (id) => JSON.stringify(readRequest(id));
  const batchBody = (id) =>
    JSON.stringify(Array.from({ length: batch }, (_, at) => ({ jsonrpc: '2.0', id: `${id}.${at}`, method: 'resources/read', params: { uri: READ_URI } })));
  const head = (length) =>
    batch > 0
      ? `POST /mcp HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-06-18\r\ncontent-length: ${length}\r\n\r\n`
      : `POST /mcp HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: resources/read\r\nmcp-name: ${READ_URI}\r\ncontent-length: ${length}\r\n\r\n`;
  // One normal read first, so the file is known to be served (and the first answer's cost is in `before`).
  const normal = async () => {
    const started = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'resources/read',
        'mcp-name': READ_URI,
      },
      body: body(0),
    });
    const text = await response.text();
    return { status: response.status, bytes: text.length, ms: performance.now() - started };
  };
  const first = await normal();
  if (first.status !== 200) throw new Error(`the first read answered ${first.status}`);
  await sleep(1000);
  const before = rssOf(proc.pid);
  const peak = sampler(proc.pid);
  const sockets = [];
  let closedByServer = 0;
  for (let i = 1; i <= readers; i++) {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    socket.on('error', () => {});
    socket.once('connect', () => {
      const text = batch > 0 ? batchBody(i) : body(i);
      socket.write(head(Buffer.byteLength(text)) + text);
      socket.pause(); // never read: the kernel's buffers fill, then the server's
    });
    socket.once('close', () => closedByServer++);
    sockets.push(socket);
  }
  await sleep(holdMs / 2);
  const during = await normal().catch((error) => ({ status: 0, error: String(error), ms: 0 }));
  await sleep(holdMs / 2);
  const peakRss = peak();
  const closedWhileHeld = closedByServer;
  for (const socket of sockets) socket.destroy();
  await sleep(settleMs);
  const after = rssOf(proc.pid);
  proc.kill('SIGTERM');
  return {
    transport: batch > 0 ? `http, batches of ${batch}` : 'http',
    readers,
    sizeMb,
    before,
    peak: peakRss,
    after,
    normalDuring: during,
    closedByServer: closedWhileHeld,
  };
}

async function stdio(root) {
  const proc = start([join(root, 'skills')], ['pipe', 'pipe', 'pipe']);
  proc.stderr.resume();
  // Nobody reads stdout: once the pipe's buffer is full, every answer waits in the server.
  proc.stdout.pause();
  const send = (message) => proc.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'slow-reader', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await sleep(2000);
  const before = rssOf(proc.pid);
  const peak = sampler(proc.pid);
  for (let i = 1; i <= readers; i++) send({ jsonrpc: '2.0', id: i, method: 'resources/read', params: { uri: READ_URI } });
  await sleep(holdMs);
  const peakRss = peak();
  // The reader comes back: everything queued is read, then the server is left alone.
  let answered = 0;
  proc.stdout.on('data', (chunk) => {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) answered++;
  });
  let exited;
  proc.once('exit', (code, signal) => (exited = code ?? signal));
  proc.stdout.resume();
  const deadline = Date.now() + 120_000;
  while (answered < readers + 1 && exited === undefined && Date.now() < deadline) await sleep(100);
  if (exited !== undefined) log(`stdio: the server exited (${exited}) after ${answered} answers`);
  await sleep(settleMs);
  const after = rssOf(proc.pid);
  proc.kill('SIGTERM');
  return { transport: 'stdio', readers, sizeMb, before, peak: peakRss, after, answered: answered - 1 };
}

const root = tree();
const results = [];
try {
  if (transport === 'http' || transport === 'both') results.push(await http(root));
  if (transport === 'stdio' || transport === 'both') results.push(await stdio(root));
} finally {
  rmSync(root, { recursive: true, force: true });
}
const commit = measuredCommit();
if (flags.flag('json')) process.stdout.write(`${JSON.stringify({ commit, cli, results })}\n`);
else {
  process.stdout.write(`slow readers at ${commit} (${cli}): ${readers} readers of a ${sizeMb} MB file\n`);
  for (const r of results) {
    const extra = r.transport.startsWith('http')
      ? `; a normal read meanwhile: ${r.normalDuring.status} in ${r.normalDuring.ms.toFixed(0)} ms; connections the server closed: ${r.closedByServer}`
      : `; answers read afterwards: ${r.answered}`;
    process.stdout.write(
      `${r.transport.padEnd(5)} RSS before ${(r.before / MB).toFixed(0)} MiB, peak ${(r.peak / MB).toFixed(0)} MiB, after ${(r.after / MB).toFixed(0)} MiB${extra}\n`,
    );
  }
}
