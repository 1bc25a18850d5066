#!/usr/bin/env node
// bench/search-seen: one index over the corpus, every SEEN query set scored with it (aggregates only), for tuning the
// ranking and the abstention without rebuilding the index per set: recall@1 / recall@5 and the share answered per
// positive set, the user-worded ones pooled (blind sets 1-3 whole and blind set 4's dev part), and the share of no-fit
// tasks with no result. Only parts someone tuning has already seen are read: blind set 4's holdout never is (score it
// once with bench/blind/score.mjs and bench/blind/no-fit.mjs), nor any set outside bench/.
// Usage: npm run build --silent && node bench/search-seen.mjs [--min-confidence X] [--corpus DIR] [--json]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SkillSearchIndex } from '../packages/search/dist/src/index.js';
import { measuredCommit, options } from './args.mjs';
import { loadCorpusDocs } from './corpus-docs.mjs';

const args = options();
if (args.flag('help')) {
  process.stdout.write('usage: node bench/search-seen.mjs [--min-confidence X] [--corpus DIR] [--json]\n');
  process.exit(0);
}
const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpus = resolve(args.value('corpus', join(repo, '../shared/corpus/skills')));
const load = (file, keep = () => true) => {
  const loaded = JSON.parse(readFileSync(join(repo, file), 'utf8'));
  return (Array.isArray(loaded) ? loaded : loaded.queries).filter(keep);
};
const dev = (query) => query.split === 'dev';
const positives = {
  'search-queries': load('bench/search-queries.json'),
  'search-queries-heldout': load('bench/search-queries-heldout.json'),
  'blind 1': [...load('bench/blind/queries-dev.json'), ...load('bench/blind/queries-holdout.json')],
  'blind 2': load('bench/blind2/queries.json'),
  'blind 3': load('bench/blind3/queries.json'),
  'blind 4 dev, user-worded': load('bench/blind4/queries.json', (query) => dev(query) && query.kind !== 'model'),
  'blind 4 dev, model': load('bench/blind4/queries.json', (query) => dev(query) && query.kind === 'model'),
};
const userWorded = ['blind 1', 'blind 2', 'blind 3', 'blind 4 dev, user-worded'];
const noFit = { 'blind 4 dev no-fit': load('bench/blind4/no-fit.json', dev), 'no-fit/seen': load('bench/no-fit/seen.json') };

const { docs } = loadCorpusDocs(corpus);
const nameOf = new Map(docs.map((doc) => [doc.id, doc.name]));
const right = (id, expected) => expected.includes(id) || expected.includes(nameOf.get(id));
const minConfidence = args.value('min-confidence');
const index = new SkillSearchIndex(docs, minConfidence === undefined ? {} : { minConfidence: Number(minConfidence) });

const result = { commit: measuredCommit(), minConfidence: minConfidence ?? 'default', positives: {}, noFit: {} };
const pooled = { queries: 0, top1: 0, top5: 0, answered: 0 };
for (const [name, queries] of Object.entries(positives)) {
  const counts = { queries: queries.length, top1: 0, top5: 0, answered: 0 };
  for (const { query, expected } of queries) {
    const hits = index.search(query, 10);
    const rank = hits.findIndex((hit) => right(hit.id, expected));
    if (hits.length > 0) counts.answered++;
    if (rank === 0) counts.top1++;
    if (rank >= 0 && rank < 5) counts.top5++;
  }
  if (userWorded.includes(name)) for (const key of Object.keys(pooled)) pooled[key] += counts[key];
  result.positives[name] = counts;
}
result.positives['user-worded, pooled'] = pooled;
for (const [name, queries] of Object.entries(noFit)) {
  result.noFit[name] = { queries: queries.length, none: queries.filter(({ query }) => index.search(query, 10).length === 0).length };
}

const percent = (part, whole) => `${((100 * part) / whole).toFixed(1)} %`;
if (args.flag('json')) console.log(JSON.stringify(result));
else {
  console.log(`commit ${result.commit}, min confidence ${result.minConfidence}`);
  console.log('| set | queries | recall@1 | recall@5 | answered |\n|---|---:|---:|---:|---:|');
  for (const [name, r] of Object.entries(result.positives))
    console.log(`| ${name} | ${r.queries} | ${percent(r.top1, r.queries)} | ${percent(r.top5, r.queries)} | ${percent(r.answered, r.queries)} |`);
  console.log('\n| no-fit set | tasks | with no result |\n|---|---:|---:|');
  for (const [name, r] of Object.entries(result.noFit)) console.log(`| ${name} | ${r.queries} | ${percent(r.none, r.queries)} |`);
}
