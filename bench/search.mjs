#!/usr/bin/env node
// bench/search: recall of SkillSearchIndex (packages/core/src/search.ts) on the real corpus, against a plain
// baseline, in the same run. Every query of bench/search-queries.json (a task in a user's own words, written from
// the skills' SKILL.md before the ranking existed, with the skill or skills that should answer it) is run through
// both. Printed: recall@1, recall@5, MRR (of the first right answer in the top 10), query latency, index build
// time (the corpus, and a 10,000-document catalog made of varied corpus copies), and every query whose expected
// skill is not in the top 5, with what came back instead.
// Baseline: the number of distinct query words found in name + description (lowercase, split at non-letters and
// non-digits, about twenty function words dropped; no stemming, no field weights), ties by name then id.
// Usage: npm run build --silent && node bench/search.mjs [--corpus ../shared/corpus/skills] [--json] [--baseline-misses]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SkillSearchIndex, discoverSkills, inspectSkillFolder, markdownHeadings, parseSkillMarkdown } from '../packages/core/dist/src/index.js';
import { options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const args = process.argv.slice(2);
const option = (name, fallback) => flags.value(name, fallback);
const corpus = resolve(option('corpus', join(repo, '../shared/corpus/skills')));
const asJson = args.includes('--json');
// --queries FILE: another query set, e.g. bench/search-queries-heldout.json (written blind to the ranking code).
const queryFile = resolve(repo, option('queries', 'bench/search-queries.json'));
const queries = JSON.parse(readFileSync(queryFile, 'utf8'));

// --- corpus -------------------------------------------------------------------------------------------------------
function loadCorpus(root) {
  const docs = [];
  const lenient = [];
  for (const { dir, segments } of discoverSkills(root).skills) {
    const id = segments.join('/');
    let text;
    try {
      text = readFileSync(join(dir, 'SKILL.md'), 'utf8');
    } catch {
      continue;
    }
    let parsed;
    try {
      parsed = parseSkillMarkdown(text);
    } catch {
      continue; // no frontmatter at all: nothing to index
    }
    // The served name and description when the skill passes validation; otherwise the raw frontmatter, so that a
    // skill skillport would refuse (a too-long description, say) still counts in the benchmark's catalog.
    const inspected = inspectSkillFolder(dir).skill;
    if (inspected === undefined) lenient.push(id);
    const name = inspected?.name ?? String(parsed.frontmatter.name ?? segments.at(-1));
    const description = inspected?.description ?? String(parsed.frontmatter.description ?? '');
    docs.push({ id, name, description, headings: markdownHeadings(parsed.body), body: parsed.body });
  }
  return { docs, lenient };
}

// --- baseline -----------------------------------------------------------------------------------------------------
const FUNCTION_WORDS = new Set('a an the and or of to in on for with my me i we our is are it this that from'.split(' '));
const words = (text) => new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !FUNCTION_WORDS.has(word)));

class OverlapBaseline {
  constructor(docs) {
    this.docs = docs.map((doc) => ({ id: doc.id, name: doc.name, words: words(`${doc.name} ${doc.description}`) }));
  }
  search(query, limit = 10) {
    const wanted = [...words(query)];
    const hits = [];
    for (const doc of this.docs) {
      let score = 0;
      for (const word of wanted) if (doc.words.has(word)) score++;
      if (score > 0) hits.push({ id: doc.id, name: doc.name, score });
    }
    hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return hits.slice(0, limit).map(({ id, score }) => ({ id, score }));
  }
}

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

function evaluate(index) {
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
    const rank = hits.findIndex((hit) => expected.includes(hit.id));
    if (rank === 0) top1++;
    if (rank >= 0 && rank < 5) top5++;
    else misses.push({ query, expected, got: hits.slice(0, 5).map((hit) => `${hit.id} (${hit.score.toFixed(2)})`), rank: rank < 0 ? null : rank + 1 });
    if (rank >= 0) reciprocal += 1 / (rank + 1);
  }
  latencies.sort((a, b) => a - b);
  const n = queries.length;
  return {
    recallAt1: top1 / n,
    recallAt5: top5 / n,
    mrr: reciprocal / n,
    meanLatencyMs: latencies.reduce((sum, ms) => sum + ms, 0) / n,
    p95LatencyMs: latencies[Math.min(n - 1, Math.floor(n * 0.95))],
    maxLatencyMs: latencies[n - 1],
    misses,
  };
}

function meanLatency(index, runs) {
  for (const { query } of queries) index.search(query, 10);
  const started = performance.now();
  for (let run = 0; run < runs; run++) for (const { query } of queries) index.search(query, 10);
  return (performance.now() - started) / (runs * queries.length);
}

// A 10,000-document catalog made of corpus copies under distinct ids. Plain copies would share every word with the
// corpus (an index caches per-word work, so that would flatter it); instead, in each copy after the first, 3 in 10
// words of 4+ letters get a suffix of their own (`deploy` → `deploybc`), so the vocabulary grows as in a catalog of
// distinct skills (the corpus: ~10,000 terms; this catalog: ~55,000).
function scaledCatalog(docs, count) {
  let counter = 0;
  const vary = (text, copy) =>
    copy === 0 ? text : text.replace(/[A-Za-z]{4,}/g, (word) => ((counter++ * 2654435761) >>> 0) % 10 < 3 ? `${word}${String.fromCharCode(97 + (copy % 26), 97 + Math.floor(copy / 26))}` : word);
  const out = [];
  for (let copy = 0; out.length < count; copy++) {
    for (const doc of docs) {
      if (out.length >= count) break;
      out.push({ id: `copy${copy}/${doc.id}`, name: doc.name, description: vary(doc.description, copy), headings: doc.headings.map((heading) => vary(heading, copy)), body: vary(doc.body, copy) });
    }
  }
  return out;
}

// --- run ----------------------------------------------------------------------------------------------------------
const { docs, lenient } = loadCorpus(corpus);
const ids = new Set(docs.map((doc) => doc.id));
const unknown = queries.flatMap(({ expected }) => expected.filter((id) => !ids.has(id)));
if (unknown.length > 0) {
  process.stderr.write(`${queryFile} names skills that are not in the corpus: ${unknown.join(', ')}\n`);
  process.exit(1);
}

const engine = timeBuild((list) => new SkillSearchIndex(list), docs, 7);
const baseline = timeBuild((list) => new OverlapBaseline(list), docs, 7);
const engineResult = evaluate(engine.index);
const baselineResult = evaluate(baseline.index);
const large = scaledCatalog(docs, 10_000);
const engineLarge = timeBuild((list) => new SkillSearchIndex(list), large, 5);
const engineLargeLatency = meanLatency(engineLarge.index, 3);
const baselineLarge = timeBuild((list) => new OverlapBaseline(list), large, 5);
const baselineLargeLatency = meanLatency(baselineLarge.index, 3);

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

const repos = new Set(queries.flatMap(({ expected }) => expected.map((id) => id.split('/')[0])));
const report = {
  corpus: { skills: docs.length, indexedFromRawFrontmatter: lenient, queries: queries.length, repositoriesCovered: repos.size },
  machineReferenceMs: referenceMs,
  engine: { ...engineResult, buildMs: engine.ms, buildCpuMs: engine.cpuMs, build10kMs: engineLarge.ms, build10kCpuMs: engineLarge.cpuMs, meanLatency10kMs: engineLargeLatency },
  baseline: { ...baselineResult, buildMs: baseline.ms, buildCpuMs: baseline.cpuMs, build10kMs: baselineLarge.ms, build10kCpuMs: baselineLarge.cpuMs, meanLatency10kMs: baselineLargeLatency },
};

if (asJson) {
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} else {
  const pct = (value) => `${(value * 100).toFixed(1)}%`;
  const ms = (value) => `${value < 10 ? value.toFixed(3) : value.toFixed(0)} ms`;
  const ratio = (a, b) => (b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a');
  const rows = [
    ['recall@1', pct(engineResult.recallAt1), pct(baselineResult.recallAt1), ratio(engineResult.recallAt1, baselineResult.recallAt1)],
    ['recall@5', pct(engineResult.recallAt5), pct(baselineResult.recallAt5), ratio(engineResult.recallAt5, baselineResult.recallAt5)],
    ['MRR@10', engineResult.mrr.toFixed(3), baselineResult.mrr.toFixed(3), ratio(engineResult.mrr, baselineResult.mrr)],
    ['mean query latency', ms(engineResult.meanLatencyMs), ms(baselineResult.meanLatencyMs), ''],
    ['p95 / max query latency', `${ms(engineResult.p95LatencyMs)} / ${ms(engineResult.maxLatencyMs)}`, `${ms(baselineResult.p95LatencyMs)} / ${ms(baselineResult.maxLatencyMs)}`, ''],
    [`index build (${docs.length} skills), wall / CPU`, `${ms(engine.ms)} / ${ms(engine.cpuMs)}`, `${ms(baseline.ms)} / ${ms(baseline.cpuMs)}`, ''],
    ['index build (10,000 docs), wall / CPU', `${ms(engineLarge.ms)} / ${ms(engineLarge.cpuMs)}`, `${ms(baselineLarge.ms)} / ${ms(baselineLarge.cpuMs)}`, ''],
    ['mean query latency (10,000 docs)', ms(engineLargeLatency), ms(baselineLargeLatency), ''],
  ];
  const widths = [0, 1, 2, 3].map((column) => Math.max(...[['', 'SkillSearchIndex', 'baseline', 'ratio'], ...rows].map((row) => row[column].length)));
  const line = (row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('   ');
  console.log(`corpus: ${docs.length} skills (${lenient.length} indexed from raw frontmatter: not servable as-is), ${queries.length} queries over ${repos.size} repositories`);
  console.log('');
  console.log(line(['', 'SkillSearchIndex', 'baseline', 'ratio']));
  for (const row of rows) console.log(line(row));
  console.log(`(machine reference: 1,000,000 string-keyed Map set + get took ${ms(referenceMs)})`);
  for (const [label, result] of [['SkillSearchIndex', engineResult], ['baseline', baselineResult]]) {
    console.log('');
    console.log(`${label}: ${result.misses.length} queries without an expected skill in the top 5`);
    for (const miss of result.misses) {
      console.log(`- "${miss.query}"  (expected rank: ${miss.rank ?? '> 10'})`);
      console.log(`    expected: ${miss.expected.join(', ')}`);
      console.log(`    got:      ${miss.got.length > 0 ? miss.got.join('\n              ') : '(nothing)'}`);
    }
    if (label === 'SkillSearchIndex' && !args.includes('--baseline-misses')) {
      console.log('');
      console.log('(baseline misses: run with --baseline-misses)');
      break;
    }
  }
}
