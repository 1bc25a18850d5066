#!/usr/bin/env node
// bench/blind/fit-domain: fits the query-domain weights (packages/search/src/scoring/query-domain.ts, ADR 0271) and
// writes them to packages/search/src/scoring/query-domain.txt. Inputs per query: the logit of the lexical confidence
// of its deciding hit (an index with queryDomain: false), whether the query holds a word rare in English that no skill
// holds, or that skills hold only in bodies, written as a name or not (rareKinds of the evidence), and the query's
// word vector. A balanced logistic regression
// with an L2 penalty on standardised inputs, positives (queries that have a skill) against no-fit tasks, on the fitting
// sets only (below); the threshold is the one that keeps 96 % of the fitting positives answered, judged on 5-fold
// out-of-fold confidences (the in-sample ones flatter a 101-input fit), then folded into the bias so that the index's
// MIN_CONFIDENCE stays the decision threshold. Prints the fitting sets' in-sample and out-of-fold rates; check sets
// (blind set 7, never fitted on) are scored with bench/blind/score.mjs and bench/blind/no-fit.mjs after a build.
// Usage: npm run build --silent && node bench/blind/fit-domain.mjs [--corpus DIR] [--l2 0.03] [--answered 0.96] [--dry-run]
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIN_CONFIDENCE, SkillSearchIndex, WordVectors, rareKinds } from '../../packages/search/dist/src/index.js';
import { loadCorpusDocs } from '../corpus-docs.mjs';

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const corpus = resolve(flag('corpus') ?? join(repo, '../shared/corpus/skills'));
const l2 = Number(flag('l2') ?? 0.03);
const ANSWERED = Number(flag('answered') ?? 0.96);
const FOLDS = 5;
// The fitting sets: every spent set but blind set 7, which is kept aside to check.
const POSITIVES = [
  'search-queries.json',
  'search-queries-heldout.json',
  'blind/queries-dev.json',
  'blind/queries-holdout.json',
  'blind2/queries.json',
  'blind3/queries.json',
  'blind4/queries.json',
  'blind5/queries.json',
  'blind6/queries.json',
];
const NO_FIT = ['no-fit/seen.json', 'no-fit/written.json', 'no-fit/near-miss.json', 'blind4/no-fit.json', 'blind5/no-fit.json', 'blind6/no-fit.json'];
const load = (file) => {
  const loaded = JSON.parse(readFileSync(join(repo, 'bench', file), 'utf8'));
  return Array.isArray(loaded) ? loaded : loaded.queries;
};

const { docs } = loadCorpusDocs(corpus);
const index = new SkillSearchIndex(docs, { minConfidence: 0, queryDomain: false });
const vectors = WordVectors.bundled();
if (vectors === undefined) throw new Error('fit-domain: no word vectors (run npm run build)');
const logit = (p) => Math.log(Math.min(1 - 1e-12, Math.max(1e-12, p)) / (1 - Math.min(1 - 1e-12, Math.max(1e-12, p))));

// A row per query: `all` when its deciding hit matches every typed word (answered whatever the confidence), `none`
// when no hit matches a typed word (never answered), else the inputs.
const rows = [];
for (const [files, positive] of [
  [POSITIVES, 1],
  [NO_FIT, 0],
]) {
  for (const file of files) {
    for (const { query } of load(file)) {
      const top = index.search(query, 10).find((hit) => hit.evidence.exactWeight > 0);
      const vector = vectors.textVector(query.slice(0, 1000));
      if (top === undefined) rows.push({ y: positive, none: true });
      else if (top.evidence.exactWeight >= top.evidence.queryWeight * (1 - 1e-9)) rows.push({ y: positive, all: true });
      else {
        const rare = rareKinds(top.evidence).map((present) => (present ? 1 : 0));
        rows.push({ y: positive, x: [logit(top.confidence), ...rare, ...(vector ?? new Float32Array(vectors.dimensions))] });
      }
    }
  }
}

/** Balanced logistic regression by gradient descent on standardised inputs: {mean, sd, w, b}. */
function fit(train) {
  const k = train[0].x.length;
  const mean = new Float64Array(k);
  const sd = new Float64Array(k);
  for (const { x } of train) for (let i = 0; i < k; i++) mean[i] += x[i] / train.length;
  for (const { x } of train) for (let i = 0; i < k; i++) sd[i] += (x[i] - mean[i]) ** 2 / train.length;
  for (let i = 0; i < k; i++) sd[i] = Math.sqrt(sd[i]) || 1;
  const xs = train.map(({ x }) => Float64Array.from(x, (v, i) => (v - mean[i]) / sd[i]));
  const positives = train.filter(({ y }) => y === 1).length;
  const share = train.map(({ y }) => (y === 1 ? 0.5 / positives : 0.5 / (train.length - positives)));
  const w = new Float64Array(k);
  let b = 0;
  const gradient = new Float64Array(k);
  for (let step = 0; step < 3000; step++) {
    gradient.fill(0);
    let gb = 0;
    for (let n = 0; n < xs.length; n++) {
      const x = xs[n];
      let z = b;
      for (let i = 0; i < k; i++) z += w[i] * x[i];
      const c = (1 / (1 + Math.exp(-z)) - train[n].y) * share[n];
      for (let i = 0; i < k; i++) gradient[i] += c * x[i];
      gb += c;
    }
    for (let i = 0; i < k; i++) w[i] -= gradient[i] + l2 * w[i];
    b -= gb;
  }
  return { mean, sd, w, b };
}
const predict = ({ mean, sd, w, b }, x) => {
  let z = b;
  for (let i = 0; i < x.length; i++) z += (w[i] * (x[i] - mean[i])) / sd[i];
  return z;
};

const judged = rows.filter((row) => row.x !== undefined);
const outOfFold = new Map();
for (let fold = 0; fold < FOLDS; fold++) {
  const model = fit(judged.filter((_, at) => at % FOLDS !== fold));
  judged.forEach((row, at) => {
    if (at % FOLDS === fold) outOfFold.set(row, predict(model, row.x));
  });
}
// The logit to keep ANSWERED of the positives answered (rows matching every word count as answered, none as not).
const positiveScores = rows
  .filter((row) => row.y === 1)
  .map((row) => (row.none ? -Infinity : row.all ? Infinity : outOfFold.get(row)))
  .sort((a, b) => a - b);
const threshold = positiveScores[Math.floor((1 - ANSWERED) * positiveScores.length)];
const model = fit(judged);
const rates = (score) => {
  let answered = 0;
  let abstained = 0;
  for (const row of rows) {
    const yes = !row.none && (row.all || score(row) >= threshold);
    if (row.y === 1) answered += yes ? 1 : 0;
    else abstained += yes ? 0 : 1;
  }
  const positives = rows.filter((row) => row.y === 1).length;
  return `positives answered ${((100 * answered) / positives).toFixed(1)} %, no-fit abstained ${((100 * abstained) / (rows.length - positives)).toFixed(1)} %`;
};
console.log(`fitting sets: ${rows.filter((row) => row.y === 1).length} positives, ${rows.filter((row) => row.y === 0).length} no-fit tasks, L2 ${l2}`);
console.log(`  out of fold: ${rates((row) => outOfFold.get(row))}`);
console.log(`  in sample:   ${rates((row) => predict(model, row.x))}`);

// Folded: z = lexical · logit(c) + Σ weight_i · v_i + bias, with the threshold moved to MIN_CONFIDENCE.
const lexical = model.w[0] / model.sd[0];
const specific = [1, 2, 3, 4].map((i) => model.w[i] / model.sd[i]);
const weights = Array.from(model.w.slice(5), (w, i) => w / model.sd[i + 5]);
let bias = model.b - threshold + logit(MIN_CONFIDENCE);
for (let i = 0; i < model.w.length; i++) bias -= (model.w[i] * model.mean[i]) / model.sd[i];
const text = [
  '# The query-domain weights (query-domain.ts): written by bench/blind/fit-domain.mjs, do not edit by hand.',
  `# Fitted on ${POSITIVES.join(', ')} against ${NO_FIT.join(', ')}; L2 ${l2}; ${100 * ANSWERED} % of positives answered out of fold.`,
  `lexical ${lexical.toPrecision(6)}`,
  `bias ${bias.toPrecision(6)}`,
  `specific ${specific.map((w) => w.toPrecision(6)).join(' ')}`,
  `weights ${weights.map((w) => w.toPrecision(5)).join(' ')}`,
  '',
].join('\n');
if (!args.includes('--dry-run')) writeFileSync(join(repo, 'packages/search/src/scoring/query-domain.txt'), text);
console.log(text.split('\n').slice(2, 5).join('\n'));
