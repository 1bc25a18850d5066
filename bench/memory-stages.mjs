#!/usr/bin/env node
// bench/memory-stages: the RSS of one `skillport serve --http` (watching, as bench/scale.mjs serves) stage by stage,
// on a catalog made by bench/generate-catalog.mjs: the peak while it starts (scan), when it first answers, every 10 s
// while the search index builds (one search right after ready asks for it, as bench/scale.mjs does), once the index
// is complete and compacted, and a few seconds after. RSS is sampled every 100 ms, so the stage a peak falls in is
// named. Lighter than a whole bench/scale.mjs run (no SDK server, no warm restart): for seeing what a change does to
// memory while others share the machine. `--repo DIR`: serve another checkout's build (a baseline).
// `--load`: bench/scale.mjs's cold phases instead of one search (every skills/list page walked once, a search polled
// every 2 ms until the index is complete, 5 s of resources/read and of skills/list pages from 16 clients, 3 rounds of
// 40 searches, the index's first save, one registry publish (a line once it is answered) and the save after it), so
// its "peak RSS" is measured stage by stage. `--workers N`: SKILLPORT_SEARCH_WORKERS for the server. `--catalog-only`:
// the catalog alone (no index: its background build is put off for an hour), ready then every skills/list page walked,
// then the end.
// Each line gives RSS, its anonymous part (heaps: V8's, malloc's) and the peak so far (VmHWM).
// Usage: node bench/memory-stages.mjs --catalog /work/scale-data/catalog-100000 [--repo DIR] [--port 5411]
//                                     [--load | --catalog-only] [--workers N] [--args "SERVE FLAGS"] [--smaps] [--snapshot]
//                                     [--max-seconds 3600]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const catalogOnly = flags.flag('catalog-only');
const withLoad = flags.flag('load') || catalogOnly;
const workers = flags.value('workers', undefined);
// `--args "--no-scan --no-watch"`: more serve flags (to see what one part of the server holds).
const extraArgs = flags.value('args', '').split(' ').filter(Boolean);
const cache = mkdtempSync(join(tmpdir(), 'skillport-memory-cache-'));
const store = mkdtempSync(join(tmpdir(), 'skillport-memory-store-'));
const cli = join(repo, 'packages/cli/dist/src/bin.js');
const TOKEN = 'bench-memory-token';
const env = {
  ...process.env,
  SKILLPORT_PUBLISH_TOKEN: TOKEN,
  ...(workers !== undefined ? { SKILLPORT_SEARCH_WORKERS: workers } : {}),
  ...(catalogOnly ? { SKILLPORT_SEARCH_IDLE_MS: '3600000' } : {}),
};
const proc = spawn(
  process.execPath,
  [cli, 'serve', '--http', '--port', String(port), '--quiet', '--cache-dir', cache, '--data', store, ...extraArgs, resolve(catalog)],
  {
    stdio: ['ignore', 'ignore', 'ignore'],
    env: flags.flag('snapshot') ? { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --heapsnapshot-signal=SIGUSR2` } : env,
  },
);
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
/** The server's CPU time so far (user + system, s), from /proc: what a phase cost where wall time is noisy. */
const cpu = () => {
  const fields = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const line = (what) => {
  const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8');
  console.log(
    `${seconds()} s  ${what}: RSS ${kb('VmRSS', status).toFixed(0)} MB (anon ${kb('RssAnon', status).toFixed(0)}), peak so far ${kb('VmHWM', status).toFixed(0)} MB, ${/Threads:\s+(\d+)/.exec(status)[1]} threads, CPU ${cpu().toFixed(1)} s`,
  );
};
const search = async (query) => {
  const result = await post('tools/call', { name: 'list_skills', arguments: { query, limit: 10 } }, 'list_skills');
  return result.content?.map((item) => item.text ?? '').join('\n') ?? '';
};
/** bench/load.mjs as bench/scale.mjs runs it (16 clients, 5 s), in a child process so the sampler keeps sampling. */
const load = (kind, targets) => {
  const file = join(cache, `targets-${kind}.json`);
  writeFileSync(file, JSON.stringify(targets));
  const child = spawn(process.execPath, [join(import.meta.dirname, 'load.mjs'), `${url}/mcp`, 'modern', kind, '5', '16', file], { stdio: 'ignore' });
  return new Promise((done) => child.once('exit', done));
};
/**
 * The resident anonymous memory by kind of mapping (MB): glibc's heap ([heap]), mappings of 1 MB or less (V8's heap
 * pages), of 16 MB or more (malloc arenas of threads, V8's reservations), the rest; and file-backed (code).
 */
function smaps(pid) {
  const sums = { brk: 0, small: 0, mid: 0, large: 0, file: 0 };
  let size = 0;
  let kind = 'small';
  for (const text of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(text);
    if (head) {
      size = (Number.parseInt(head[2], 16) - Number.parseInt(head[1], 16)) / 2 ** 20;
      const name = head[4];
      kind = name === '[heap]' ? 'brk' : name !== '' && !name.startsWith('[') ? 'file' : size <= 1 ? 'small' : size >= 16 ? 'large' : 'mid';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(text);
    if (rss) sums[kind] += Number(rss[1]) / 1024;
  }
  return Object.entries(sums)
    .map(([name, mb]) => `${name} ${mb.toFixed(0)}`)
    .join(', ');
}
try {
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`the server exited with ${proc.exitCode ?? proc.signalCode}`);
    if ((await post('skills/list', {}).catch(() => undefined)) !== undefined) break;
    await sleep(50);
  }
  stage = 'ready';
  line('ready (first skills/list answered)');
  const queries = JSON.parse(readFileSync(join(import.meta.dirname, 'search-queries.json'), 'utf8'))
    .map((q) => q.query)
    .slice(0, 40);
  const files = [];
  const cursors = [null];
  if (withLoad) {
    stage = 'every skills/list page';
    const skills = [];
    let cursor;
    do {
      const page = await post('skills/list', cursor ? { cursor } : {});
      for (const skill of page.skills) skills.push(skill.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      if (cursor) cursors.push(cursor);
    } while (cursor);
    const step = Math.max(1, Math.floor(skills.length / 1000));
    for (let i = 0; i < skills.length; i += step) files.push(...skills[i].slice(0, 5));
    line(`listed ${skills.length} skills`);
  }
  if (catalogOnly) {
    await sleep(3000);
    stage = 'settled';
    line('3 s later');
  }
  if (!catalogOnly) {
    stage = 'search index build';
    // With --load, a search polled until it is complete, as bench/scale.mjs times "search index complete".
    let polling = withLoad;
    const poller = (async () => {
      const complete = (text) => text.length > 0 && !text.includes('"indexing"') && !text.includes('still being built');
      while (polling) {
        if (complete(await search(queries[0]).catch(() => ''))) break;
        await sleep(2);
      }
    })();
    if (!withLoad) post('tools/call', { name: 'list_skills', arguments: { query: 'pdf', limit: 5 } }, 'list_skills').catch(() => undefined);
    let last = 0;
    for (;;) {
      const { search: state } = await (await fetch(`${url}/healthz`)).json();
      if (state.ready && (withLoad || state.compactions > 0)) break;
      if (performance.now() - last >= 10_000) {
        line(`indexed ${state.indexed} of ${state.total}`);
        last = performance.now();
      }
      if (performance.now() - started > maxMs) throw new Error('the search index was not complete in time');
      await sleep(500);
    }
    if (withLoad) {
      await poller;
      polling = false;
      stage = 'index complete';
      line('search index complete (the search answers completely)');
      stage = 'resources/read load';
      await load('read', files);
      line('after 5 s of resources/read');
      stage = 'skills/list load';
      await load('list', cursors);
      line('after 5 s of skills/list pages');
      stage = 'searches';
      for (let round = 0; round < 4; round++) for (const query of round === 0 ? queries.slice(0, 5) : queries) await search(query);
      line('after 125 searches');
      stage = 'compaction';
      for (;;) {
        const { search: state } = await (await fetch(`${url}/healthz`)).json();
        if (state.compactions > 0) break;
        await sleep(200);
      }
      line('index compacted');
      // The index's first save (2 s after the compaction, once the server is quiet), then, as bench/scale.mjs does, a
      // change after it (one registry publish), which the index takes in and saves again.
      stage = 'first save';
      for (;;) {
        if ((await (await fetch(`${url}/healthz`)).json()).search.saves > 0) break;
        if (performance.now() - started > maxMs) throw new Error('the index was not saved in time');
        await sleep(200);
      }
      line('index saved');
      stage = 'publish and save';
      const { saves } = (await (await fetch(`${url}/healthz`)).json()).search;
      const registry = await import(join(repo, 'packages/registry/dist/src/index.js'));
      const name = `bench-memory-${Date.now().toString(36)}`;
      const content = [
        { path: 'SKILL.md', bytes: Buffer.from(`---\nname: ${name}\ndescription: A skill published by bench/memory-stages.\n---\n\n# ${name}\n`) },
      ];
      const response = await fetch(`${url}/api/v1/skills`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/vnd.skillport.skill+gzip' },
        body: registry.packSkillArchive(registry.manifestFor(name, content, { version: '1.0.0' }), content),
      });
      await response.arrayBuffer();
      if (response.status !== 201) console.log(`publish answered ${response.status}`);
      line('publish answered');
      stage = 'the index saved after the publish';
      for (;;) {
        const { search: state } = await (await fetch(`${url}/healthz`)).json();
        if (state.saves > saves && state.ready) break;
        if (performance.now() - started > maxMs) throw new Error('the index was not saved after the publish in time');
        await sleep(200);
      }
      line('published one skill, the index saved again');
    } else {
      stage = 'index complete';
      line('search index complete and compacted');
    }
    await sleep(3000);
    stage = 'settled';
    line('3 s later');
  }
  if (flags.flag('smaps')) console.log(`resident memory by mapping: ${smaps(proc.pid)}`);
  if (flags.flag('snapshot')) {
    // A heap snapshot of the main thread (written in the server's working directory, this one), then the end.
    proc.kill('SIGUSR2');
    await sleep(Number(flags.value('snapshot-wait', '20')) * 1000);
  }
  console.log(`peak RSS ${peak.mb.toFixed(0)} MB, during "${peak.stage}" (${peak.at} s after spawn)`);
} finally {
  clearInterval(sampler);
  if (proc.exitCode === null && proc.signalCode === null) {
    proc.kill('SIGTERM');
    await new Promise((done) => proc.once('exit', done));
  }
  rmSync(cache, { recursive: true, force: true });
  rmSync(store, { recursive: true, force: true });
}
