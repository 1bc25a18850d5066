#!/usr/bin/env node
// bench/start-search: how soon a freshly spawned stdio server answers a search from its complete index (ADR 0201),
// against how soon it answers skills/list. The client pipelines initialize, initialized, skills/list (id 2) and
// tools/call list_skills {query} (id 3) at once, as a host that searches right after the handshake does; an answer
// that says the index is incomplete (`indexing`) is asked again every 50 ms, and "first complete search" is the
// spawn → first complete answer. Cold: a fresh cache folder each run (no digest cache, persisted catalog or search
// index); warm: one cache folder, filled by an unmeasured start that stays up until its search index is saved.
// Cold and warm runs alternate; medians. Catalogs: the corpus, and any folder given with --dir (bench/generate-catalog.mjs
// makes one).
// Usage: npm run build --silent && node bench/start-search.mjs [--runs 5] [--dir bench/.data/catalog-10000] [--query "…"] [--json]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measuredCommit, options } from './args.mjs';

const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
const flags = options();
const runs = Number(flags.value('runs', '5'));
const query = flags.value('query', 'fill in the fields of a pdf form');
const extra = flags.value('dir', undefined);
const asJson = flags.flag('json');
const cli = join(repo, 'packages/cli/bin/skillport.js');
const log = (line) => process.stderr.write(`${line}\n`);
const corpus = resolve(flags.value('corpus', join(repo, '../shared/corpus/skills')));
const catalogs = [...(existsSync(corpus) ? [['corpus', corpus]] : []), ...(extra ? [[extra, resolve(extra)]] : [])];
if (catalogs.length === 0) {
  log(`no corpus at ${corpus} and no --dir: nothing to measure`);
  process.exit(2);
}

/** One spawn: ms to the skills/list answer, to the first search answer, to the first complete one. */
function run(dir, cacheDir, { keepUntilSaved = false } = {}) {
  const started = performance.now();
  const proc = spawn(process.execPath, [cli, 'serve', '--cache-dir', cacheDir, dir], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  const send = (message) => proc.stdin.write(`${JSON.stringify(message)}\n`);
  const search = (id) => send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_skills', arguments: { query } } });
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-start-search', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'skills/list', params: {} });
  search(3);
  return new Promise((resolveRun, reject) => {
    const result = { listMs: NaN, firstSearchMs: NaN, firstComplete: false, completeMs: NaN, searched: 0, total: 0 };
    let out = '';
    let err = '';
    let next = 4;
    proc.stderr.on('data', (chunk) => (err += chunk));
    proc.on('exit', (code) => reject(new Error(`exited with ${code} before a complete search: ${err.slice(-500)}`)));
    const finish = async () => {
      proc.removeAllListeners('exit');
      if (keepUntilSaved) {
        for (let waited = 0; waited < 120_000 && !readdirSync(cacheDir).some((name) => /^search-.*\.bin$/.test(name)); waited += 100)
          await new Promise((r) => setTimeout(r, 100));
        proc.kill('SIGTERM');
      } else proc.kill('SIGKILL');
      resolveRun(result);
    };
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const lines = out.split('\n');
      out = lines.pop();
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const message = JSON.parse(line);
        const ms = performance.now() - started;
        if (message.error) return reject(new Error(`request ${message.id} failed: ${message.error.message}`));
        if (message.id === 2) result.listMs = ms;
        if (typeof message.id !== 'number' || message.id < 3) continue;
        const indexing = message.result?.structuredContent?.indexing;
        if (message.id === 3) {
          result.firstSearchMs = ms;
          result.firstComplete = indexing === undefined;
          if (indexing) [result.searched, result.total] = [indexing.searched, indexing.total];
        }
        if (indexing === undefined) {
          result.completeMs = ms;
          void finish();
          return;
        }
        setTimeout(() => search(next++), 50);
      }
    });
  });
}

const median = (values) => {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)];
};

const commit = measuredCommit();
const report = [];
for (const [label, dir] of catalogs) {
  const warmCache = mkdtempSync(join(tmpdir(), 'skillport-bench-search-warm-'));
  log(`${label}: warming up (until the search index is saved)...`);
  await run(dir, warmCache, { keepUntilSaved: true });
  const results = { cold: [], warm: [] };
  for (let at = 0; at < runs; at++) {
    for (const kind of at % 2 === 0 ? ['cold', 'warm'] : ['warm', 'cold']) {
      const cache = kind === 'warm' ? warmCache : mkdtempSync(join(tmpdir(), 'skillport-bench-search-cold-'));
      results[kind].push(await run(dir, cache));
      if (kind === 'cold') rmSync(cache, { recursive: true, force: true });
    }
    log(
      `  run ${at + 1}/${runs}: ${['cold', 'warm']
        .map((kind) => {
          const r = results[kind].at(-1);
          return `${kind} list ${r.listMs.toFixed(0)} ms, first search ${r.firstSearchMs.toFixed(0)} ms (${r.firstComplete ? 'complete' : `${r.searched}/${r.total}`}), complete ${r.completeMs.toFixed(0)} ms`;
        })
        .join('; ')}`,
    );
  }
  rmSync(warmCache, { recursive: true, force: true });
  for (const kind of ['cold', 'warm']) {
    const rows = results[kind];
    report.push({
      catalog: label,
      start: kind,
      runs,
      commit,
      listMs: median(rows.map((r) => r.listMs)),
      firstSearchMs: median(rows.map((r) => r.firstSearchMs)),
      firstComplete: rows.filter((r) => r.firstComplete).length,
      completeMs: median(rows.map((r) => r.completeMs)),
    });
  }
}

if (asJson) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  process.stdout.write(`\n### spawn → first skills/list vs first complete list_skills {query} over stdio; medians of ${runs} runs; commit ${commit}\n\n`);
  process.stdout.write(
    '| catalog | start | skills/list, ms | first search, ms | first search complete | first complete search, ms | ratio to skills/list |\n|---|---|---:|---:|---:|---:|---:|\n',
  );
  for (const row of report)
    process.stdout.write(
      `| ${row.catalog} | ${row.start} | ${row.listMs.toFixed(0)} | ${row.firstSearchMs.toFixed(0)} | ${row.firstComplete}/${row.runs} | ${row.completeMs.toFixed(0)} | ${(row.completeMs / row.listMs).toFixed(2)} |\n`,
    );
}
