#!/usr/bin/env node
// bench/search-incremental: the server's search index (packages/server/src/search/catalog-search.ts) on generated catalogs.
// Per size, in a fresh process each: the first index built in the background (wall and CPU time, RSS, the longest
// event-loop stall while it builds), query latency (p50/p99 over the query sets of bench/search.mjs), the time from
// one SKILL.md edited on disk to the edit being searchable (watcher + rescan + index update), the index update
// alone (one skill replaced), and, as the baseline in the same process, one full rebuild (every body read and
// analysed again: what every change cost before the index was incremental).
// Usage: node bench/search-incremental.mjs [--sizes 1000,10000] [--rounds 5] [--json]
// Catalogs are generated under bench/.data (bench/generate-catalog.mjs) and edited in place (restored after).
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const asJson = process.argv.includes('--json');

if (process.env.SEARCH_BENCH_CHILD) {
  await child(process.env.SEARCH_BENCH_CHILD, Number(flags.value('rounds', '5')));
} else {
  const sizes = String(flags.value('sizes', '1000,10000')).split(',').map(Number);
  const rows = [];
  for (const size of sizes) {
    const dir = execFileSync(process.execPath, [join(repo, 'bench/generate-catalog.mjs'), '--count', String(size)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    process.stderr.write(`\n${size} skills: measuring (a fresh process)\n`);
    const run = spawnSync(process.execPath, ['--expose-gc', import.meta.filename, ...process.argv.slice(2)], {
      env: { ...process.env, SEARCH_BENCH_CHILD: dir },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (run.status !== 0) throw new Error(`the measuring process failed (${run.status})`);
    rows.push({ size, ...JSON.parse(run.stdout) });
  }
  if (asJson) console.log(JSON.stringify(rows, null, 2));
  else print(rows);
}

function print(rows) {
  const mb = (bytes) => `${(bytes / 1048576).toFixed(0)} MB`;
  const ms = (value) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
  const lines = [
    ['skills', ...rows.map((row) => String(row.skills))],
    ['first index, built in background: wall', ...rows.map((row) => ms(row.build.wallMs))],
    ['  CPU', ...rows.map((row) => ms(row.build.cpuMs))],
    ['  longest event-loop stall meanwhile', ...rows.map((row) => ms(row.build.maxStallMs))],
    ['RSS before the index / after', ...rows.map((row) => `${mb(row.rss.before)} / ${mb(row.rss.after)}`)],
    ['heap used after the index (after GC)', ...rows.map((row) => mb(row.rss.heapAfter))],
    ['the index alone (heap + array buffers it added)', ...rows.map((row) => mb(row.rss.indexBytes))],
    ['query p50 / p99', ...rows.map((row) => `${ms(row.query.p50)} / ${ms(row.query.p99)}`)],
    ['one SKILL.md edited → searchable (median)', ...rows.map((row) => ms(row.change.fileToSearchableMs))],
    ['  index update alone (one skill replaced)', ...rows.map((row) => ms(row.change.updateMs))],
    ['full rebuild, every body read again (baseline)', ...rows.map((row) => ms(row.rebuild.wallMs))],
    ['  RSS growth of the full rebuild', ...rows.map((row) => mb(row.rebuild.rssGrowth))],
    ['ratio full rebuild / incremental update', ...rows.map((row) => `${(row.rebuild.wallMs / row.change.updateMs).toFixed(0)}x`)],
  ];
  const width = Math.max(...lines.map((line) => line[0].length));
  const columns = rows.map((_, at) => Math.max(...lines.map((line) => line[at + 1].length)));
  for (const line of lines)
    console.log(
      `${line[0].padEnd(width)}  ${line
        .slice(1)
        .map((cell, at) => cell.padStart(columns[at]))
        .join('  ')}`,
    );
  console.log(`\nnode ${process.version}; figures from one process per size; machine load not controlled (label runs under load).`);
}

async function child(dir, rounds) {
  const { SkillportServer, catalogSearch } = await import(join(repo, 'packages/server/dist/src/index.js'));
  const { decodeText, splitFrontmatter } = await import(join(repo, 'packages/core/dist/src/index.js'));
  const { SkillSearchIndex } = await import(join(repo, 'packages/search/dist/src/index.js'));
  const server = await SkillportServer.open({ dirs: [dir], cacheDir: false });
  server.watch();
  const search = catalogSearch(server.service);
  global.gc?.();
  const { rss: rssBefore, heapUsed: heapBefore, arrayBuffers: buffersBefore } = process.memoryUsage();
  // The server started building in the background (setImmediate at open): time it to completion.
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const cpu = process.cpuUsage();
  const started = performance.now();
  while (!search.ready) await new Promise((done) => setTimeout(done, 5));
  const say = (text) => process.stderr.write(`  ${text}\n`);
  const build = { wallMs: performance.now() - started, cpuMs: cpuOf(process.cpuUsage(cpu)), maxStallMs: delay.max / 1e6 };
  delay.disable();
  global.gc?.();
  const memory = process.memoryUsage();
  // The index alone: the heap and array buffers it added (the build starts after 250 ms of quiet, so the figures
  // before it are taken with nothing indexed).
  const rss = {
    before: rssBefore,
    after: memory.rss,
    heapAfter: memory.heapUsed,
    indexBytes: memory.heapUsed - heapBefore + memory.arrayBuffers - buffersBefore,
  };
  say(`first index: ${build.wallMs.toFixed(0)} ms`);

  const queries = [];
  for (const file of ['bench/search-queries.json', 'bench/search-queries-heldout.json', 'bench/blind/queries-dev.json']) {
    for (const entry of JSON.parse(readFileSync(join(repo, file), 'utf8'))) queries.push(entry.query);
  }
  const snapshot = server.catalog.snapshot;
  for (const query of queries.slice(0, 20)) await search.search(snapshot, query, 10); // warm-up
  const times = [];
  for (let round = 0; round < Math.max(1, Math.min(rounds, 3)); round++) {
    for (const query of queries) {
      const at = performance.now();
      await search.search(snapshot, query, 10);
      times.push(performance.now() - at);
    }
  }
  times.sort((a, b) => a - b);
  say(`${times.length} queries`);
  const query = { p50: times[Math.floor(times.length / 2)], p99: times[Math.floor(times.length * 0.99)], count: times.length };

  // One SKILL.md edited on disk: from the write to a search finding its new word.
  const skills = snapshot.skills;
  const fileTimes = [];
  for (let round = 0; round < rounds; round++) {
    const skill = skills[Math.floor(((round + 1) * skills.length) / (rounds + 1))];
    const path = join(dir, skill.uri.slice('skill://'.length));
    const original = readFileSync(path, 'utf8');
    // Letters only: a word with digits would also be searched by its parts (`3`), found in many skills.
    const word = `zqxmarker${'abcdefghij'[round % 10]}${Date.now()
      .toString(36)
      .replace(/[0-9]/g, (digit) => 'klmnopqrst'[digit])}`;
    const at = performance.now();
    writeFileSync(path, `${original}\n${word}\n`); // a new word at the end of the body
    try {
      for (;;) {
        const answer = await search.search(server.catalog.snapshot, word, 3);
        if (answer.hits.some((hit) => hit.id === skill.uri)) break;
        await new Promise((done) => setTimeout(done, 1));
        if (performance.now() - at > 30_000) throw new Error(`${skill.uri}: the edit was not searchable within 30 s`);
      }
      fileTimes.push(performance.now() - at);
      say(`edit ${round + 1}: searchable after ${fileTimes.at(-1).toFixed(1)} ms`);
    } finally {
      writeFileSync(path, original);
    }
    while ((await search.search(server.catalog.snapshot, word, 3)).hits.some((hit) => hit.id === skill.uri)) await new Promise((done) => setTimeout(done, 2));
  }
  fileTimes.sort((a, b) => a - b);

  // The index update alone: one skill replaced in the index (its body analysed), median of `rounds`.
  const index = search.index;
  const sample = skills[Math.floor(skills.length / 2)];
  const body = await bodyOf(server, sample, decodeText, splitFrontmatter);
  const updates = [];
  for (let round = 0; round < rounds; round++) {
    const at = performance.now();
    index.add({ id: sample.uri, name: sample.name, description: `${sample.description} r${round}`, headings: sample.headings, body });
    index.search('r0', 1); // a query after the change pays whatever the change left to do
    updates.push(performance.now() - at);
  }
  updates.sort((a, b) => a - b);
  const change = {
    fileToSearchableMs: fileTimes[Math.floor(fileTimes.length / 2)],
    fileToSearchableAll: fileTimes,
    updateMs: updates[Math.floor(updates.length / 2)],
  };

  // Baseline: a full rebuild, every body read and analysed again.
  global.gc?.();
  const rssStart = process.memoryUsage().rss;
  const rebuildStart = performance.now();
  const docs = [];
  for (const skill of server.catalog.snapshot.skills)
    docs.push({
      id: skill.uri,
      name: skill.name,
      description: skill.description,
      headings: skill.headings,
      body: await bodyOf(server, skill, decodeText, splitFrontmatter),
    });
  const rebuilt = new SkillSearchIndex(docs);
  const rebuild = { wallMs: performance.now() - rebuildStart, rssGrowth: process.memoryUsage().rss - rssStart, size: rebuilt.size };
  await server.close();
  process.stdout.write(JSON.stringify({ skills: snapshot.size, build, rss, query, change, rebuild }));
  process.exit(0);
}

async function bodyOf(server, skill, decodeText, splitFrontmatter) {
  const manifest = skill.files.find((file) => file.uri === skill.uri);
  const text = decodeText(await server.service.options.content.read(manifest, skill.origin, false));
  return text === undefined ? '' : splitFrontmatter(text, Number.MAX_SAFE_INTEGER).body;
}

function cpuOf(used) {
  return (used.user + used.system) / 1000;
}
