#!/usr/bin/env node
// Search in process against search over HTTP on the same index: the search index a `skillport serve` saved (its
// cache dir, e.g. a settled cold start's), restored here with loadIndex, and a warm restart of the server on a copy
// of that cache dir; then the queries bench/scale.mjs sends (the first --queries of bench/search-queries.json,
// `list_skills {query, limit: 10}`) alternate query by query between the two, so that load falls on both alike.
// Prints p50/p99 of: CPU per search in process, wall time over HTTP, and the server's own CPU per HTTP search (from
// /proc), and their ratios (same run). Before the alternation: the restore, the first searches after it (in process),
// and a search right after a change (one skill added to the restored index, then removed).
// Usage: node bench/search-served.mjs --cache-dir DIR --catalog DIR [--store DIR] [--rounds 3] [--queries 40] [--in-process-only]
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { measuredCommit, options } from './args.mjs';
import { post } from './mcp-post.mjs';
import { until } from './poll.mjs';

const flags = options();
const cacheFrom = resolve(flags.value('cache-dir', ''));
const catalog = resolve(flags.value('catalog', ''));
const storeFrom = flags.value('store', undefined);
const rounds = Number(flags.value('rounds', '3'));
const queryCount = Number(flags.value('queries', '40'));
const inProcessOnly = flags.flag('in-process-only');
const repo = resolve(import.meta.dirname, '..');
const log = (line) => process.stderr.write(`${line}\n`);
const { loadIndex } = await import(join(repo, 'packages/search/dist/src/index.js'));

const indexFile = readdirSync(cacheFrom).find((name) => /^search-.*\.bin$/.test(name));
if (indexFile === undefined) throw new Error(`${cacheFrom}: no saved search index (search-*.bin)`);
const queries = JSON.parse(readFileSync(join(repo, 'bench/search-queries.json'), 'utf8'))
  .map((q) => q.query)
  .slice(0, queryCount);
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))];
const stats = (values) => ({ p50: percentile(values, 0.5), p99: percentile(values, 0.99), mean: values.reduce((a, b) => a + b, 0) / values.length });

// In process: the restore, the first searches, a change.
const began = performance.now();
let cpuBegan = cpu();
const { index } = await loadIndex(join(cacheFrom, indexFile));
const restore = { wallMs: performance.now() - began, cpuMs: cpu() - cpuBegan, skills: index.size };
cpuBegan = cpu();
index.prepare();
restore.prepareCpuMs = cpu() - cpuBegan;
let lastWall = 0;
const timed = (query) => {
  const [at, wall] = [cpu(), performance.now()];
  index.search(query, 10);
  lastWall = performance.now() - wall;
  return cpu() - at;
};
const first = queries.slice(0, 3).map(timed);
for (const query of queries) timed(query); // warm-up, as the HTTP side gets below
const steady = queries.slice(0, 5).map(timed);
index.add({
  id: 'bench-search-served-change',
  name: 'bench-search-served',
  description: 'A skill added to measure a search right after a change.',
  body: queries[0],
});
const afterAdd = timed(queries[0]);
index.remove('bench-search-served-change');
const afterRemove = timed(queries[0]);
log(
  `restored ${restore.skills} skills: ${restore.wallMs.toFixed(0)} ms (CPU ${restore.cpuMs.toFixed(0)}), prepare CPU ${restore.prepareCpuMs.toFixed(0)} ms; first searches CPU ${first.map((ms) => ms.toFixed(1)).join(', ')} ms`,
);

let server;
const store = mkdtempSync(join(tmpdir(), 'skillport-search-served-'));
try {
  if (!inProcessOnly) {
    // A warm restart on a copy (a run rewrites its cache dir).
    cpSync(cacheFrom, join(store, 'cache'), { recursive: true });
    if (storeFrom !== undefined) cpSync(resolve(storeFrom), join(store, 'data'), { recursive: true });
    const port = 5900 + (process.pid % 500);
    const url = `http://127.0.0.1:${port}/mcp`;
    const argv = [join(repo, 'packages/cli/dist/src/bin.js'), 'serve', '--http', '--port', String(port), '--quiet'];
    argv.push('--cache-dir', join(store, 'cache'), '--data', join(store, 'data'), catalog);
    const proc = spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stderr = '';
    proc.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    const exited = new Promise((done) => proc.once('exit', done));
    server = { url, proc, stop: async () => (proc.exitCode === null ? (proc.kill('SIGKILL'), await exited) : undefined) };
    const search = async (query) => {
      const result = await post(url, 'tools/call', { name: 'list_skills', arguments: { query, limit: 10 } }, 'list_skills');
      return result.content.map((item) => item.text ?? '').join('\n');
    };
    const complete = (text) => text.length > 0 && !text.includes('"indexing"') && !text.includes('still being built');
    const readyMs = await until(
      async () => {
        if (proc.exitCode !== null) throw new Error(stderr);
        return complete(await search(queries[0]));
      },
      900_000,
      20,
    );
    if (Number.isNaN(readyMs)) throw new Error(`no complete search within 15 min: ${stderr}`);
    log(`server: a complete search ${(readyMs / 1000).toFixed(1)} s after spawn`);
    const ticks = () => {
      const fields = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in ms at 100 ticks a second
    };
    for (const query of queries) await search(query); // warm-up
    const times = { inProcess: [], inProcessWall: [], http: [], serverCpu: [] };
    for (let round = 0; round < rounds; round++) {
      for (const [at, query] of queries.entries()) {
        const run = [
          () => (times.inProcess.push(timed(query)), times.inProcessWall.push(lastWall)),
          async () => {
            const [wall, ticked] = [performance.now(), ticks()];
            await search(query);
            times.http.push(performance.now() - wall);
            times.serverCpu.push(ticks() - ticked);
          },
        ];
        for (const step of (round * queries.length + at) % 2 === 0 ? run : run.reverse()) await step();
      }
    }
    const rows = { inProcess: stats(times.inProcess), inProcessWall: stats(times.inProcessWall), http: stats(times.http), serverCpu: stats(times.serverCpu) };
    const f = (n) => n.toFixed(2);
    console.log(
      `### Search in process and over HTTP on one saved index (bench/search-served.mjs): ${restore.skills.toLocaleString('en')} skills, ${queries.length} queries × ${rounds}; commit ${measuredCommit()}\n`,
    );
    console.log('| measure | p50 ms | p99 ms | mean ms |\n|---|---:|---:|---:|');
    console.log(`| in process, CPU per search | ${f(rows.inProcess.p50)} | ${f(rows.inProcess.p99)} | ${f(rows.inProcess.mean)} |`);
    console.log(`| in process, wall per search | ${f(rows.inProcessWall.p50)} | ${f(rows.inProcessWall.p99)} | ${f(rows.inProcessWall.mean)} |`);
    console.log(`| over HTTP, wall per search | ${f(rows.http.p50)} | ${f(rows.http.p99)} | ${f(rows.http.mean)} |`);
    console.log(`| over HTTP, server CPU per search (10 ms ticks) | ${f(rows.serverCpu.p50)} | ${f(rows.serverCpu.p99)} | ${f(rows.serverCpu.mean)} |`);
    console.log(
      `\nHTTP wall ÷ in-process wall: p50 ${f(rows.http.p50 / rows.inProcessWall.p50)}, mean ${f(rows.http.mean / rows.inProcessWall.mean)}; server CPU ÷ in-process CPU: mean ${f(rows.serverCpu.mean / rows.inProcess.mean)}`,
    );
  }
  console.log(
    `\nIn process: restore ${restore.wallMs.toFixed(0)} ms (CPU ${restore.cpuMs.toFixed(0)}), prepare CPU ${restore.prepareCpuMs.toFixed(0)} ms; first three searches CPU ${first.map((ms) => ms.toFixed(1)).join(' / ')} ms; steady ${steady.map((ms) => ms.toFixed(1)).join(' / ')}; right after adding a skill ${afterAdd.toFixed(1)}, after removing it ${afterRemove.toFixed(1)} ms (same query: ${steady[0].toFixed(1)})`,
  );
} finally {
  await server?.stop();
  rmSync(store, { recursive: true, force: true });
}
