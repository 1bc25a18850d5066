#!/usr/bin/env node
// bench/scale: skillport at 1,000 / 10,000 / 100,000 generated skills (bench/generate-catalog.mjs), in one run, beside
// the SDK's own skills server (bench/sdk-server.mjs, at the sizes where it can finish: --sdk-max) and a bare node:http
// server answering one fixed body from memory (bench/bare-server.mjs: the most this machine and load generator do;
// the target's limit), and the same bare server answering the sampled reads with the same contents as ours (a second,
// labelled line: answers of the same sizes).
// Per size: cold ready (empty caches; the first skills/list answer, and the whole catalog: a read answered) and warm
// ready (restart), peak RSS (VmHWM), resources/read and skills/list
// pages per second (bench/load.mjs, 16 keep-alive clients; reads again right after the warm restart), search p50/p99 (list_skills with a query, over HTTP),
// one changed SKILL.md -> served (resources/read shows it) and searchable (a search finds its new word), one
// registry publish (POST /api/v1/skills) -> served. Prints Markdown tables; writes the curves to docs/scale.svg and,
// with --write-docs, the tables into docs/benchmarks.md between the scale markers.
// Usage: node bench/scale.mjs [--sizes 1000,10000,100000] [--duration 5] [--concurrency 16] [--sdk-max 10000]
//                             [--catalogs DIR] [--label "under load"] [--write-docs] [--json]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { measuredCommit, options } from './args.mjs';
import { post } from './mcp-post.mjs';
import { until as untilEvery } from './poll.mjs';

const until = (check, timeoutMs = 30_000) => untilEvery(check, timeoutMs, 2);

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const sizes = flags.value('sizes', '1000,10000,100000').split(',').map(Number);
const duration = Number(flags.value('duration', '5'));
const concurrency = Number(flags.value('concurrency', '16'));
const sdkMax = Number(flags.value('sdk-max', '10000'));
const label = flags.value('label', '');
// Where the generated catalogs live (bench/.data by default); the 100,000 one is 4.4 GB and minutes to make: share it.
const catalogs = flags.value('catalogs', '');
const asJson = flags.flag('json');
const commit = measuredCommit();
// The installed command (what `skillport` on the PATH and an MCP client's configuration run: the bundle, falling back
// to dist/src), not the plain build: ready is what a user's `skillport serve` takes. SKILLPORT_NO_BUNDLE=1 for the plain one.
const cli = join(repo, 'packages/cli/bin/skillport.js');
const registry = await import(join(repo, 'packages/registry/dist/src/index.js'));
const TOKEN = 'bench-scale-token';
const log = (line) => process.stderr.write(`${line}\n`);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
let nextPort = 5300;
const began = performance.now();

// --- HTTP helpers (the 2026-07-28 wire, as bench/serve.mjs speaks it) ---
const read = (url, uri) => post(url, 'resources/read', { uri }, uri);
async function search(url, query) {
  const call = () => post(url, 'tools/call', { name: 'list_skills', arguments: { query, limit: 10 } }, 'list_skills');
  // A keep-alive connection the server closed while the load phases ran (idle) is retried once on a new one.
  const result = await call().catch((error) => (error?.cause?.code === 'UND_ERR_SOCKET' ? call() : Promise.reject(error)));
  return result.content?.map((item) => item.text ?? '').join('\n') ?? '';
}

async function spawnServer(argv, readyCheck, env = {}) {
  const started = performance.now();
  const proc = spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env } });
  let stderr = '';
  proc.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${argv[0]} exited: ${stderr}`);
    try {
      if (await readyCheck()) break;
    } catch {
      // not yet
    }
    await sleep(20);
  }
  return { proc, readyMs: performance.now() - started, startedAt: started, stderr: () => stderr };
}
const peakRss = (proc) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))[1]) / 1024;
async function stop(proc) {
  if (proc.exitCode !== null) return;
  await new Promise((done) => {
    proc.once('exit', done);
    proc.kill('SIGTERM');
  });
}

function load(url, kind, targets) {
  const file = join(tmpdir(), `skillport-scale-targets-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(targets));
  const run = spawnSync(process.execPath, [join(repo, 'bench/load.mjs'), url, 'modern', kind, String(duration), String(concurrency), file], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  rmSync(file, { force: true });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

/**
 * A cold start may answer its first skills/list page before the whole scan (ADR 0276): the time, from spawn, until a
 * file read is answered too, i.e. the whole catalog is served. Equal to ready for a server that answers all at once.
 */
async function wholeCatalogAt(url, server) {
  const first = await post(url, 'skills/list', {});
  const uri = first.skills[0]?.resources?.[0]?.uri;
  if (uri !== undefined) await until(async () => (await read(url, uri)).contents !== undefined, 600_000);
  return performance.now() - server.startedAt;
}

async function listAll(url) {
  const uris = [];
  const cursors = [null];
  let cursor;
  do {
    const page = await post(url, 'skills/list', cursor ? { cursor } : {});
    for (const skill of page.skills) uris.push({ uri: skill.uri, files: skill.resources.map((r) => r.uri) });
    cursor = page.nextCursor;
    if (cursor) cursors.push(cursor);
  } while (cursor);
  return { skills: uris, cursors };
}

/** Up to 5,000 file URIs spread over the catalog (every skill's files would make a huge targets file at 100k). */
function sampleFiles(skills) {
  const step = Math.max(1, Math.floor(skills.length / 1000));
  const files = [];
  for (let i = 0; i < skills.length; i += step) files.push(...skills[i].files.slice(0, 5));
  return files;
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
};

/**
 * Appends a new word to one SKILL.md and times, from the write, until a read serves it (`<key>ServedMs`) and until a
 * search finds its skill (`<key>SearchableMs`); the file is put back afterwards. NaN when a step never happened.
 */
async function probeChange(url, dir, target, key) {
  if (target === undefined) return {};
  const path = join(dir, target.uri.slice('skill://'.length));
  const original = readFileSync(path);
  const word = `zqxscale${Date.now().toString(36)}`;
  try {
    writeFileSync(path, Buffer.concat([original, Buffer.from(`\n${word} marker line.\n`)]));
    // Timed from the write: the watcher's debounce, the rescan, the derived snapshot, the read.
    const servedAt = await until(async () => (await read(url, target.uri)).contents[0].text.includes(word));
    const searchableAt = await until(async () => (await search(url, word)).includes(target.uri.replace(/\/SKILL\.md$/, '')));
    return { [`${key}ServedMs`]: servedAt, [`${key}SearchableMs`]: Number.isNaN(searchableAt) ? NaN : servedAt + searchableAt };
  } finally {
    writeFileSync(path, original);
  }
}

// --- one size ---
async function measureSize(count) {
  log(`\n== ${count} skills: preparing the catalog (bench/generate-catalog.mjs; reused when present)...`);
  const out = catalogs ? ['--out', join(resolve(catalogs), `catalog-${count}`)] : [];
  const dir = execFileSync(process.execPath, [join(repo, 'bench/generate-catalog.mjs'), '--count', String(count), ...out], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  const row = { count };

  const queries = JSON.parse(readFileSync(join(repo, 'bench/search-queries.json'), 'utf8'))
    .map((q) => q.query)
    .slice(0, 40);

  if (count <= sdkMax) {
    log('SDK skills server (loadSkills + createMcpHandler)...');
    const port = nextPort++;
    const url = `http://127.0.0.1:${port}/mcp`;
    const sdk = await spawnServer([join(repo, 'bench/sdk-server.mjs'), dir, String(port)], async () => (await post(url, 'skills/list', {})) !== undefined);
    const sdkWholeMs = await wholeCatalogAt(url, sdk);
    const { skills, cursors } = await listAll(url);
    row.sdk = {
      readyMs: sdk.readyMs,
      wholeMs: sdkWholeMs,
      skills: skills.length,
      read: load(url, 'read', sampleFiles(skills)).perSecond,
      list: load(url, 'list', cursors).perSecond,
    };
    row.sdk.peakRssMb = peakRss(sdk.proc);
    await stop(sdk.proc);
  }

  const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-scale-cache-'));
  const pageFile = join(cacheDir, 'page.json');
  const contentsFile = join(cacheDir, 'contents.json');
  const store = mkdtempSync(join(tmpdir(), 'skillport-scale-store-'));
  const serveArgs = (port) => [cli, 'serve', '--http', '--port', String(port), '--quiet', '--cache-dir', cacheDir, '--data', store, dir];
  const env = { SKILLPORT_PUBLISH_TOKEN: TOKEN };
  try {
    log('skillport, cold (empty caches)...');
    let port = nextPort++;
    let url = `http://127.0.0.1:${port}/mcp`;
    const cold = await spawnServer(serveArgs(port), async () => (await post(url, 'skills/list', {})) !== undefined, env);
    const wholeMs = await wholeCatalogAt(url, cold);
    const { skills, cursors } = await listAll(url);
    const files = sampleFiles(skills);
    const ours = {
      readyMs: cold.readyMs,
      wholeMs,
      skills: skills.length,
      rssAtReadyMb: Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${cold.proc.pid}/status`, 'utf8'))[1]) / 1024,
    };
    // The bare limit answers skills/list with this same first page (serialised per request).
    writeFileSync(pageFile, JSON.stringify(await post(url, 'skills/list', {})));
    // The first search may wait for the index (built in the background at start): time it, then measure.
    // A partial answer (the index still being built) says so: search figures are measured on the complete index.
    const complete = (text) => text.length > 0 && !text.includes('"indexing"') && !text.includes('still being built');
    ours.searchReadyMs = await until(async () => complete(await search(url, queries[0])), 600_000);
    ours.read = load(url, 'read', files).perSecond;
    ours.list = load(url, 'list', cursors).perSecond;
    // The second bare limit answers the same reads with the same contents (taken from this server after its load).
    const contents = {};
    for (const uri of files) {
      const item = (await read(url, uri).catch(() => undefined))?.contents?.[0];
      if (item !== undefined)
        contents[uri] = { uri: item.uri, mimeType: item.mimeType, ...(item.text !== undefined ? { text: item.text } : { blob: item.blob }) };
    }
    writeFileSync(contentsFile, JSON.stringify(contents));
    for (const query of queries.slice(0, 5)) await search(url, query); // warm-up
    const times = [];
    for (let round = 0; round < 3; round++) {
      for (const query of queries) {
        const started = performance.now();
        await search(url, query);
        times.push(performance.now() - started);
      }
    }
    ours.searchP50 = percentile(times, 0.5);
    ours.searchP99 = percentile(times, 0.99);

    // One changed file, once everything has settled: when is it served, and when does a search find it?
    const targets = skills.filter(
      (skill) => /^skill:\/\/copy-00\/[^%]+\/SKILL\.md$/.test(skill.uri) && existsSync(join(dir, skill.uri.slice('skill://'.length))),
    );
    Object.assign(ours, await probeChange(url, dir, targets[0], 'change'));

    // One publish: a new skill POSTed to the registry; when does the catalog serve it?
    {
      const name = `bench-publish-${Date.now().toString(36)}`;
      const content = [
        {
          path: 'SKILL.md',
          bytes: Buffer.from(`---\nname: ${name}\ndescription: A skill published by bench/scale. Use when measuring.\n---\n\n# ${name}\n\nPublished.\n`),
        },
      ];
      const archive = registry.packSkillArchive(registry.manifestFor(name, content, { version: '1.0.0' }), content);
      const base = url.replace(/\/mcp$/, '');
      const started = performance.now();
      const response = await fetch(`${base}/api/v1/skills`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/vnd.skillport.skill+gzip' },
        body: archive,
      });
      await response.arrayBuffer();
      ours.publishAcceptedMs = performance.now() - started;
      if (response.status !== 201) log(`   publish answered ${response.status}`);
      const served = await until(async () => (await read(url, `skill://${name}/SKILL.md`)).contents[0].text.includes('Published.'));
      ours.publishServedMs = ours.publishAcceptedMs + served;
    }
    ours.peakRssMb = peakRss(cold.proc);
    await stop(cold.proc);

    log('skillport, warm restart...');
    port = nextPort++;
    url = `http://127.0.0.1:${port}/mcp`;
    const warm = await spawnServer(serveArgs(port), async () => (await post(url, 'skills/list', {})) !== undefined, env);
    ours.warmReadyMs = warm.readyMs;
    // As a rolling deploy meets a restarted replica: probed the moment it answers, not after it settles.
    // A file changed right after the first answer (the watches of a large tree may still be arming), then searches.
    Object.assign(ours, await probeChange(url, dir, targets[1] ?? targets[0], 'warmChange'));
    {
      const times = [];
      for (const query of queries.slice(0, 20)) {
        const started = performance.now();
        await search(url, query);
        times.push(performance.now() - started);
      }
      ours.warmSearchP50 = percentile(times, 0.5);
      ours.warmSearchP99 = percentile(times, 0.99);
      ours.warmProbedMs = performance.now() - warm.startedAt - warm.readyMs;
    }
    // Reads as a replica meets them right after it rejoins: the load starts seconds after the warm answer, while
    // the watches' first walk and the restored catalog's check still run (a cold content cache, as after a restart).
    ours.warmReadAfterMs = performance.now() - warm.startedAt - warm.readyMs;
    ours.warmRead = load(url, 'read', files).perSecond;
    ours.warmRssMb = peakRss(warm.proc);
    await stop(warm.proc);
    row.ours = ours;

    log('bare node:http server (the limit)...');
    {
      const port = nextPort++;
      const url = `http://127.0.0.1:${port}/mcp`;
      const bare = await spawnServer(
        [join(repo, 'bench/bare-server.mjs'), String(port), pageFile],
        async () => (await fetch(url, { method: 'POST', body: '{}' })).ok,
      );
      row.bare = { read: load(url, 'read', ['skill://x/SKILL.md']).perSecond, list: load(url, 'list', [null]).perSecond };
      await stop(bare.proc);
    }
    log('bare node:http server answering the same files (a second, labelled limit)...');
    {
      const port = nextPort++;
      const url = `http://127.0.0.1:${port}/mcp`;
      const bare = await spawnServer(
        [join(repo, 'bench/bare-server.mjs'), String(port), '-', contentsFile],
        async () => (await fetch(url, { method: 'POST', body: '{}' })).ok,
      );
      row.bare.readFiles = load(url, 'read', files).perSecond;
      await stop(bare.proc);
    }
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
    rmSync(store, { recursive: true, force: true });
  }
  return row;
}

const rows = [];
for (const count of sizes) {
  rows.push(await measureSize(count));
  log(JSON.stringify(rows.at(-1)));
}
const minutes = (performance.now() - began) / 60000;

// --- report ---
const f0 = (value) => (value === undefined || Number.isNaN(value) ? 'n/a' : Math.round(value).toLocaleString('en-US'));
const f1 = (value) => (value === undefined || Number.isNaN(value) ? 'n/a' : value.toFixed(1));
const ratio = (a, b) => (a === undefined || b === undefined || Number.isNaN(a) || Number.isNaN(b) || b === 0 ? 'n/a' : (a / b).toFixed(2));
const entry = process.env.SKILLPORT_NO_BUNDLE === '1' ? 'the plain build' : 'the installed command';
const heading = `skillport (${entry}) at ${sizes.map((n) => n.toLocaleString('en-US')).join(' / ')} generated skills; commit ${commit}; ${concurrency} clients, ${duration} s per load${label ? `; ${label}` : ''}; ${minutes.toFixed(1)} min`;
const lines = [
  `### Scale: ${heading}`,
  '',
  `| measure | ${rows.map((row) => row.count.toLocaleString('en-US')).join(' | ')} |`,
  `|---|${rows.map(() => '---:').join('|')}|`,
];
const line = (name, pick) => lines.push(`| ${name} | ${rows.map(pick).join(' | ')} |`);
line('skills served', (row) => f0(row.ours.skills));
line('ready, cold (ms)', (row) => f0(row.ours.readyMs));
line('ready, warm restart (ms)', (row) => f0(row.ours.warmReadyMs));
line('ready, SDK server (ms)', (row) => f0(row.sdk?.readyMs));
line('  cold ready ÷ SDK server', (row) => ratio(row.ours.readyMs, row.sdk?.readyMs));
line('whole catalog served (a read answered), cold (ms)', (row) => f0(row.ours.wholeMs));
line('  whole catalog served, cold ÷ SDK server', (row) => ratio(row.ours.wholeMs, row.sdk?.wholeMs));
line('RSS when ready, cold (MB)', (row) => f0(row.ours.rssAtReadyMb));
line('peak RSS (MB)', (row) => f0(row.ours.peakRssMb));
line('peak RSS, warm restart and its probes (MB)', (row) => f0(row.ours.warmRssMb));
line('peak RSS, SDK server (MB)', (row) => f0(row.sdk?.peakRssMb));
line('  peak RSS ÷ SDK server', (row) => ratio(row.ours.peakRssMb, row.sdk?.peakRssMb));
line('resources/read per s', (row) => f0(row.ours.read));
line('  ÷ bare limit', (row) => ratio(row.ours.read, row.bare.read));
line("  ÷ bare, same files (not the target's limit)", (row) => ratio(row.ours.read, row.bare.readFiles));
line('  ÷ SDK server', (row) => ratio(row.ours.read, row.sdk?.read));
line('resources/read per s right after a warm restart', (row) => f0(row.ours.warmRead));
line('  ÷ bare limit', (row) => ratio(row.ours.warmRead, row.bare.read));
line('skills/list pages per s', (row) => f0(row.ours.list));
line('  ÷ bare limit', (row) => ratio(row.ours.list, row.bare.list));
line('  ÷ SDK server', (row) => ratio(row.ours.list, row.sdk?.list));
line('bare limit: read / list per s', (row) => `${f0(row.bare.read)} / ${f0(row.bare.list)}`);
line('bare, same files: read per s', (row) => f0(row.bare.readFiles));
line('search p50 / p99 (ms, over HTTP)', (row) => `${f1(row.ours.searchP50)} / ${f1(row.ours.searchP99)}`);
line('search index complete after ready (ms)', (row) => f0(row.ours.searchReadyMs));
line('one changed file → served (ms)', (row) => f0(row.ours.changeServedMs));
line('one changed file → searchable (ms)', (row) => f0(row.ours.changeSearchableMs));
line('warm restart, probed at once: changed file → served (ms)', (row) => f0(row.ours.warmChangeServedMs));
line('warm restart, probed at once: changed file → searchable (ms)', (row) => f0(row.ours.warmChangeSearchableMs));
line('warm restart, probed at once: search p50 / p99 (ms)', (row) => `${f1(row.ours.warmSearchP50)} / ${f1(row.ours.warmSearchP99)}`);
line('one publish → accepted / served (ms)', (row) => `${f0(row.ours.publishAcceptedMs)} / ${f0(row.ours.publishServedMs)}`);
const table = `${lines.join('\n')}\n`;

writeFileSync(join(repo, 'docs/scale.svg'), svg(rows));
if (flags.flag('write-docs')) {
  const docs = join(repo, 'docs/benchmarks.md');
  const text = readFileSync(docs, 'utf8');
  const block = `<!-- scale:begin (written by bench/scale.mjs --write-docs) -->\n${table}\n![skillport at scale: ready, memory, throughput, search, changes](scale.svg)\n\nCommand: \`node bench/scale.mjs --sizes ${sizes.join(',')}${label ? ` --label "${label}"` : ''} --write-docs\`\n<!-- scale:end -->`;
  const next = /<!-- scale:begin[\s\S]*?<!-- scale:end -->/.test(text)
    ? text.replace(/<!-- scale:begin[\s\S]*?<!-- scale:end -->/, block)
    : `${text.trimEnd()}\n\n## Scale (issue 13)\n\n${block}\n`;
  writeFileSync(docs, next);
}
if (asJson) process.stdout.write(`${JSON.stringify({ commit, label, sizes, minutes, rows }, null, 2)}\n`);
else process.stdout.write(`\n${table}`);

// --- the curves, as a hand-written SVG (no plotting dependency): five panels over a log axis of catalog sizes ---
function svg(data) {
  const panels = [
    {
      title: 'ready (s)',
      series: [
        ['cold', (r) => r.ours.readyMs / 1000],
        ['warm', (r) => r.ours.warmReadyMs / 1000],
        ['SDK', (r) => (r.sdk ? r.sdk.readyMs / 1000 : undefined)],
      ],
    },
    {
      title: 'peak RSS (MB)',
      series: [
        ['skillport', (r) => r.ours.peakRssMb],
        ['SDK', (r) => r.sdk?.peakRssMb],
      ],
    },
    {
      title: 'resources/read per s',
      series: [
        ['skillport', (r) => r.ours.read],
        ['bare limit', (r) => r.bare.read],
        ['SDK', (r) => r.sdk?.read],
      ],
    },
    {
      title: 'skills/list pages per s',
      series: [
        ['skillport', (r) => r.ours.list],
        ['bare limit', (r) => r.bare.list],
        ['SDK', (r) => r.sdk?.list],
      ],
    },
    {
      title: 'search p50 / p99 (ms)',
      series: [
        ['p50', (r) => r.ours.searchP50],
        ['p99', (r) => r.ours.searchP99],
      ],
    },
    {
      title: 'change → served (ms)',
      series: [
        ['file served', (r) => r.ours.changeServedMs],
        ['file searchable', (r) => r.ours.changeSearchableMs],
        ['publish served', (r) => r.ours.publishServedMs],
      ],
    },
  ];
  const colours = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd'];
  const W = 300;
  const H = 200;
  const pad = { l: 52, r: 12, t: 28, b: 36 };
  const cols = 3;
  const width = W * cols;
  const height = H * Math.ceil(panels.length / cols) + 40;
  const esc = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const counts = data.map((r) => r.count);
  const lx = (n) => Math.log10(n);
  const [x0, x1] = counts.length > 1 ? [lx(Math.min(...counts)), lx(Math.max(...counts))] : [lx(counts[0]) - 1, lx(counts[0]) + 1];
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="8" y="18" font-size="13">${esc(heading)}</text>`,
  ];
  panels.forEach((panel, index) => {
    const ox = (index % cols) * W;
    const oy = 30 + Math.floor(index / cols) * H;
    const values = panel.series.flatMap(([, pick]) => data.map(pick)).filter((v) => v !== undefined && Number.isFinite(v));
    const top = values.length ? Math.max(...values) * 1.1 || 1 : 1;
    const px = (n) => ox + pad.l + ((lx(n) - x0) / (x1 - x0 || 1)) * (W - pad.l - pad.r);
    const py = (v) => oy + H - pad.b - (v / top) * (H - pad.t - pad.b);
    out.push(`<text x="${ox + pad.l}" y="${oy + 16}" font-weight="bold">${esc(panel.title)}</text>`);
    out.push(
      `<line x1="${ox + pad.l}" y1="${oy + H - pad.b}" x2="${ox + W - pad.r}" y2="${oy + H - pad.b}" stroke="#888"/><line x1="${ox + pad.l}" y1="${oy + pad.t}" x2="${ox + pad.l}" y2="${oy + H - pad.b}" stroke="#888"/>`,
    );
    for (const n of counts) out.push(`<text x="${px(n)}" y="${oy + H - pad.b + 14}" text-anchor="middle">${n >= 1000 ? `${n / 1000}k` : n}</text>`);
    for (const f of [0.5, 1]) out.push(`<text x="${ox + pad.l - 4}" y="${py((top * f) / 1.1) + 4}" text-anchor="end">${esc(f0((top * f) / 1.1))}</text>`);
    panel.series.forEach(([name, pick], s) => {
      const points = data.map((r) => [r.count, pick(r)]).filter(([, v]) => v !== undefined && Number.isFinite(v));
      if (points.length === 0) return;
      out.push(
        `<polyline fill="none" stroke="${colours[s]}" stroke-width="2" points="${points.map(([n, v]) => `${px(n).toFixed(1)},${py(v).toFixed(1)}`).join(' ')}"/>`,
      );
      for (const [n, v] of points) out.push(`<circle cx="${px(n).toFixed(1)}" cy="${py(v).toFixed(1)}" r="3" fill="${colours[s]}"/>`);
      out.push(`<text x="${ox + W - pad.r}" y="${oy + pad.t + 12 * s}" text-anchor="end" fill="${colours[s]}">${esc(name)}</text>`);
    });
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
