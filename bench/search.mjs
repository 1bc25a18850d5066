#!/usr/bin/env node
// bench/search: recall of SkillSearchIndex (packages/search/src/index/skill-index.ts) on the real corpus, against a baseline, in
// the same run, on every query set: bench/search-queries.json (written from the skills before the ranking existed),
// bench/search-queries-heldout.json (written blind to the ranking code; expected answers are ids) and
// bench/blind/queries-dev.json (written blind, few words shared with the skills; expected answers are names).
// Printed per set: recall@1, recall@5, MRR (of the first right answer in the top 10) and every query whose expected
// skill is not in the top 5, with what came back instead; then query latency and index build time (the corpus, and
// a 10,000-document catalog made of varied corpus copies), and search p50 at 10,000 documents.
// Baseline (bench/bm25f-baseline.mjs): a plain BM25F over name, description and the whole body with light stemming.
// bench/blind/queries-holdout.json is refused here: it is scored once, aggregate only, by bench/blind/score.mjs.
// Usage: npm run build --silent && node bench/search.mjs [--corpus DIR] [--queries FILE] [--json] [--baseline-misses]
//        [--quick] (no 10,000-document catalog) [--aggregates] (figures only: no query text, no misses, in text and
//        JSON; for someone tuning who must not read the sets)
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { SkillSearchIndex } from '../packages/search/dist/src/index.js';
import { options } from './args.mjs';
import { BM25FBaseline } from './bm25f-baseline.mjs';
import { loadCorpusDocs, scaledCatalog } from './corpus-docs.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const args = process.argv.slice(2);
const option = (name, fallback) => flags.value(name, fallback);
const corpus = resolve(option('corpus', join(repo, '../shared/corpus/skills')));
const asJson = args.includes('--json');
const quick = args.includes('--quick');
const aggregatesOnly = args.includes('--aggregates');
const setFiles =
  option('queries') !== undefined ? [option('queries')] : ['bench/search-queries.json', 'bench/search-queries-heldout.json', 'bench/blind/queries-dev.json'];
const sets = setFiles.map((file) => {
  if (basename(file).includes('holdout')) {
    process.stderr.write(`${file}: the held-out blind set is scored once at the end with bench/blind/score.mjs, not here\n`);
    process.exit(2);
  }
  return { file, queries: JSON.parse(readFileSync(resolve(repo, file), 'utf8')) };
});

// --- corpus -------------------------------------------------------------------------------------------------------

// --- measuring ----------------------------------------------------------------------------------------------------
// Median of `runs` builds, wall clock and CPU time of this process (on a busy machine the two differ).
function timeBuild(make, docs, runs) {
  const walls = [];
  const cpus = [];
  let index;
  for (let run = 0; run < runs; run++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    index = make(docs);
    walls.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
  }
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return { index, ms: median(walls), cpuMs: median(cpus) };
}

// `matches(hit, expected)`: ids for the older sets, names for the blind set (a name several folders share counts
// for each of them).
function evaluate(index, queries, matches) {
  for (const { query } of queries) index.search(query, 10); // warm-up (JIT), not measured
  let top1 = 0;
  let top5 = 0;
  let reciprocal = 0;
  const latencies = [];
  const misses = [];
  for (const { query, expected } of queries) {
    const started = performance.now();
    const hits = index.search(query, 10);
    latencies.push(performance.now() - started);
    const rank = hits.findIndex((hit) => matches(hit, expected));
    if (rank === 0) top1++;
    if (rank >= 0 && rank < 5) top5++;
    else misses.push({ query, expected, got: hits.slice(0, 5).map((hit) => `${hit.id} (${hit.score.toFixed(2)})`), rank: rank < 0 ? null : rank + 1 });
    if (rank >= 0) reciprocal += 1 / (rank + 1);
  }
  latencies.sort((a, b) => a - b);
  const n = queries.length;
  return {
    queries: n,
    recallAt1: top1 / n,
    recallAt5: top5 / n,
    mrr: reciprocal / n,
    meanLatencyMs: latencies.reduce((sum, ms) => sum + ms, 0) / n,
    p95LatencyMs: latencies[Math.min(n - 1, Math.floor(n * 0.95))],
    maxLatencyMs: latencies[n - 1],
    misses,
  };
}

// Mean and median latency over every query of every set, `runs` times.
function latency(index, runs) {
  const all = sets.flatMap(({ queries }) => queries.map(({ query }) => query));
  for (const query of all) index.search(query, 10);
  const times = [];
  for (let run = 0; run < runs; run++) {
    for (const query of all) {
      const started = performance.now();
      index.search(query, 10);
      times.push(performance.now() - started);
    }
  }
  times.sort((a, b) => a - b);
  return {
    meanMs: times.reduce((sum, ms) => sum + ms, 0) / times.length,
    p50Ms: times[Math.floor(times.length / 2)],
    p95Ms: times[Math.floor(times.length * 0.95)],
  };
}

// --- run ----------------------------------------------------------------------------------------------------------
const { docs, lenient } = loadCorpusDocs(corpus);
const ids = new Set(docs.map((doc) => doc.id));
const nameOf = new Map(docs.map((doc) => [doc.id, doc.name]));
const names = new Set(docs.map((doc) => doc.name));
for (const set of sets) {
  // A set whose answers are all ids is scored by id; otherwise by name (the blind set).
  set.byId = set.queries.every(({ expected }) => expected.every((id) => ids.has(id)));
  set.matches = set.byId ? (hit, expected) => expected.includes(hit.id) : (hit, expected) => expected.includes(nameOf.get(hit.id));
  const unknown = set.queries.flatMap(({ expected }) => expected.filter((answer) => !ids.has(answer) && !names.has(answer)));
  if (unknown.length > 0) {
    process.stderr.write(`${set.file} names skills that are not in the corpus: ${unknown.join(', ')}\n`);
    process.exit(1);
  }
}

const engine = timeBuild((list) => new SkillSearchIndex(list), docs, quick ? 1 : 5);
const baseline = timeBuild((list) => new BM25FBaseline(list), docs, quick ? 1 : 5);
for (const set of sets) {
  set.engine = evaluate(engine.index, set.queries, set.matches);
  set.baseline = evaluate(baseline.index, set.queries, set.matches);
}
const engineLatency = latency(engine.index, quick ? 1 : 5);
const baselineLatency = latency(baseline.index, quick ? 1 : 5);
let engineLarge;
let baselineLarge;
if (!quick) {
  const large = scaledCatalog(docs, 10_000);
  engineLarge = timeBuild((list) => new SkillSearchIndex(list), large, 3);
  engineLarge.latency = latency(engineLarge.index, 3);
  engineLarge.index = undefined;
  baselineLarge = timeBuild((list) => new BM25FBaseline(list), large, 3);
  baselineLarge.latency = latency(baselineLarge.index, 3);
  baselineLarge.index = undefined;
}

// A machine reference for the timings above: a million string-keyed Map insertions and lookups, the kind of work
// an index build is made of. Timings from machines with very different references do not compare.
function machineReference() {
  const started = performance.now();
  const map = new Map();
  for (let at = 0; at < 1_000_000; at++) map.set(`k${at}`, at);
  let sum = 0;
  for (let at = 0; at < 1_000_000; at++) sum += map.get(`k${at}`);
  return sum > 0 ? performance.now() - started : 0;
}
const referenceMs = machineReference();

const timing = (built, latencies, large) => ({
  buildMs: built.ms,
  buildCpuMs: built.cpuMs,
  latency: latencies,
  ...(large !== undefined ? { build10kMs: large.ms, build10kCpuMs: large.cpuMs, latency10k: large.latency } : {}),
});
const report = {
  corpus: { skills: docs.length, indexedFromRawFrontmatter: lenient },
  machineReferenceMs: referenceMs,
  sets: sets.map(({ file, queries, engine: ours, baseline: theirs }) => ({
    file,
    queries: queries.length,
    engine: aggregatesOnly ? { ...ours, misses: ours.misses.length } : ours,
    baseline: aggregatesOnly ? { ...theirs, misses: theirs.misses.length } : theirs,
  })),
  engine: timing(engine, engineLatency, engineLarge),
  baseline: timing(baseline, baselineLatency, baselineLarge),
};

if (asJson) {
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} else {
  const pct = (value) => `${(value * 100).toFixed(1)}%`;
  const ms = (value) => `${value < 10 ? value.toFixed(3) : value.toFixed(0)} ms`;
  const ratio = (a, b) => (b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a');
  const rows = [];
  for (const set of sets) {
    const label = `${set.file} (${set.queries.length})`;
    rows.push([`${label} recall@1`, pct(set.engine.recallAt1), pct(set.baseline.recallAt1), ratio(set.engine.recallAt1, set.baseline.recallAt1)]);
    rows.push([`${label} recall@5`, pct(set.engine.recallAt5), pct(set.baseline.recallAt5), ratio(set.engine.recallAt5, set.baseline.recallAt5)]);
    rows.push([`${label} MRR@10`, set.engine.mrr.toFixed(3), set.baseline.mrr.toFixed(3), ratio(set.engine.mrr, set.baseline.mrr)]);
  }
  rows.push([
    'query latency, mean / p50 / p95',
    `${ms(engineLatency.meanMs)} / ${ms(engineLatency.p50Ms)} / ${ms(engineLatency.p95Ms)}`,
    `${ms(baselineLatency.meanMs)} / ${ms(baselineLatency.p50Ms)} / ${ms(baselineLatency.p95Ms)}`,
    '',
  ]);
  rows.push([`index build (${docs.length} skills), wall / CPU`, `${ms(engine.ms)} / ${ms(engine.cpuMs)}`, `${ms(baseline.ms)} / ${ms(baseline.cpuMs)}`, '']);
  if (engineLarge !== undefined) {
    rows.push([
      'index build (10,000 docs), wall / CPU',
      `${ms(engineLarge.ms)} / ${ms(engineLarge.cpuMs)}`,
      `${ms(baselineLarge.ms)} / ${ms(baselineLarge.cpuMs)}`,
      '',
    ]);
    rows.push([
      'query latency (10,000 docs), mean / p50 / p95',
      `${ms(engineLarge.latency.meanMs)} / ${ms(engineLarge.latency.p50Ms)} / ${ms(engineLarge.latency.p95Ms)}`,
      `${ms(baselineLarge.latency.meanMs)} / ${ms(baselineLarge.latency.p50Ms)} / ${ms(baselineLarge.latency.p95Ms)}`,
      '',
    ]);
  }
  const widths = [0, 1, 2, 3].map((column) => Math.max(...[['', 'SkillSearchIndex', 'BM25F baseline', 'ratio'], ...rows].map((row) => row[column].length)));
  const line = (row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('   ');
  console.log(`corpus: ${docs.length} skills (${lenient.length} indexed from raw frontmatter: not servable as-is)`);
  console.log('');
  console.log(line(['', 'SkillSearchIndex', 'BM25F baseline', 'ratio']));
  for (const row of rows) console.log(line(row));
  console.log(`(machine reference: 1,000,000 string-keyed Map set + get took ${ms(referenceMs)})`);
  for (const set of aggregatesOnly ? [] : sets) {
    for (const [label, result] of [
      ['SkillSearchIndex', set.engine],
      ['baseline', set.baseline],
    ]) {
      if (label === 'baseline' && !args.includes('--baseline-misses')) continue;
      console.log('');
      console.log(`${set.file}, ${label}: ${result.misses.length} queries without an expected skill in the top 5`);
      for (const miss of result.misses) {
        console.log(`- "${miss.query}"  (expected rank: ${miss.rank ?? '> 10'})`);
        console.log(`    expected: ${miss.expected.join(', ')}`);
        console.log(`    got:      ${miss.got.length > 0 ? miss.got.join('\n              ') : '(nothing)'}`);
      }
    }
  }
  if (!aggregatesOnly && !args.includes('--baseline-misses')) console.log('\n(baseline misses: run with --baseline-misses)');
}
