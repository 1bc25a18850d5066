#!/usr/bin/env node
// bench/sentence-meaning: the shipped ranking against the same hits reordered by the sentence encoder
// (`serve --embeddings builtin`: @skillport/search's SentenceEncoder and rerankByMeaning, ADR 0280), in one run, on
// every spent query set (search-queries*.json, blind sets 1-9; no-fit sets for the share with no result). Prints
// recall@1 / recall@5 for user-worded and model-phrased queries (kind "model" and the search-queries sets) per set and
// overall, per weight, then a leave-one-set-out check: the weight chosen on the other sets (most user-worded hits at
// ranks 1 and 5, no model-phrased query lost at rank 5), scored on the set left out.
// `--ceiling` adds what bounds any reorder: how often the answer is in the lexical hits at all (5 to 50 deep), and the
// encoder alone over every skill. `--cache FILE` keeps the vectors between runs (JSON, text → base64 float32); `--costs` prints the encoder's CPU per
// skill text and per query. Recall does not depend on load; CPU figures do.
// Usage: npm run build --silent && node bench/sentence-meaning.mjs [--weights 0.2,0.3,0.4,0.5,0.6] [--cache FILE] [--costs]
//        [--ceiling] [--corpus DIR]
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SentenceEncoder, SkillSearchIndex, rerankByMeaning, sentenceCosine, skillSentence, unit } from '../packages/search/dist/src/index.js';
import { loadCorpusDocs } from './corpus-docs.mjs';

const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const weights = (flag('weights') ?? '0.2,0.3,0.4,0.5,0.6').split(',').map(Number);
const cacheFile = flag('cache');
const corpus = resolve(flag('corpus') ?? join(repo, '../shared/corpus/skills'));
const { docs } = loadCorpusDocs(corpus);
// An empty corpus would score every set 0 % and look like a result.
if (docs.length === 0) {
  console.error(`no skills found under ${corpus}: pass --corpus DIR (the corpus's skills folder)`);
  process.exit(2);
}
const nameOf = new Map(docs.map((doc) => [doc.id, doc.name]));

const load = (file) => {
  const loaded = JSON.parse(readFileSync(join(repo, 'bench', file), 'utf8'));
  return Array.isArray(loaded) ? loaded : loaded.queries;
};
const sets = [
  ['search-queries', 'search-queries.json'],
  ['search-queries-heldout', 'search-queries-heldout.json'],
  ['blind1-dev', 'blind/queries-dev.json'],
  ['blind1-holdout', 'blind/queries-holdout.json'],
  ...[2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13].map((n) => [`blind${n}`, `blind${n}/queries.json`]),
];
const positives = sets.flatMap(([set, file]) =>
  load(file).map((query) => ({ set, model: set.startsWith('search-queries') || query.kind === 'model', ...query })),
);
const noFit = [...[4, 5, 6, 7, 8, 9].map((n) => `blind${n}/no-fit.json`), ...readdirSync(join(repo, 'bench/no-fit')).map((file) => `no-fit/${file}`)]
  .filter((file) => file.endsWith('.json'))
  .flatMap((file) => load(file));

// Vectors: the encoder's, by text.
const cache = cacheFile !== undefined && existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, 'utf8')) : {};
const encoder = new SentenceEncoder();
const skillTexts = docs.map((doc) => skillSentence(doc.name, doc.description ?? ''));
const wanted = [...new Set([...skillTexts, ...positives.map((q) => q.query), ...noFit.map((q) => q.query)])].filter((text) => !(text in cache));
for (let at = 0; at < wanted.length; at += 32) {
  const batch = wanted.slice(at, at + 32);
  const vectors = await encoder.embed(batch);
  batch.forEach((text, i) => {
    cache[text] = Buffer.from(vectors[i].buffer, vectors[i].byteOffset, vectors[i].byteLength).toString('base64');
  });
}
if (cacheFile !== undefined && wanted.length > 0) writeFileSync(cacheFile, JSON.stringify(cache));
const vectorOf = (text) => {
  const bytes = Buffer.from(cache[text], 'base64');
  return unit(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
};
const skillVectors = new Map(docs.map((doc, at) => [doc.id, vectorOf(skillTexts[at])]));

if (args.includes('--costs')) {
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const fresh = new SentenceEncoder();
  let started = cpu();
  await fresh.ready();
  const loadMs = cpu() - started;
  const sample = skillTexts.slice(0, 64);
  started = cpu();
  for (const text of sample) await fresh.embed([text]);
  const perSkill = (cpu() - started) / sample.length;
  const queries = positives.slice(0, 100).map((q) => q.query);
  started = cpu();
  for (const text of queries) await fresh.embed([text], true);
  const perQuery = (cpu() - started) / queries.length;
  await fresh.close();
  const chars = sample.reduce((sum, text) => sum + text.length, 0) / sample.length;
  console.log(`costs: model load ${loadMs.toFixed(0)} ms CPU; ${perSkill.toFixed(1)} ms CPU per skill text (mean ${chars.toFixed(0)} chars, one at a time);`);
  console.log(
    `       ${perQuery.toFixed(1)} ms CPU per query; at 1,000 / 10,000 / 100,000 skills: ${[1e3, 1e4, 1e5].map((n) => `${((n * perSkill) / 60000).toFixed(1)} min`).join(' / ')} of CPU to embed, ${[1e3, 1e4, 1e5].map((n) => `${((n * 2048) / 2 ** 20).toFixed(1)} MB`).join(' / ')} of vectors (512 float32 each)`,
  );
}
await encoder.close();

const index = new SkillSearchIndex(docs);
const right = (id, expected) => expected.includes(id) || expected.includes(nameOf.get(id));
// The lexical hits once (50 deep: what the server reorders), then each weight over the same hits.
const lexical = positives.map((q) => index.search(q.query, 50));
const silent = noFit.filter((q) => index.search(q.query, 10).length === 0).length;
const ranksAt = (weight) =>
  positives.map((q, at) => {
    const hits = weight === 0 ? lexical[at] : rerankByMeaning(lexical[at], vectorOf(q.query), (id) => skillVectors.get(id), weight);
    return hits.slice(0, 10).findIndex((hit) => right(hit.id, q.expected));
  });
const runs = [0, ...weights].map((weight) => ({ weight, ranks: ranksAt(weight) }));
const pct = (n, d) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}`);
function tally(ranks, pick) {
  let n = 0;
  let top1 = 0;
  let top5 = 0;
  positives.forEach((q, at) => {
    if (!pick(q)) return;
    n++;
    if (ranks[at] === 0) top1++;
    if (ranks[at] >= 0 && ranks[at] < 5) top5++;
  });
  return { n, top1, top5 };
}
const show = ({ n, top1, top5 }) => (n === 0 ? '-' : `${pct(top1, n)} / ${pct(top5, n)}`);

console.log(
  `\n${docs.length} skills; ${positives.length} queries (${positives.filter((q) => q.model).length} model-phrased); no-fit with no result (unchanged by the reorder): ${pct(silent, noFit.length)} % of ${noFit.length}`,
);
console.log('\nrecall@1 / recall@5 %, user-worded | model-phrased');
console.log(['set', ...runs.map((run) => (run.weight === 0 ? 'shipped' : `λ ${run.weight}`))].join(' | '));
for (const [set] of [...sets, ['all']]) {
  const inSet = (q) => set === 'all' || q.set === set;
  console.log(
    [
      `${set} (${tally(runs[0].ranks, (q) => inSet(q) && !q.model).n} | ${tally(runs[0].ranks, (q) => inSet(q) && q.model).n})`,
      ...runs.map((run) => `${show(tally(run.ranks, (q) => inSet(q) && !q.model))} | ${show(tally(run.ranks, (q) => inSet(q) && q.model))}`),
    ].join(' | '),
  );
}
// Against the shipped ranking, query by query.
for (const run of runs.slice(1)) {
  let gained1 = 0;
  let lost1 = 0;
  let gained5 = 0;
  let lost5 = 0;
  let modelLost5 = 0;
  const in5 = (rank) => rank >= 0 && rank < 5;
  positives.forEach((q, at) => {
    const was = runs[0].ranks[at];
    const now = run.ranks[at];
    if (q.model) {
      if (in5(was) && !in5(now)) modelLost5++;
      return;
    }
    if (was !== 0 && now === 0) gained1++;
    if (was === 0 && now !== 0) lost1++;
    if (!in5(was) && in5(now)) gained5++;
    if (in5(was) && !in5(now)) lost5++;
  });
  console.log(`λ ${run.weight}: user-worded +${gained1} −${lost1} at rank 1, +${gained5} −${lost5} in the top 5; model-phrased −${modelLost5} in the top 5`);
}
// Leave one set out: the weight the other sets choose, scored on the one left out.
console.log('\nleave one set out (user-worded r@1 / r@5 %: shipped → with the weight the other sets chose)');
let before = { n: 0, top1: 0, top5: 0 };
let afterAll = { n: 0, top1: 0, top5: 0 };
for (const [set] of sets) {
  let best;
  for (const run of runs) {
    const user = tally(run.ranks, (q) => q.set !== set && !q.model);
    const model = tally(run.ranks, (q) => q.set !== set && q.model);
    const modelBase = tally(runs[0].ranks, (q) => q.set !== set && q.model);
    if (model.top5 < modelBase.top5) continue;
    const value = user.top1 + user.top5;
    if (best === undefined || value > best.value) best = { value, run };
  }
  const base = tally(runs[0].ranks, (q) => q.set === set && !q.model);
  const chosen = tally(best.run.ranks, (q) => q.set === set && !q.model);
  const model = tally(best.run.ranks, (q) => q.set === set && q.model);
  const modelBase = tally(runs[0].ranks, (q) => q.set === set && q.model);
  before = { n: before.n + base.n, top1: before.top1 + base.top1, top5: before.top5 + base.top5 };
  afterAll = { n: afterAll.n + chosen.n, top1: afterAll.top1 + chosen.top1, top5: afterAll.top5 + chosen.top5 };
  console.log(
    `${set}: λ ${best.run.weight}: ${show(base)} → ${show(chosen)}; model-phrased r@5 ${modelBase.n === 0 ? '-' : `${pct(modelBase.top5, modelBase.n)} → ${pct(model.top5, model.n)}`}`,
  );
}
console.log(`all sets, each scored at the weight the others chose: ${show(before)} → ${show(afterAll)}`);
if (args.includes('--ceiling')) {
  const share = (pick, found) => {
    let n = 0;
    let k = 0;
    positives.forEach((q, at) => {
      if (!pick(q)) return;
      n++;
      if (found(q, at)) k++;
    });
    return pct(k, n);
  };
  const user = (q) => !q.model;
  const model = (q) => q.model;
  const within = (hits, q, depth) => hits.slice(0, depth).some((hit) => right(hit.id, q.expected));
  console.log('\nceiling: the answer among the lexical hits at all (no reorder of them can do better), user-worded | model-phrased %');
  for (const depth of [5, 10, 20, 50]) {
    console.log(`  ${depth} deep: ${share(user, (q, at) => within(lexical[at], q, depth))} | ${share(model, (q, at) => within(lexical[at], q, depth))}`);
  }
  const alone = positives.map((q) =>
    docs.map((doc) => ({ id: doc.id, cos: sentenceCosine(vectorOf(q.query), skillVectors.get(doc.id)) })).sort((a, b) => b.cos - a.cos),
  );
  console.log('the encoder alone over every skill (cosine order), user-worded | model-phrased %');
  for (const depth of [1, 5, 50]) {
    console.log(
      `  answer in its top ${depth}: ${share(user, (q, at) => within(alone[at], q, depth))} | ${share(model, (q, at) => within(alone[at], q, depth))}`,
    );
  }
  console.log(
    `  answer in the lexical 50 or the encoder's 50: ${share(user, (q, at) => within(lexical[at], q, 50) || within(alone[at], q, 50))} | ${share(model, (q, at) => within(lexical[at], q, 50) || within(alone[at], q, 50))}`,
  );
}
