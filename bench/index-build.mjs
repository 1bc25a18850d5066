#!/usr/bin/env node
// bench/index-build: how long the search index's first build takes after `skillport serve --http` is ready, and how
// reads fare meanwhile, with its worker threads and without (SKILLPORT_SEARCH_WORKERS=0: every skill read and
// analysed on the main thread), one server after the other in one run. Per run: ready (first skills/list answered),
// index complete (/healthz search.ready, a search sent right after ready asks for it, as bench/scale.mjs does),
// resources/read per second while the index builds and for a few seconds once it is complete (8 clients in a loop,
// the same SKILL.md files), their ratio, the main thread's CPU and the process's CPU over the build (from /proc),
// and peak RSS. Usage: node bench/index-build.mjs --catalog /work/scale-data/catalog-10000 [--workers 0,1] [--port 5431]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { measuredCommit, options } from './args.mjs';
import { post as postRpc } from './mcp-post.mjs';

const flags = options();
const catalog = flags.value('catalog', undefined);
if (catalog === undefined) throw new Error('--catalog DIR (bench/generate-catalog.mjs --out DIR) is required');
const runs = flags.value('workers', '0,1').split(',').map(Number);
const port = Number(flags.value('port', '5431'));
const maxMs = Number(flags.value('max-seconds', '1800')) * 1000;
const cli = join(import.meta.dirname, '../packages/cli/dist/src/bin.js');
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const ticks = (pid, task) => {
  const fields = readFileSync(task === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${task}/stat`, 'utf8')
    .split(') ')[1]
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // ms (USER_HZ 100)
};
const kb = (name, pid) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

async function run(workers) {
  const cache = mkdtempSync(join(tmpdir(), 'skillport-index-build-cache-'));
  const store = mkdtempSync(join(tmpdir(), 'skillport-index-build-store-'));
  const proc = spawn(process.execPath, [cli, 'serve', '--http', '--port', String(port), '--quiet', '--cache-dir', cache, '--data', store, resolve(catalog)], {
    stdio: ['ignore', 'ignore', 'ignore'],
    env: { ...process.env, SKILLPORT_SEARCH_WORKERS: String(workers) },
  });
  const url = `http://127.0.0.1:${port}`;
  const post = (method, params, name) => postRpc(`${url}/mcp`, method, params, name);
  const started = performance.now();
  try {
    let page;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`the server exited with ${proc.exitCode}`);
      page = await post('skills/list', {}).catch(() => undefined);
      if (page !== undefined) break;
      await sleep(50);
    }
    const ready = performance.now();
    const uris = page.skills.map((skill) => skill.uri);
    const cpu0 = { main: ticks(proc.pid, proc.pid), all: ticks(proc.pid) };
    post('tools/call', { name: 'list_skills', arguments: { query: 'pdf', limit: 5 } }, 'list_skills').catch(() => undefined);
    let phase = 'build';
    const reads = { build: 0, after: 0 };
    let reading = true;
    const lanes = Array.from({ length: 8 }, async (_, lane) => {
      for (let at = lane; reading; at += 8) {
        await post('resources/read', { uri: uris[at % uris.length] }, uris[at % uris.length]).catch(() => undefined);
        reads[phase]++;
      }
    });
    let complete;
    for (;;) {
      const { search } = await (await fetch(`${url}/healthz`)).json();
      if (search.ready) {
        complete = { at: performance.now(), search };
        break;
      }
      if (performance.now() - started > maxMs) throw new Error('the search index was not complete in time');
      await sleep(200);
    }
    const cpu1 = { main: ticks(proc.pid, proc.pid), all: ticks(proc.pid) };
    const buildSeconds = (complete.at - ready) / 1000;
    const buildReads = reads.build;
    phase = 'after';
    const afterStart = performance.now();
    await sleep(5000);
    const afterSeconds = (performance.now() - afterStart) / 1000;
    reading = false;
    await Promise.all(lanes);
    return {
      workers,
      ready: (ready - started) / 1000,
      build: buildSeconds,
      readsDuring: buildReads / buildSeconds,
      readsAfter: reads.after / afterSeconds,
      mainCpu: (cpu1.main - cpu0.main) / 1000,
      allCpu: (cpu1.all - cpu0.all) / 1000,
      peak: kb('VmHWM', proc.pid),
      inWorkers: complete.search.analysedInWorkers ?? 0,
      indexed: complete.search.indexed,
    };
  } finally {
    if (proc.exitCode === null) {
      proc.kill('SIGTERM');
      await new Promise((done) => proc.once('exit', done));
    }
    rmSync(cache, { recursive: true, force: true });
    rmSync(store, { recursive: true, force: true });
  }
}

console.log(`bench/index-build on ${catalog} at ${measuredCommit()}`);
for (const workers of runs) {
  const r = await run(workers);
  console.log(
    `workers ${r.workers}: ready ${r.ready.toFixed(1)} s; index complete ${r.build.toFixed(1)} s after ready (${r.indexed} skills, ${r.inWorkers} analysed in workers); ` +
      `main thread CPU ${r.mainCpu.toFixed(1)} s, process CPU ${r.allCpu.toFixed(1)} s over the build; resources/read ${r.readsDuring.toFixed(0)}/s during the build, ` +
      `${r.readsAfter.toFixed(0)}/s after (${(r.readsDuring / r.readsAfter).toFixed(2)}); peak RSS ${r.peak.toFixed(0)} MB`,
  );
}
