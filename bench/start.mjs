#!/usr/bin/env node
// bench/start: how long a client waits for a freshly spawned server, and how much memory that server takes.
// From spawn to the answer of the first `skills/list`, and the server's peak RSS (VmHWM) at that moment, for
// skillport (the installed command: node + packages/cli/bin/skillport.js, what a `skillport` on the PATH runs: the
// bundle built by scripts/bundle-cli.mjs) and the
// MCP SDK's own minimal skills server (bench/sdk-stdio-server.mjs, bench/sdk-server.mjs), alternating pairs in one run
// (the SDK first in even pairs), medians. Over stdio the client pipelines initialize, initialized and skills/list at
// once (2025-11-25 handshake, as stdio clients do); over HTTP it polls a stateless 2026-07-28 skills/list.
// Catalogs: the bundled examples, and the corpus with a warm cache (one unmeasured skillport start fills it first).
// --plain adds the unbundled build (SKILLPORT_NO_BUNDLE=1), --npx adds `npx --no-install skillport` (the README's
// other launch), both measured in the same alternation.
// Usage: npm run build --silent && node bench/start.mjs [--pairs 8] [--catalogs examples,corpus] [--transports stdio,http] [--plain] [--npx] [--json]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measuredCommit, options } from './args.mjs';

const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
const flags = options();
const pairs = Number(flags.value('pairs', '8'));
const catalogs = flags.value('catalogs', 'examples,corpus').split(',');
const transports = flags.value('transports', 'stdio,http').split(',');
const withNpx = flags.flag('npx');
const withPlain = flags.flag('plain');
const asJson = flags.flag('json');
const cli = join(repo, 'packages/cli/bin/skillport.js');
const log = (line) => process.stderr.write(`${line}\n`);
const dirs = { examples: join(repo, 'examples/skills'), corpus: resolve(repo, '../shared/corpus/skills') };
let nextPort = 5300;

function peakRssMb(pid) {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return NaN;
  }
}

/**
 * Measured runs are killed once answered. The warm-up run is stopped cleanly a moment later instead: skillport saves
 * its persisted catalog a second after start and on a clean stop, and a run killed before that leaves the next start
 * cold (the figures would then not be the warm start they claim to be).
 */
let graceful = false;
function stop(proc) {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    proc.once('exit', done);
    if (!graceful) return proc.kill('SIGKILL');
    setTimeout(() => proc.kill('SIGTERM'), 2000);
    setTimeout(() => proc.kill('SIGKILL'), 15_000).unref();
  });
}

/** Spawns `argv` as a stdio server and resolves when the answer to skills/list arrives. */
function stdioRun(command, argv, env = {}) {
  const started = performance.now();
  const proc = spawn(command, argv, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env } });
  const messages = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-start', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'skills/list', params: {} },
  ];
  proc.stdin.write(messages.map((message) => JSON.stringify(message)).join('\n') + '\n');
  return new Promise((resolveRun, reject) => {
    let out = '';
    let err = '';
    proc.stderr.on('data', (chunk) => (err += chunk));
    proc.on('exit', (code) => reject(new Error(`exited with ${code} before answering: ${err.slice(-500)}`)));
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      // Whole lines only: a large answer (the corpus's first page) arrives in several chunks.
      const lines = out.split('\n');
      out = lines.pop();
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const message = JSON.parse(line);
        if (message.id !== 2) continue;
        const ms = performance.now() - started;
        if (message.error) return reject(new Error(`skills/list failed: ${message.error.message}`));
        const rss = peakRssMb(proc.pid);
        proc.removeAllListeners('exit');
        void stop(proc).then(() => resolveRun({ ms, rssMb: rss, skills: message.result.skills.length }));
        return;
      }
    });
  });
}

/** Spawns an HTTP server and resolves when a skills/list on it first succeeds. */
async function httpRun(command, argv, port, env = {}) {
  const started = performance.now();
  const proc = spawn(command, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env } });
  let err = '';
  proc.stderr.on('data', (chunk) => (err += chunk));
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'skills/list',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'bench-start', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'skills/list',
  };
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`exited with ${proc.exitCode}: ${err.slice(-500)}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers, body });
      const text = await response.text();
      const json = text.startsWith('event:') ? JSON.parse(/^data: (.*)$/m.exec(text)[1]) : JSON.parse(text);
      if (json.result) {
        const ms = performance.now() - started;
        const rssMb = peakRssMb(proc.pid);
        await stop(proc);
        return { ms, rssMb, skills: json.result.skills.length };
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

function subjects(catalog, transport, cacheDir) {
  const dir = dirs[catalog];
  const ours =
    (launcher, env = {}) =>
    (port) =>
      transport === 'stdio'
        ? stdioRun(...launcher(['serve', '--cache-dir', cacheDir, dir]), env)
        : httpRun(...launcher(['serve', '--http', '--port', String(port), '--cache-dir', cacheDir, dir]), port, env);
  const list = [
    {
      name: 'SDK minimal server',
      run: (port) =>
        transport === 'stdio'
          ? stdioRun(process.execPath, [join(repo, 'bench/sdk-stdio-server.mjs'), dir])
          : httpRun(process.execPath, [join(repo, 'bench/sdk-server.mjs'), dir, String(port)], port),
    },
    { name: 'skillport (installed command)', run: ours((args) => [process.execPath, [cli, ...args]]) },
  ];
  if (withPlain) list.push({ name: 'skillport, unbundled build', run: ours((args) => [process.execPath, [cli, ...args]], { SKILLPORT_NO_BUNDLE: '1' }) });
  if (withNpx) list.push({ name: 'skillport via npx', run: ours((args) => ['npx', ['--no-install', 'skillport', ...args]]) });
  return list;
}

const median = (values) => {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)];
};

const commit = measuredCommit();
const report = [];
for (const catalog of catalogs) {
  for (const transport of transports) {
    const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-bench-start-'));
    const list = subjects(catalog, transport, cacheDir);
    // One unmeasured start of each fills the caches (skillport's digest cache and persisted catalog; the OS's).
    log(`${catalog} over ${transport}: warming up...`);
    graceful = true;
    for (const subject of list) await subject.run(nextPort++);
    graceful = false;
    const runs = list.map(() => []);
    for (let pair = 0; pair < pairs; pair++) {
      const order = pair % 2 === 0 ? list.map((_, at) => at) : list.map((_, at) => at).reverse();
      for (const at of order) runs[at].push(await list[at].run(nextPort++));
      log(`  pair ${pair + 1}/${pairs}: ${list.map((subject, at) => `${subject.name} ${runs[at].at(-1).ms.toFixed(0)} ms`).join(', ')}`);
    }
    rmSync(cacheDir, { recursive: true, force: true });
    const rows = list.map((subject, at) => ({
      subject: subject.name,
      skills: runs[at][0].skills,
      firstAnswerMs: median(runs[at].map((run) => run.ms)),
      peakRssMb: median(runs[at].map((run) => run.rssMb)),
    }));
    report.push({ catalog, transport, pairs, commit, rows });
  }
}

if (asJson) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  for (const { catalog, transport, rows } of report) {
    const base = rows[0];
    process.stdout.write(
      `\n### ${catalog}${catalog === 'corpus' ? ' (warm cache)' : ''} over ${transport}: spawn to first skills/list answer; medians of ${pairs} alternating pairs; commit ${commit}\n\n`,
    );
    process.stdout.write('| server | skills | first answer, ms | ratio | server peak RSS, MB | ratio |\n|---|---:|---:|---:|---:|---:|\n');
    for (const row of rows)
      process.stdout.write(
        `| ${row.subject} | ${row.skills} | ${row.firstAnswerMs.toFixed(0)} | ${(row.firstAnswerMs / base.firstAnswerMs).toFixed(2)} | ${row.peakRssMb.toFixed(0)} | ${(row.peakRssMb / base.peakRssMb).toFixed(2)} |\n`,
      );
  }
}
