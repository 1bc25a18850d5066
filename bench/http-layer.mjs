#!/usr/bin/env node
// bench/http-layer: /mcp reads and list pages on this build against a baseline build (another checkout's
// packages/cli/dist/src/bin.js), same catalog, same load generator (bench/load.mjs), rounds interleaved A/B so that
// a busy machine weighs on both alike. Prints requests/s per round, the medians and the ratio (this / baseline), and
// each server's CPU time per request over its rounds (from /proc: less moved by other work on the machine).
// Usage: node bench/http-layer.mjs --baseline /path/to/other/checkout [--catalog DIR] [--duration 3] [--rounds 3]
//        [--concurrency 16] [--era modern|legacy] [--settle 180] [--kinds read,list] [--bare] [--sample first|scale]
// Each server is left to settle first (its CPU quiet: the start's background scan and search index build done).
// --bare adds bench/bare-server.mjs (node:http answering from memory, as bench/scale.mjs's limit) to every round, and
// prints each build's rate ÷ the bare server's in the same run. --sample scale reads the files bench/scale.mjs reads
// (the first 5 files of skills spread over the catalog, up to 5,000) instead of the first 2,000 listed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const baseline = flags.value('baseline');
if (!baseline) {
  process.stderr.write('usage: node bench/http-layer.mjs --baseline /path/to/other/checkout [--catalog DIR]\n');
  process.exit(2);
}
const catalog = resolve(flags.value('catalog', join(repo, '../shared/corpus/skills')));
const duration = Number(flags.value('duration', '3'));
const rounds = Number(flags.value('rounds', '3'));
const concurrency = Number(flags.value('concurrency', '16'));
const era = flags.value('era', 'modern');
const settleSeconds = Number(flags.value('settle', '180'));
const kinds = flags.value('kinds', 'read,list').split(',');
const withBare = flags.flag('bare');
const sample = flags.value('sample', 'first');
const work = mkdtempSync(join(tmpdir(), 'skillport-http-layer-'));

async function start(name, root) {
  const proc = spawn(process.execPath, [join(root, 'packages/cli/dist/src/bin.js'), 'serve', '--http', '--port', '0', '--no-watch', '--no-cache', catalog], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stderr = '';
  const url = await new Promise((done, fail) => {
    proc.stderr.on('data', (chunk) => {
      stderr += chunk;
      const found = /on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (found) done(found[1]);
    });
    proc.once('exit', () => fail(new Error(`${name} exited: ${stderr}`)));
  });
  return { name, url, proc };
}

async function targets(url) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  const uris = [];
  const skills = [];
  const cursors = [null];
  let firstPage;
  let cursor;
  do {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'skills/list', params: cursor ? { cursor } : {} }),
    });
    const text = await response.text();
    const json = text.startsWith('event:') ? JSON.parse(/^data: (.*)$/m.exec(text)[1]) : JSON.parse(text);
    firstPage ??= json.result;
    for (const skill of json.result.skills) {
      const files = (skill.resources ?? []).map((resource) => resource.uri);
      uris.push(...files);
      skills.push(files);
    }
    cursor = json.result.nextCursor;
    if (cursor) cursors.push(cursor);
  } while (cursor);
  const reads = join(work, 'reads.json');
  const lists = join(work, 'lists.json');
  // As bench/scale.mjs samples: the first 5 files of every (count / 1,000)th skill.
  const step = Math.max(1, Math.floor(skills.length / 1000));
  const spread = skills.filter((_, at) => at % step === 0).flatMap((files) => files.slice(0, 5));
  writeFileSync(reads, JSON.stringify(sample === 'scale' ? spread : uris.slice(0, 2000)));
  writeFileSync(lists, JSON.stringify(cursors));
  writeFileSync(join(work, 'page.json'), JSON.stringify(firstPage));
  return { read: reads, list: lists };
}

/** The server process's CPU time (user + system) so far, in seconds: per request it is a figure a busy machine barely moves. */
function cpuSeconds(pid, thread = undefined) {
  const fields = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8')
    .split(') ')[1]
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function load(url, kind, file, pid) {
  const cpuBefore = cpuSeconds(pid);
  // The main thread alone (its task id is the pid): what answering costs, without worker threads' background work.
  const mainBefore = cpuSeconds(pid, pid);
  const run = spawnSync(process.execPath, [join(repo, 'bench/load.mjs'), url, era, kind, String(duration), String(concurrency), file], { encoding: 'utf8' });
  const last = run.stdout.trim().split('\n').at(-1);
  if (!last) throw new Error(`bench/load.mjs printed nothing: ${run.stderr}`);
  const figures = JSON.parse(last);
  if (figures.failed > 0) process.stderr.write(`${url}: ${figures.failed} failed requests\n`);
  cpu[`${kind}:${pid}`] = cpu[`${kind}:${pid}`] ?? { seconds: 0, main: 0, requests: 0 };
  cpu[`${kind}:${pid}`].seconds += cpuSeconds(pid) - cpuBefore;
  cpu[`${kind}:${pid}`].main += cpuSeconds(pid, pid) - mainBefore;
  cpu[`${kind}:${pid}`].requests += figures.ok;
  return figures.perSecond;
}

/**
 * Waits until a server's CPU is quiet (under 5 % over a second, twice in a row; at most --settle seconds): the
 * background scan and the search index build at start would otherwise be counted in the first rounds' CPU.
 */
async function settle(server) {
  const until = Date.now() + settleSeconds * 1000;
  let quiet = 0;
  let last = cpuSeconds(server.proc.pid);
  while (quiet < 2 && Date.now() < until) {
    await new Promise((done) => setTimeout(done, 1000));
    const now = cpuSeconds(server.proc.pid);
    quiet = now - last < 0.05 ? quiet + 1 : 0;
    last = now;
  }
  if (quiet < 2) process.stderr.write(`${server.name}: still busy after ${settleSeconds} s; measuring anyway\n`);
}

/** bench/bare-server.mjs: one fixed read answer, and this server's first list page serialised per request. */
async function startBare() {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const proc = spawn(process.execPath, [join(repo, 'bench/bare-server.mjs'), String(port), join(work, 'page.json')], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let tries = 0; ; tries++) {
    try {
      if ((await fetch(url, { method: 'POST', body: '{}' })).ok) break;
    } catch (error) {
      if (tries > 100) throw error;
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  const read = join(work, 'bare-read.json');
  const list = join(work, 'bare-list.json');
  writeFileSync(read, JSON.stringify(['skill://x/SKILL.md']));
  writeFileSync(list, JSON.stringify([null]));
  return { name: 'bare', url, proc, files: { read, list } };
}

const cpu = {};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const servers = [await start('this', repo), await start('baseline', resolve(baseline))];
try {
  const files = await targets(servers[0].url);
  for (const server of servers) await settle(server);
  if (withBare) servers.push(await startBare());
  const results = {};
  for (const kind of kinds) {
    for (const server of servers) results[`${kind}:${server.name}`] = [];
    // One round each first, not counted: the first seconds of a server carry its start-up work (the search index).
    for (const server of servers) load(server.url, kind, server.files?.[kind] ?? files[kind], server.proc.pid);
    for (const key of Object.keys(cpu)) if (key.startsWith(`${kind}:`)) delete cpu[key];
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const server of order) results[`${kind}:${server.name}`].push(load(server.url, kind, server.files?.[kind] ?? files[kind], server.proc.pid));
    }
    const ours = median(results[`${kind}:this`]);
    const theirs = median(results[`${kind}:baseline`]);
    // Each round's pair ran back to back: the median of the pairs' ratios is less moved by load that comes and goes.
    const paired = median(results[`${kind}:this`].map((value, at) => value / results[`${kind}:baseline`][at]));
    console.log(
      `${kind === 'read' ? 'resources/read' : 'skills/list'} (${era}, ${concurrency} clients): this ${ours.toFixed(0)} req/s, baseline ${theirs.toFixed(0)} req/s, ratio ${(ours / theirs).toFixed(3)}, paired ${paired.toFixed(3)} (rounds: this ${results[`${kind}:this`].map((v) => v.toFixed(0)).join(' ')}; baseline ${results[`${kind}:baseline`].map((v) => v.toFixed(0)).join(' ')})`,
    );
    // Server CPU per request over all rounds: what the layer costs, less sensitive to other work on the machine.
    const perRequest = (server) => {
      const spent = cpu[`${kind}:${server.proc.pid}`];
      return (spent.seconds * 1e6) / Math.max(1, spent.requests);
    };
    const [mine, base, bare] = servers.map(perRequest);
    console.log(`  server CPU per request: this ${mine.toFixed(0)} µs, baseline ${base.toFixed(0)} µs, ratio ${(mine / base).toFixed(3)}`);
    const mainPerRequest = (server) => {
      const spent = cpu[`${kind}:${server.proc.pid}`];
      return (spent.main * 1e6) / Math.max(1, spent.requests);
    };
    const [mainMine, mainBase] = servers.map(mainPerRequest);
    console.log(`  main thread CPU per request: this ${mainMine.toFixed(0)} µs, baseline ${mainBase.toFixed(0)} µs, ratio ${(mainMine / mainBase).toFixed(3)}`);
    if (withBare) {
      const limit = median(results[`${kind}:bare`]);
      const pairedBare = (name) => median(results[`${kind}:${name}`].map((value, at) => value / results[`${kind}:bare`][at]));
      console.log(
        `  ÷ bare server (${limit.toFixed(0)} req/s, CPU ${bare.toFixed(0)} µs per request): this ${(ours / limit).toFixed(3)} (paired ${pairedBare('this').toFixed(3)}), baseline ${(theirs / limit).toFixed(3)} (paired ${pairedBare('baseline').toFixed(3)}) (rounds: bare ${results[`${kind}:bare`].map((v) => v.toFixed(0)).join(' ')})`,
      );
    }
  }
} finally {
  for (const server of servers) server.proc.kill();
  rmSync(work, { recursive: true, force: true });
}
