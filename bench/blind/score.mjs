#!/usr/bin/env node
// bench/blind/score: the aggregate score of the built search index (packages/core, SkillSearchIndex) on a blind query
// set whose answers are skill NAMES (bench/blind/queries-*.json). Prints recall@1, recall@5 and MRR only: no query
// text, no misses, so that scoring the held-out set teaches nobody anything about it. Use it on
// queries-holdout.json once before the ranking changes and once at the end; tune on queries-dev.json with
// bench/search.mjs (which lists misses).
// Also reads blind set 2 (bench/blind2/queries.json: an object with a `queries` list, each with a `split`; answers are
// names, or folder paths relative to the corpus where a name is not unique): `--split dev|holdout` picks one part.
// `--baseline` adds the plain BM25F baseline's score on the same queries (bench/bm25f-baseline.mjs). `--by-kind` adds
// the aggregates per kind (paraphrase, indirect, terse, near-duplicate). `--misses` lists every query not in the top 5
// with its expected skills and the top 3 returned: only for a part already scored (it teaches whoever reads it the set),
// e.g. in the same run as a holdout's one scoring, so that its misses can go into docs/benchmarks.md.
// A file with dev and holdout parts (blind sets 2-4) needs --split. `--min-confidence X` sets the index's abstention
// threshold (SearchOptions.minConfidence); `answered` is the share of queries with any result.
// Usage: npm run build --silent && node bench/blind/score.mjs bench/blind/queries-holdout.json [--split holdout] [--corpus DIR] [--baseline] [--min-confidence X] [--json]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SkillSearchIndex } from '../../packages/search/dist/src/index.js';
import { loadCorpusDocs } from '../corpus-docs.mjs';

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const switches = new Set(['--json', '--baseline', '--by-kind', '--misses']);
const file = args.find((arg, at) => !arg.startsWith('--') && !(at > 0 && args[at - 1].startsWith('--') && !switches.has(args[at - 1])));
if (file === undefined) {
  process.stderr.write('usage: node bench/blind/score.mjs QUERIES.json [--corpus DIR] [--json]\n');
  process.exit(2);
}
const corpus = resolve(flag('corpus') ?? join(repo, '../shared/corpus/skills'));
const loaded = JSON.parse(readFileSync(resolve(file), 'utf8'));
const split = flag('split');
const all = Array.isArray(loaded) ? loaded : loaded.queries;
// A set with a holdout is scored one part at a time: never the holdout by accident.
if (split === undefined && all.some((query) => query.split !== undefined)) {
  process.stderr.write(`${file} has dev and holdout parts: pass --split dev (or --split holdout, once, at the end)\n`);
  process.exit(2);
}
const queries = all.filter((query) => split === undefined || query.split === split);

// The catalog as served: name and description of every skill that passes validation (the raw frontmatter for one
// that does not), its headings and its body; the same documents bench/search.mjs indexes.
const { docs } = loadCorpusDocs(corpus);
const nameOf = new Map(docs.map((doc) => [doc.id, doc.name]));
// An answer is right when its folder path or its name is expected (a folder path names one of several same-named skills).
const right = (id, expected) => expected.includes(id) || expected.includes(nameOf.get(id));

function score(search, among = queries, misses) {
  let top1 = 0;
  let top5 = 0;
  let reciprocal = 0;
  let answered = 0;
  for (const { id, query, expected, kind } of among) {
    const hits = search(query);
    const rank = hits.findIndex((hit) => right(hit.id, expected));
    if (hits.length > 0) answered++;
    if (rank === 0) top1++;
    if (rank >= 0 && rank < 5) top5++;
    if (rank >= 0) reciprocal += 1 / (rank + 1);
    if (misses !== undefined && (rank < 0 || rank >= 5)) {
      misses.push({ id, kind, query, expected, rank: rank < 0 ? null : rank + 1, top3: hits.slice(0, 3).map((hit) => nameOf.get(hit.id) ?? hit.id) });
    }
  }
  const n = among.length;
  return { queries: n, recallAt1: top1 / n, recallAt5: top5 / n, mrr: reciprocal / n, answered: answered / n };
}

const minConfidence = flag('min-confidence');
const index = new SkillSearchIndex(docs, minConfidence === undefined ? {} : { minConfidence: Number(minConfidence) });
const misses = args.includes('--misses') ? [] : undefined;
const result = score((query) => index.search(query, 10), queries, misses);
if (args.includes('--by-kind')) {
  result.kinds = {};
  for (const kind of [...new Set(queries.map((query) => query.kind ?? 'all'))].sort()) {
    result.kinds[kind] = score(
      (query) => index.search(query, 10),
      queries.filter((query) => (query.kind ?? 'all') === kind),
    );
  }
}
if (misses !== undefined) result.misses = misses;
if (args.includes('--baseline')) {
  const { BM25FBaseline } = await import('../bm25f-baseline.mjs');
  const baseline = new BM25FBaseline(docs);
  result.baseline = score((query) => baseline.search(query, 10));
}
const line = (label, r) =>
  `${label}: ${r.queries} queries, recall@1 ${(100 * r.recallAt1).toFixed(1)} %, recall@5 ${(100 * r.recallAt5).toFixed(1)} %, MRR ${r.mrr.toFixed(3)}${r.answered === undefined ? '' : `, answered ${(100 * r.answered).toFixed(1)} %`}`;
if (args.includes('--json')) console.log(JSON.stringify(result));
else {
  console.log(line(`${file}${split ? ` (${split})` : ''}`, result));
  if (result.baseline) console.log(line('  BM25F baseline', result.baseline));
  for (const [kind, r] of Object.entries(result.kinds ?? {})) console.log(line(`  ${kind}`, r));
  for (const miss of result.misses ?? []) {
    console.log(
      `  miss ${miss.id} [${miss.kind}] rank ${miss.rank ?? '-'}: "${miss.query}"\n    expected ${miss.expected.join(', ')}; top 3 ${miss.top3.join(', ')}`,
    );
  }
}
