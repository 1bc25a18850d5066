#!/usr/bin/env node
// bench/serve: the SDK's minimal skills server against skillport, same catalog, same run, same load generator.
// Measures: time until skills/list answers (cold; and for skillport also warm, with its persistent caches),
// peak RSS (VmHWM) of the server process, and resources/read and skills/list throughput with 16 concurrent
// HTTP clients (bench/load.mjs), on the corpus and on a generated 10,000-skill catalog. Prints ratios.
// Usage: node bench/serve.mjs [--catalogs corpus,10000] [--rounds 3] [--duration 5] [--concurrency 16] [--json]
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { measuredCommit, options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const args = process.argv.slice(2);
const option = (name, fallback) => flags.value(name, fallback);
const catalogs = option('catalogs', 'corpus,10000').split(',');
const duration = Number(option('duration', '5'));
const concurrency = Number(option('concurrency', '16'));
const asJson = args.includes('--json');
// --skip-sdk: measure skillport alone (for quick iterations; no ratios).
const skipSdk = args.includes('--skip-sdk');
// --rounds N: alternating SDK / skillport rounds; each figure is the median over the rounds.
const rounds = Number(option('rounds', '3'));
const commit = measuredCommit();
const corpus = resolve(repo, '../shared/corpus/skills');
const cli = join(repo, 'packages/cli/dist/src/bin.js');
const log = (line) => process.stderr.write(`${line}\n`);
let nextPort = 4900;

function catalogDir(name) {
  if (name === 'corpus') return corpus;
  const count = Number(name);
  log(`preparing a ${count}-skill catalog (bench/generate-catalog.mjs)...`);
  return execFileSync(process.execPath, [join(repo, 'bench/generate-catalog.mjs'), '--count', String(count)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

function post(url, era, method, params) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (era === 'modern') {
    headers['mcp-protocol-version'] = '2026-07-28';
    headers['mcp-method'] = method;
    if (method === 'resources/read') headers['mcp-name'] = params.uri;
    params = {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    };
  } else headers['mcp-protocol-version'] = '2025-11-25';
  return fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }).then(async (response) => {
    const text = await response.text();
    const json = text.startsWith('event:') ? JSON.parse(/^data: (.*)$/m.exec(text)[1]) : JSON.parse(text);
    if (json.error) throw new Error(json.error.message);
    return json.result;
  });
}

async function start(kind, dir, cacheDir) {
  const port = nextPort++;
  const url = `http://127.0.0.1:${port}/mcp`;
  const argv =
    kind === 'sdk'
      ? [join(repo, 'bench/sdk-server.mjs'), dir, String(port)]
      : [cli, 'serve', '--http', '--port', String(port), '--quiet', '--no-watch', '--cache-dir', cacheDir, dir];
  const started = performance.now();
  const proc = spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let stderr = '';
  proc.stderr.on('data', (chunk) => (stderr += chunk));
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${kind} exited: ${stderr}`);
    try {
      await post(url, 'modern', 'skills/list', {});
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const readyMs = performance.now() - started;
  return { proc, url, readyMs };
}

function peakRss(proc) {
  const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

async function stop(proc) {
  if (proc.exitCode !== null) return;
  await new Promise((done) => {
    proc.once('exit', done);
    proc.kill('SIGTERM');
  });
}

async function listAll(url) {
  const skills = [];
  const cursors = [null];
  let cursor;
  do {
    const page = await post(url, 'modern', 'skills/list', cursor ? { cursor } : {});
    skills.push(...page.skills);
    cursor = page.nextCursor;
    if (cursor) cursors.push(cursor);
  } while (cursor);
  return { skills, cursors };
}

function load(url, era, kind, targets) {
  const file = join(tmpdir(), `skillport-bench-targets-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(targets));
  const run = spawnSync(process.execPath, [join(repo, 'bench/load.mjs'), url, era, kind, String(duration), String(concurrency), file], { encoding: 'utf8' });
  rmSync(file, { force: true });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

/** Each figure's median over the runs (reads and list pages by their rate, failures summed). */
function medianRun(list) {
  const median = (values) => {
    const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
    return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)];
  };
  const rate = (key) => ({ perSecond: median(list.map((run) => run[key].perSecond)), failed: list.reduce((sum, run) => sum + run[key].failed, 0) });
  return {
    readyMs: median(list.map((run) => run.readyMs)),
    skills: median(list.map((run) => run.skills)),
    peakRssMb: median(list.map((run) => run.peakRssMb)),
    readModern: rate('readModern'),
    readLegacy: rate('readLegacy'),
    list: rate('list'),
  };
}

async function measure(kind, dir, cacheDir, files) {
  const server = await start(kind, dir, cacheDir);
  const { skills, cursors } = await listAll(server.url);
  const result = { readyMs: server.readyMs, skills: skills.length };
  if (files) {
    result.readModern = load(server.url, 'modern', 'read', files);
    result.readLegacy = load(server.url, 'legacy', 'read', files);
    result.list = load(server.url, 'modern', 'list', cursors);
  }
  result.peakRssMb = peakRss(server.proc);
  await stop(server.proc);
  return { result, skills };
}

const report = [];
for (const name of catalogs) {
  const dir = catalogDir(name);
  log(`\n== catalog: ${name} (${dir})`);
  // Files both servers serve: the SDK's listing (skillport serves a superset).
  log(skipSdk ? 'listing files (skillport)...' : 'sdk: starting (loadSkills + createMcpHandler)...');
  const probeCache = mkdtempSync(join(tmpdir(), 'skillport-bench-probe-'));
  const probe = await start(skipSdk ? 'skillport' : 'sdk', dir, probeCache);
  const { skills: probeSkills } = await listAll(probe.url);
  await stop(probe.proc);
  rmSync(probeCache, { recursive: true, force: true });
  const files = probeSkills.flatMap((skill) => skill.resources.map((resource) => resource.uri));
  log(`   ${probeSkills.length} skills, ${files.length} files`);

  // Alternating rounds (SDK first in even rounds, skillport first in odd ones) and medians: this machine is shared, so
  // both sides are measured under the same conditions. Every run goes through the same phases (ready, reads in both
  // eras, list pages), the warm restart included, so peak RSS compares like with like.
  const runs = { sdk: [], cold: [], warm: [] };
  for (let round = 0; round < rounds; round++) {
    const sdkRun = async () => {
      if (skipSdk) return;
      log(`sdk: measuring (round ${round + 1}/${rounds})...`);
      runs.sdk.push((await measure('sdk', dir, undefined, files)).result);
    };
    const ours = async () => {
      const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-bench-cache-'));
      log(`skillport: measuring cold start, empty cache (round ${round + 1}/${rounds})...`);
      runs.cold.push((await measure('skillport', dir, cacheDir, files)).result);
      log(`skillport: measuring warm restart (round ${round + 1}/${rounds})...`);
      runs.warm.push((await measure('skillport', dir, cacheDir, files)).result);
      rmSync(cacheDir, { recursive: true, force: true });
    };
    if (round % 2 === 0) {
      await sdkRun();
      await ours();
    } else {
      await ours();
      await sdkRun();
    }
  }
  const none = { perSecond: NaN, failed: 0 };
  const sdk = skipSdk ? { readyMs: NaN, skills: NaN, peakRssMb: NaN, readModern: none, readLegacy: none, list: none } : medianRun(runs.sdk);
  const cold = medianRun(runs.cold);
  const warm = medianRun(runs.warm);
  report.push({ catalog: name, files: files.length, commit, rounds, sdk, cold, warm });

  const ratio = (a, b) => (b === 0 ? 'n/a' : (a / b).toFixed(2));
  const rows = [
    ['skills served', sdk.skills, cold.skills, ''],
    ['ready (cold), ms', sdk.readyMs.toFixed(0), cold.readyMs.toFixed(0), ratio(cold.readyMs, sdk.readyMs)],
    ['ready (warm restart), ms', sdk.readyMs.toFixed(0), warm.readyMs.toFixed(0), ratio(warm.readyMs, sdk.readyMs)],
    ['peak RSS, MB', sdk.peakRssMb.toFixed(0), cold.peakRssMb.toFixed(0), ratio(cold.peakRssMb, sdk.peakRssMb)],
    ['peak RSS after warm restart (same phases), MB', sdk.peakRssMb.toFixed(0), warm.peakRssMb.toFixed(0), ratio(warm.peakRssMb, sdk.peakRssMb)],
    [
      'resources/read per s (2026-07-28)',
      sdk.readModern.perSecond.toFixed(0),
      cold.readModern.perSecond.toFixed(0),
      ratio(cold.readModern.perSecond, sdk.readModern.perSecond),
    ],
    [
      'resources/read per s (2025-11-25)',
      sdk.readLegacy.perSecond.toFixed(0),
      cold.readLegacy.perSecond.toFixed(0),
      ratio(cold.readLegacy.perSecond, sdk.readLegacy.perSecond),
    ],
    ['skills/list pages per s', sdk.list.perSecond.toFixed(0), cold.list.perSecond.toFixed(0), ratio(cold.list.perSecond, sdk.list.perSecond)],
    [
      'failed requests',
      sdk.readModern.failed + sdk.readLegacy.failed + sdk.list.failed,
      cold.readModern.failed + cold.readLegacy.failed + cold.list.failed,
      '',
    ],
  ];
  if (!asJson) {
    process.stdout.write(
      `\n### ${name === 'corpus' ? 'corpus (725 skills)' : `${name}-skill catalog`}, ${files.length} files read at random, ${concurrency} clients, ${duration} s each; medians of ${rounds} alternating rounds; commit ${commit}\n\n`,
    );
    process.stdout.write('| measure | SDK server | skillport | ratio |\n|---|---:|---:|---:|\n');
    for (const row of rows) process.stdout.write(`| ${row.join(' | ')} |\n`);
  }
}
if (asJson) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
void existsSync;
