#!/usr/bin/env node
// Search over HTTP: `list_skills {query}` (tools/call, the 2026-07-28 wire, as bench/scale.mjs sends it) against
// `skillport serve --http` on a generated catalog, with the HTTP fast path (ADR 0002) and without it
// (`--no-fast-path`: every call through the SDK's McpServer): two servers on the same catalog and
// cache, started one after the other, then searched alternately query by query once both indexes are complete.
// Prints p50/p99 per path and the ratio (same run).
// Usage: node bench/search-http.mjs [--count 10000] [--rounds 5] [--queries 40] [--cpu-prof DIR] [--only fast|sdk] [--corpus DIR]
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { measuredCommit, options } from './args.mjs';
import { post } from './mcp-post.mjs';
import { until } from './poll.mjs';

const flags = options();
const count = Number(flags.value('count', '10000'));
const rounds = Number(flags.value('rounds', '5'));
const queryCount = Number(flags.value('queries', '40'));
const profileDir = flags.value('cpu-prof', undefined);
const only = flags.value('only', undefined);
const repo = resolve(import.meta.dirname, '..');
const cli = join(repo, 'packages/cli/dist/src/bin.js');
const log = (line) => process.stderr.write(`${line}\n`);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** One `list_skills` search: the text of its answer. */
const search = async (url, query) => {
  const result = await post(url, 'tools/call', { name: 'list_skills', arguments: { query, limit: 10 } }, 'list_skills');
  return result.content.map((item) => item.text ?? '').join('\n');
};

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
};

const from = flags.value('corpus', undefined); // the corpus to copy (default: generate-catalog's, ../shared)
const dir = execFileSync(
  process.execPath,
  [join(repo, 'bench/generate-catalog.mjs'), '--count', String(count), ...(from === undefined ? [] : ['--from', from])],
  {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  },
).trim();
const queries = JSON.parse(readFileSync(join(repo, 'bench/search-queries.json'), 'utf8'))
  .map((q) => q.query)
  .slice(0, queryCount);
const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-search-http-'));
let port = 5400 + (process.pid % 500);

async function start(path) {
  const url = `http://127.0.0.1:${++port}/mcp`;
  const node = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=search-http-${path}.cpuprofile`] : [];
  const argv = [
    ...node,
    cli,
    'serve',
    '--http',
    '--port',
    String(port),
    '--quiet',
    '--cache-dir',
    cacheDir,
    ...(path === 'sdk' ? ['--no-fast-path'] : []),
    dir,
  ];
  const proc = spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let stderr = '';
  proc.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise((done) => proc.once('exit', done));
  const server = { path, url, stop: async () => (proc.kill('SIGINT'), await exited) }; // SIGINT: node writes the CPU profile
  // Ready: the first answer (partial while the index is built); complete: the first complete answer, polled every
  // 2 ms as bench/scale.mjs does (its "search index complete after ready"), so searches compete with the build.
  const readyMs = await until(
    async () => {
      if (proc.exitCode !== null) throw new Error(stderr);
      return (await search(url, queries[0])).length > 0;
    },
    900_000,
    20,
  );
  if (Number.isNaN(readyMs)) {
    await server.stop();
    throw new Error(`no answer within 15 min: ${stderr}`);
  }
  const complete = (text) => text.length > 0 && !text.includes('"indexing"') && !text.includes('still being built');
  const completeMs = await until(async () => complete(await search(url, queries[0])), 900_000, 2);
  if (Number.isNaN(completeMs)) {
    await server.stop();
    throw new Error(`no complete search within 15 min: ${stderr}`);
  }
  server.readyMs = readyMs;
  server.completeMs = completeMs;
  log(`${path}: answering ${(readyMs / 1000).toFixed(1)} s after spawn, index complete ${(completeMs / 1000).toFixed(1)} s later`);
  return server;
}

// One server at a time while it starts and builds its index (never two builds at once on a shared machine), then
// the searches alternate between them query by query (order swapped every query), so that load on the machine
// falls on both paths alike.
const servers = [];
const times = new Map();
try {
  for (const path of ['fast', 'sdk']) if (only === undefined || only === path) servers.push(await start(path));
  await sleep(2000); // the compaction after the first build runs when the server is quiet
  for (const server of servers) for (const query of queries) await search(server.url, query); // warm-up: every query once
  for (const server of servers) times.set(server.path, []);
  for (let round = 0; round < rounds; round++) {
    for (const [at, query] of queries.entries()) {
      for (const server of (round * queries.length + at) % 2 === 0 ? servers : [...servers].reverse()) {
        const began = performance.now();
        await search(server.url, query);
        times.get(server.path).push(performance.now() - began);
      }
    }
  }
} finally {
  for (const server of servers) await server.stop();
  rmSync(cacheDir, { recursive: true, force: true });
}
const rows = {};
for (const [path, values] of times)
  rows[path] = { p50: percentile(values, 0.5), p99: percentile(values, 0.99), mean: values.reduce((a, b) => a + b, 0) / values.length, n: values.length };
for (const server of servers) rows[server.path].completeMs = server.completeMs;
const f = (n) => n.toFixed(2);
console.log(
  `### Search over HTTP (bench/search-http.mjs): ${count.toLocaleString('en')} skills, ${queries.length} queries x ${rounds}; commit ${measuredCommit()}`,
);
console.log('');
console.log('| path | p50 ms | p99 ms | mean ms | index complete after the first answer, s (searched every 2 ms) |');
console.log('|---|---:|---:|---:|---:|');
for (const [path, row] of Object.entries(rows))
  console.log(
    `| ${path === 'fast' ? 'fast path' : 'SDK (--no-fast-path)'} | ${f(row.p50)} | ${f(row.p99)} | ${f(row.mean)} | ${(row.completeMs / 1000).toFixed(1)} |`,
  );
if (rows.fast && rows.sdk) console.log(`\nfast ÷ SDK: p50 ${f(rows.fast.p50 / rows.sdk.p50)}, p99 ${f(rows.fast.p99 / rows.sdk.p99)}`);
