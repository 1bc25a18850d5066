#!/usr/bin/env node
// bench/search-scale: query time in process on a complete index of COUNT skills, with max-score pruning (the default)
// against scoring every posting (`pruning: false`), the two alternating query by query in one process, and a check
// that both give the same hits (ids, scores, reasons) for every query. Documents are corpus copies, each copy with a
// word of its own (as bench/search-build.mjs and bench/generate-catalog.mjs make them; --vary: 3 in 10 words suffixed
// per copy, a vocabulary that grows with the catalog). Queries: bench/search-queries.json and
// bench/search-queries-heldout.json (seen sets), --rounds times. --cache FILE keeps the built index (saveIndex) so a
// second run loads it in seconds instead of building for a minute.
// Usage: npm run build --silent && node bench/search-scale.mjs [--count 100000] [--vary] [--rounds 3] [--limit 10] [--cache /tmp/index.bin] [--json]
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SkillSearchIndex, loadIndex, saveIndex } from '../packages/search/dist/src/index.js';
import { measuredCommit, options } from './args.mjs';
import { loadCorpusDocs, scaledCatalog } from './corpus-docs.mjs';

const flags = options();
const count = Number(flags.value('count', '100000'));
const rounds = Number(flags.value('rounds', '3'));
const limit = Number(flags.value('limit', '10'));
const cache = flags.value('cache', undefined);
const repo = resolve(import.meta.dirname, '..');
const log = (line) => process.stderr.write(`${line}\n`);

let index;
// Restoring a saved index (what a warm restart does), as a ratio of reading its bytes alone (the least any restore
// of them costs).
let restore;
if (cache !== undefined && existsSync(cache)) {
  try {
    // loadIndex as the server calls it; then the bare read of the same bytes (page cache warm for both) as the baseline.
    const started = performance.now();
    index = (await loadIndex(cache)).index;
    const load = performance.now() - started;
    const again = performance.now();
    const bytes = (await readFile(cache)).length;
    const read = performance.now() - again;
    restore = { bytes, loadMs: load, readMs: read };
    log(`loaded ${index.size} skills from ${cache} in ${load.toFixed(0)} ms (reading the file alone: ${read.toFixed(0)} ms)`);
  } catch (error) {
    log(`${cache}: ${error.message}; building`);
  }
}
if (index === undefined || index.size !== count) {
  const { docs } = loadCorpusDocs(resolve(flags.value('corpus', join(repo, '../shared/corpus/skills'))));
  const started = performance.now();
  const copies = flags.flag('vary')
    ? scaledCatalog(docs, count)
    : Array.from({ length: count }, (_, at) => {
        const copy = Math.floor(at / docs.length);
        const doc = docs[at % docs.length];
        const mark = (text) => (copy === 0 ? text : `${text} copy${copy}`);
        return { id: `copy${copy}/${doc.id}`, name: doc.name, description: mark(doc.description), headings: doc.headings.map(mark), body: mark(doc.body) };
      });
  index = new SkillSearchIndex(copies);
  log(`built ${index.size} skills in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (cache !== undefined) await saveIndex(cache, index, () => '');
}
const exhaustive = SkillSearchIndex.fromState(index.exportState(), { pruning: false });
const texts = ['bench/search-queries.json', 'bench/search-queries-heldout.json'].flatMap((file) =>
  JSON.parse(readFileSync(join(repo, file), 'utf8')).map((query) => query.query),
);
for (const text of texts.slice(0, 30)) {
  index.search(text, limit); // warm-up: word analyses, related words, the vectors' first read
  exhaustive.search(text, limit);
}
const times = { pruned: [], exhaustive: [] };
const workBefore = { pruned: { ...index.work }, exhaustive: { ...exhaustive.work } };
let differ = 0;
for (let round = 0; round < rounds; round++) {
  for (const text of texts) {
    const order = round % 2 === 0 ? ['pruned', 'exhaustive'] : ['exhaustive', 'pruned'];
    const hits = {};
    for (const kind of order) {
      const at = performance.now();
      hits[kind] = (kind === 'pruned' ? index : exhaustive).search(text, limit);
      times[kind].push(performance.now() - at);
    }
    if (round === 0 && JSON.stringify(hits.pruned) !== JSON.stringify(hits.exhaustive)) differ++;
  }
}
const searches = rounds * texts.length;
const workOf = (kind) =>
  Object.fromEntries(
    Object.entries((kind === 'pruned' ? index : exhaustive).work).map(([key, value]) => [key, Math.round((value - workBefore[kind][key]) / searches)]),
  );
const work = { pruned: workOf('pruned'), exhaustive: workOf('exhaustive') };
const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: values.reduce((sum, value) => sum + value, 0) / values.length };
};
const result = {
  commit: measuredCommit(),
  count: index.size,
  queries: texts.length,
  rounds,
  limit,
  differ,
  pruned: stats(times.pruned),
  exhaustive: stats(times.exhaustive),
  pruning: index.prunedSearches,
  work,
  restore,
};
if (flags.flag('json')) console.log(JSON.stringify(result, null, 2));
else {
  console.log(
    `### search in process at ${result.count.toLocaleString('en')} skills, ${texts.length} queries × ${rounds} rounds, limit ${limit}; commit ${result.commit}\n`,
  );
  console.log(
    '| scoring | p50 ms | p95 ms | p99 ms | mean ms | postings walked / query | counts looked up / query | documents scored / query |\n|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const kind of ['pruned', 'exhaustive']) {
    const s = result[kind];
    const w = work[kind];
    console.log(
      `| ${kind === 'pruned' ? 'max-score pruning' : 'every posting (baseline)'} | ${s.p50.toFixed(2)} | ${s.p95.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.mean.toFixed(2)} | ${w.postings} | ${w.lookups} | ${w.scored} |`,
    );
  }
  if (restore !== undefined)
    console.log(
      `\nrestore of the saved index (${(restore.bytes / 1e6).toFixed(0)} MB, loadIndex): ${restore.loadMs.toFixed(0)} ms, ${(restore.loadMs / restore.readMs).toFixed(1)}× reading the file alone (${restore.readMs.toFixed(0)} ms)`,
    );
  const ratio = (key) => (result.pruned[key] / result.exhaustive[key]).toFixed(2);
  console.log(
    `\npruned ÷ baseline: p50 ${ratio('p50')}, p99 ${ratio('p99')}, mean ${ratio('mean')}; queries whose hits differ: ${differ}; searches pruned early: ${result.pruning}`,
  );
}
