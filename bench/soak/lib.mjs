// Shared parts of bench/soak.mjs: real `skillport serve` processes, raw JSON-RPC requests shaped as the SDK client
// sends them (both protocol eras), listings, RSS from /proc, percentiles.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Agent, request } from 'node:http';
import { join, resolve } from 'node:path';

export const repo = resolve(import.meta.dirname, '../..');
export const cli = join(repo, 'packages/cli/dist/src/bin.js');
export const TOKEN = 'soak-token';
export const log = (line) => process.stderr.write(`${line}\n`);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const sha256 = (bytes) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A seeded random generator, so a run can be repeated (`--seed`). */
export function seeded(seed) {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
  return { next, int: (n) => Math.floor(next() * n), pick: (list) => list[Math.floor(next() * list.length)] };
}

/**
 * Starts `skillport serve --http --port 0 ...args`; `cacheDir` keeps the digest cache and persisted catalog there,
 * otherwise `--no-cache`. Resolves once the start-up line names the URL.
 */
export async function startServe(args, { env = {}, cacheDir } = {}) {
  const cacheArgs = cacheDir ? ['--cache-dir', cacheDir] : ['--no-cache'];
  const started = performance.now();
  // The memory probe (memprobe.cjs): idle until asked, it reports the heap as is and after a full collection.
  const probeDir = mkdtempSync(join(tmpdir(), 'skillport-soak-probe-'));
  const probeFile = join(probeDir, 'probe.jsonl');
  const proc = spawn(process.execPath, ['--require', join(import.meta.dirname, 'memprobe.cjs'), cli, 'serve', '--http', '--port', '0', ...cacheArgs, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', SKILLPORT_PUBLISH_TOKEN: TOKEN, SKILLPORT_MEMPROBE: probeFile, ...env },
  });
  proc.on('exit', () => rmSync(probeDir, { recursive: true, force: true }));
  let stderr = '';
  const url = await new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`server did not start in 120 s:\n${stderr}`)), 120_000);
    proc.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-200_000);
      const match = / on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        done(match[1]);
      }
    });
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`server exited (${code ?? signal}) before it started:\n${stderr}`));
    });
  });
  const server = {
    url,
    base: url.replace(/\/mcp$/, ''),
    proc,
    pid: proc.pid,
    startMs: performance.now() - started,
    stderr: () => stderr,
    /** Exited on its own (not by stop/kill): a crash. */
    crashed: false,
    expected: false,
    stop: () => end(proc, 'SIGTERM', server),
    kill: () => end(proc, 'SIGKILL', server),
    rss: () => rss(proc.pid),
    probe: () => probe(proc, probeFile),
  };
  proc.on('exit', () => {
    if (!server.expected) server.crashed = true;
  });
  return server;
}

function end(proc, signal, server) {
  server.expected = true;
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    proc.once('exit', () => done());
    proc.kill(signal);
  });
}

/** Resident and peak resident memory of a process, MiB (Linux /proc). */
export function rss(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return { rss: 0, peak: 0 };
  }
}

/**
 * Asks the server's memory probe for its figures: {asIs, afterGc} (MiB: rss, heapTotal, heapUsed, external,
 * arrayBuffers, outsideHeap, ...). The collection it forces changes what comes after: take RSS first.
 */
export async function probe(proc, file) {
  const lines = () => {
    try {
      return readFileSync(file, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  const seen = lines().length;
  if (proc.exitCode !== null || proc.signalCode !== null) return undefined;
  proc.kill('SIGUSR2');
  const line = await until(() => lines()[seen], 60_000, 20);
  return line === undefined ? undefined : JSON.parse(line);
}

/**
 * A server's memory once it has been left alone for `settleMs` (its idle collector gives back what the peak took:
 * docs/reliability.md "Memory"). `rss` is what the process holds as it is, what an operator sees; then the probe:
 * `liveHeap` is V8's used heap after a forced full collection (objects still reachable: a leak or a cache shows
 * here), `heapTotal` the heap pages V8 kept, `outsideHeap` what is resident outside V8's heap (malloc arenas,
 * buffers, code, stacks). Taken in that order: the forced collection changes what comes after.
 */
export async function settledMemory(server, settleMs) {
  await sleep(settleMs);
  const resident = server.rss();
  const probed = await server.probe();
  return {
    rss: resident.rss,
    peak: resident.peak,
    heapTotal: probed?.asIs.heapTotal,
    // V8's young generation as it is: 1 MiB once given back, 16-32 MiB while held for the peak.
    young: probed?.asIs.spaces?.new_space?.[0],
    liveHeap: probed?.afterGc.heapUsed,
    outsideHeap: probed?.afterGc.outsideHeap,
    rssAfterGc: probed?.afterGc.rss,
    // Anonymous (heap, malloc arenas, stacks) and file-backed (the node binary's pages, mapped files) RSS, as the
    // process holds them and after the probe's collection; V8's heap pages after that collection and each space's.
    rssAnon: probed?.asIs.rssAnon,
    rssFile: probed?.asIs.rssFile,
    rssAnonAfterGc: probed?.afterGc.rssAnon,
    heapTotalAfterGc: probed?.afterGc.heapTotal,
    // V8's external memory and the ArrayBuffers in it after that collection: live buffers (the file cache's bytes).
    external: probed?.afterGc.external,
    arrayBuffers: probed?.afterGc.arrayBuffers,
    v8Malloced: probed?.afterGc.v8Malloced,
    spacesAfterGc: probed?.afterGc.spaces,
    // Full collections since the previous probe (count, forced ones: the idle collector's and the previous probe's).
    majors: probed?.asIs.majorCollections,
  };
}

const agents = new Map();
function agentFor(base) {
  let agent = agents.get(base);
  if (!agent) agents.set(base, (agent = new Agent({ keepAlive: true, maxSockets: 128 })));
  return agent;
}
export function closeAgents() {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'soak', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/**
 * One JSON-RPC request to /mcp, as the SDK client sends it on the 2026-07-28 (`modern`) or 2025-11-25 (`legacy`)
 * wire. Resolves {status, body, error, ms}; a transport error is status 0.
 */
export function rpc(url, method, params, era = 'modern', { timeoutMs = 30_000 } = {}) {
  const endpoint = new URL(url);
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  let sent = params;
  if (era === 'modern') {
    headers['mcp-protocol-version'] = '2026-07-28';
    headers['mcp-method'] = method;
    if (typeof params.uri === 'string') headers['mcp-name'] = params.uri;
    sent = { ...params, _meta: MODERN_META };
  } else headers['mcp-protocol-version'] = '2025-11-25';
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: sent });
  const started = performance.now();
  return new Promise((done) => {
    const req = request(
      {
        agent: agentFor(endpoint.origin),
        host: endpoint.hostname,
        port: endpoint.port,
        path: endpoint.pathname,
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          let text = Buffer.concat(chunks).toString();
          // An SSE answer: the data line of the message.
          if ((res.headers['content-type'] ?? '').includes('text/event-stream')) text = /^data: (.*)$/m.exec(text)?.[1] ?? '';
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          done({ status: res.statusCode, result: json?.result, error: json?.error, ms: performance.now() - started });
        });
        res.on('error', () => done({ status: 0, ms: performance.now() - started }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) => done({ status: 0, transport: error.message, ms: performance.now() - started }));
    req.end(body);
  });
}

/** Every listed skill: uri → {digest (package), version, files: Map(uri → digest)}. Undefined when a page failed. */
export async function listing(url, era = 'modern') {
  const skills = new Map();
  let cursor;
  for (let page = 0; page < 1000; page++) {
    const answer = await rpc(url, 'skills/list', cursor ? { cursor } : {}, era);
    if (!answer.result) return undefined;
    for (const skill of answer.result.skills) {
      skills.set(skill.uri, {
        digest: skill._meta?.['dev.skillport/packageDigest'],
        version: skill._meta?.['dev.skillport/version'],
        files: new Map((skill.resources ?? []).map((r) => [r.uri, r.digest])),
      });
    }
    cursor = answer.result.nextCursor;
    if (!cursor) return skills;
  }
  return skills;
}

/** A listing as one comparable value: sorted `uri packageDigest` lines. */
export function fingerprint(skills) {
  return [...skills]
    .map(([uri, skill]) => `${uri} ${skill.digest}`)
    .sort()
    .join('\n');
}

/** What differs between two listings, a few lines for a report. */
export function difference(a, b, max = 6) {
  const left = new Set(fingerprint(a).split('\n'));
  const right = new Set(fingerprint(b).split('\n'));
  const lines = [...[...left].filter((x) => !right.has(x)).map((x) => `- ${x}`), ...[...right].filter((x) => !left.has(x)).map((x) => `+ ${x}`)];
  return lines.slice(0, max);
}

/** The bytes of a resources/read result. */
export function bytesOf(result) {
  const content = result?.contents?.[0];
  if (!content) return undefined;
  return content.blob !== undefined ? Buffer.from(content.blob, 'base64') : Buffer.from(content.text ?? '', 'utf8');
}

export function percentile(values, p) {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Polls `check` every `everyMs` until it returns a value other than undefined; undefined after `timeoutMs`. */
export async function until(check, timeoutMs, everyMs = 100) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) return undefined;
    await sleep(everyMs);
  }
}

/** Runs the CLI to completion: {code, stdout, stderr}. */
export function runCli(args, env = {}) {
  return new Promise((done) => {
    const proc = spawn(process.execPath, [cli, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk) => (stdout += chunk));
    proc.stderr.on('data', (chunk) => (stderr += chunk));
    proc.on('exit', (code) => done({ code: code ?? 1, stdout, stderr }));
  });
}
