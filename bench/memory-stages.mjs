#!/usr/bin/env node
// bench/memory-stages: the RSS of one `skillport serve --http` (watching, as bench/scale.mjs serves) stage by stage,
// on a catalog made by bench/generate-catalog.mjs: the peak while it starts (scan), when it first answers, every 10 s
// while the search index builds (one search right after ready asks for it, as bench/scale.mjs does), once the index
// is complete and compacted, and a few seconds after. RSS is sampled every 100 ms, so the stage a peak falls in is
// named. Lighter than a whole bench/scale.mjs run (no SDK server, no load phases, no warm restart): for seeing what a
// change does to memory while others share the machine. `--repo DIR`: serve another checkout's build (a baseline).
// Usage: node bench/memory-stages.mjs --catalog /work/scale-data/catalog-100000 [--repo DIR] [--port 5411] [--max-seconds 3600]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { options } from './args.mjs';
import { post as postRpc } from './mcp-post.mjs';

const flags = options();
const catalog = flags.value('catalog', undefined);
if (catalog === undefined) throw new Error('--catalog DIR (bench/generate-catalog.mjs --out DIR) is required');
const repo = resolve(flags.value('repo', join(import.meta.dirname, '..')));
const port = Number(flags.value('port', '5411'));
const maxMs = Number(flags.value('max-seconds', '3600')) * 1000;
const cache = mkdtempSync(join(tmpdir(), 'skillport-memory-cache-'));
const store = mkdtempSync(join(tmpdir(), 'skillport-memory-store-'));
const cli = join(repo, 'packages/cli/dist/src/bin.js');
const proc = spawn(process.execPath, [cli, 'serve', '--http', '--port', String(port), '--quiet', '--cache-dir', cache, '--data', store, resolve(catalog)], {
  stdio: ['ignore', 'ignore', 'ignore'],
});
const url = `http://127.0.0.1:${port}`;
const post = (method, params, name) => postRpc(`${url}/mcp`, method, params, name);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
const kb = (name, status) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)[1]) / 1024;
let stage = 'start';
let peak = { mb: 0, stage: '', at: '' };
const sampler = setInterval(() => {
  try {
    const rss = kb('VmRSS', readFileSync(`/proc/${proc.pid}/status`, 'utf8'));
    if (rss > peak.mb) peak = { mb: rss, stage, at: seconds() };
  } catch {
    // exited
  }
}, 100);
const line = (what) => {
  const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8');
  console.log(`${seconds()} s  ${what}: RSS ${kb('VmRSS', status).toFixed(0)} MB, peak so far ${kb('VmHWM', status).toFixed(0)} MB`);
};
try {
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`the server exited with ${proc.exitCode}`);
    if ((await post('skills/list', {}).catch(() => undefined)) !== undefined) break;
    await sleep(50);
  }
  stage = 'ready';
  line('ready (first skills/list answered)');
  stage = 'search index build';
  post('tools/call', { name: 'list_skills', arguments: { query: 'pdf', limit: 5 } }, 'list_skills').catch(() => undefined);
  let last = 0;
  for (;;) {
    const { search } = await (await fetch(`${url}/healthz`)).json();
    if (search.ready && search.compactions > 0) break;
    if (performance.now() - last >= 10_000) {
      line(`indexed ${search.indexed} of ${search.total}`);
      last = performance.now();
    }
    if (performance.now() - started > maxMs) throw new Error('the search index was not complete in time');
    await sleep(500);
  }
  stage = 'index complete';
  line('search index complete and compacted');
  await sleep(3000);
  stage = 'settled';
  line('3 s later');
  console.log(`peak RSS ${peak.mb.toFixed(0)} MB, during "${peak.stage}" (${peak.at} s after spawn)`);
} finally {
  clearInterval(sampler);
  if (proc.exitCode === null) {
    proc.kill('SIGTERM');
    await new Promise((done) => proc.once('exit', done));
  }
  rmSync(cache, { recursive: true, force: true });
  rmSync(store, { recursive: true, force: true });
}
