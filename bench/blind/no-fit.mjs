#!/usr/bin/env node
// bench/blind/no-fit: abstention (ADR 0202). For tasks no skill serves (blind set 4's no-fit.json, or any file of
// queries given with --no-fit), the share that get no result; for tasks that have a skill (--positives, default blind
// set 4's queries.json), the share that still get results, with recall@1/@5 among them. Only aggregates are printed,
// never a query: the parts are filtered by --split before anything is read, and a file with dev and holdout parts is
// refused without it. --sweep "0.3,0.4,0.5" prints both rates at each confidence threshold (an index built with each
// as its minConfidence); without it, the index's own default (MIN_CONFIDENCE) is used.
// A file without splits (bench/no-fit/seen.json, the earlier positive sets) is read whole.
// Usage: npm run build --silent && node bench/blind/no-fit.mjs --split dev [--no-fit FILE]... [--positives FILE]... [--sweep LIST] [--corpus DIR] [--json]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIN_CONFIDENCE, SkillSearchIndex } from '../../packages/search/dist/src/index.js';
import { loadCorpusDocs } from '../corpus-docs.mjs';

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const args = process.argv.slice(2);
const values = (name) => args.flatMap((arg, at) => (arg === `--${name}` && at + 1 < args.length ? [args[at + 1]] : []));
const flag = (name) => values(name).at(-1);
const split = flag('split');
const corpus = resolve(flag('corpus') ?? join(repo, '../shared/corpus/skills'));
const noFitFiles = values('no-fit').length > 0 ? values('no-fit') : [join(repo, 'bench/blind4/no-fit.json')];
const positiveFiles = values('positives').length > 0 ? values('positives') : [join(repo, 'bench/blind4/queries.json')];
const sweep = flag('sweep')?.split(',').map(Number);

/** The queries of one file, filtered by --split first; refuses a split file without --split. */
function load(file) {
  const loaded = JSON.parse(readFileSync(resolve(file), 'utf8'));
  const all = Array.isArray(loaded) ? loaded : loaded.queries;
  if (all.some((query) => query.split !== undefined)) {
    if (split === undefined) {
      process.stderr.write(`${file} has dev and holdout parts: pass --split dev (or --split holdout, once, at the end)\n`);
      process.exit(2);
    }
    return all.filter((query) => query.split === split);
  }
  return all;
}

const noFit = noFitFiles.flatMap(load);
const positives = positiveFiles.flatMap(load);
const { docs } = loadCorpusDocs(corpus);
const nameOf = new Map(docs.map((doc) => [doc.id, doc.name]));
const right = (id, expected) => expected.includes(id) || expected.includes(nameOf.get(id));
function rates(threshold) {
  const index = new SkillSearchIndex(docs, { minConfidence: threshold });
  const hitsOf = (list) => list.map((query) => ({ query, hits: index.search(query.query, 10) }));
  const noFitHits = hitsOf(noFit);
  const positiveHits = hitsOf(positives);
  const kept = (hits) => hits;
  const abstained = noFitHits.filter(({ hits }) => kept(hits).length === 0).length;
  let answered = 0;
  let top1 = 0;
  let top5 = 0;
  for (const { query, hits } of positiveHits) {
    const shown = kept(hits);
    if (shown.length > 0) answered++;
    const rank = shown.findIndex((hit) => right(hit.id, query.expected));
    if (rank === 0) top1++;
    if (rank >= 0 && rank < 5) top5++;
  }
  const n = positives.length;
  return {
    threshold,
    noFit: noFit.length,
    abstained: abstained / noFit.length,
    positives: n,
    answered: answered / n,
    recallAt1: top1 / n,
    recallAt5: top5 / n,
  };
}

const rows = (sweep ?? [MIN_CONFIDENCE]).map(rates);
if (args.includes('--json')) console.log(JSON.stringify(rows));
else {
  const percent = (x) => `${(100 * x).toFixed(1)} %`;
  console.log(
    `split ${split ?? '(none)'}: ${noFit.length} no-fit tasks (${noFitFiles.join(', ')}), ${positives.length} positive queries (${positiveFiles.join(', ')})`,
  );
  console.log('| min confidence | no-fit with no result | positives with results | recall@1 | recall@5 |\n|---:|---:|---:|---:|---:|');
  for (const row of rows)
    console.log(`| ${row.threshold} | ${percent(row.abstained)} | ${percent(row.answered)} | ${percent(row.recallAt1)} | ${percent(row.recallAt5)} |`);
}
