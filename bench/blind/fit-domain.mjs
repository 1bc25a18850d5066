#!/usr/bin/env node
// bench/blind/fit-domain: fits the query-domain decision (packages/search/src/scoring/query-domain.ts and
// decision-trees.ts, ADR 0271) and writes it to packages/search/src/scoring/query-domain.txt. Inputs per query, from
// its deciding hit in an index with queryDomain: false: the logit of the lexical confidence, whether the query holds a
// word rare in English that no skill holds, or that skills hold only in bodies, written as a name or not (rareKinds of
// the evidence), and the query's word vector. First a balanced logistic regression with an L2 penalty on standardised
// inputs (Newton steps), positives (queries that have a skill) against no-fit tasks; then --trees small regression
// trees (depth --depth, shrinkage --rate) boosted on the same balanced log loss from that linear margin, splitting on
// the margin and the hit's lexical evidence (decision-trees.ts TREE_INPUTS). The trees learn from out-of-fold linear
// margins (5 folds), so that they correct what the linear fit gets wrong on queries it has not seen, not its in-sample
// optimism. The threshold is the one that keeps --answered (95.5 %) of the fitting positives answered, judged on
// out-of-fold values of the whole decision, and written as `offset` so that MIN_CONFIDENCE stays the threshold.
// The trees' `neighbours` input is a query's best cosine with the fitting sets' everyday and off-domain no-fit tasks (query-neighbours.ts),
// never counting the query's own writer (a blind set, or a file), nor in --cv the set held out; the fitting no-fit
// tasks' vectors are written to query-neighbours.txt beside query-domain.txt. The `remembered` input is the sum, over
// the query's typed terms no skill of the corpus is about, of each term's log ratio of its share of the fitting no-fit
// tasks (every kind) over its share of the positives (remembered-words.txt), leaving out the same writers.
// Every spent set is fitted on; `--aside SET` keeps one blind set out and only checks it (its figures printed last).
// --cv also prints, for each of blind sets 4-9, 11 and 12 held out in turn, the figures of a decision fitted without it
// (cross-validated: its threshold, too, from the other sets only).
// Usage: npm run build --silent && node bench/blind/fit-domain.mjs [--corpus DIR] [--l2 0.03] [--answered 0.955]
//        [--trees 80] [--depth 2] [--rate 0.05] [--cv] [--sweep 0.96,0.95] [--dry-run] [--aside blind12]
//        [--memory-min 2] [--memory-writers 1] [--memory-alpha 0.5] [--memory-kinds vectors] [--memory-best] [--without remembered,neighbours]
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  MIN_CONFIDENCE,
  QueryNeighbours,
  SkillSearchIndex,
  TREE_INPUTS,
  WordVectors,
  queryWords,
  rareKinds,
  searchTerms,
} from '../../packages/search/dist/src/index.js';
import { loadCorpusDocs } from '../corpus-docs.mjs';

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const corpus = resolve(flag('corpus') ?? join(repo, '../shared/corpus/skills'));
const l2 = Number(flag('l2') ?? 0.03);
const ANSWERED = Number(flag('answered') ?? 0.955);
const TREES = Number(flag('trees') ?? 80);
const DEPTH = Number(flag('depth') ?? 2);
const RATE = Number(flag('rate') ?? 0.05);
const FOLDS = 5;
// The fitting sets: every spent set.
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
  'blind7/queries.json',
  'blind8/queries.json',
  'blind9/queries.json',
  'blind11/queries.json',
  'blind12/queries.json',
];
const NO_FIT = [
  'no-fit/seen.json',
  'no-fit/written.json',
  'no-fit/near-miss.json',
  'blind4/no-fit.json',
  'blind5/no-fit.json',
  'blind6/no-fit.json',
  'blind7/no-fit.json',
  'blind8/no-fit.json',
  'blind9/no-fit.json',
  'blind11/no-fit.json',
  'blind12/no-fit.json',
];
// Kept out of every fit and only checked: `--aside SET` (a blind set's folder, e.g. blind12) moves it out of the pool.
const ASIDE = flag('aside');
const KEPT_ASIDE = ASIDE === undefined ? [] : [`${ASIDE}/queries.json`, `${ASIDE}/no-fit.json`];
for (const file of KEPT_ASIDE) {
  for (const list of [POSITIVES, NO_FIT]) if (list.includes(file)) list.splice(list.indexOf(file), 1);
}
// The no-fit tasks whose vectors the `neighbours` input remembers: everyday and off-domain ones (and seen.json's, not
// labelled), not near-misses: a tool this corpus lacks may be one another catalog serves, an everyday task is not.
const MEMORY_KINDS = ['everyday', 'off-domain', ''];
// The sets held out in turn by --cv (each has positives and no-fit tasks of its own, written by another writer).
const CHECKS = ['blind4/', 'blind5/', 'blind6/', 'blind7/', 'blind8/', 'blind9/', 'blind11/', 'blind12/'].filter(
  (check) => !KEPT_ASIDE.some((file) => file.startsWith(check)),
);
// --sweep A,B,...: --cv also prints the held-out figures of each of these threshold rules (share of the fitting
// positives answered out of fold), from the same fits.
const SWEEP = (flag('sweep') ?? '').split(',').filter(Boolean).map(Number);
const load = (file) => {
  const loaded = JSON.parse(readFileSync(join(repo, 'bench', file), 'utf8'));
  return Array.isArray(loaded) ? loaded : loaded.queries;
};

const { docs } = loadCorpusDocs(corpus);
const index = new SkillSearchIndex(docs, { minConfidence: 0, queryDomain: false });
const vectors = WordVectors.bundled();
if (vectors === undefined) throw new Error('fit-domain: no word vectors (run npm run build)');
const logit = (p) => Math.log(Math.min(1 - 1e-12, Math.max(1e-12, p)) / (1 - Math.min(1 - 1e-12, Math.max(1e-12, p))));

// The trees' inputs but the margin (first), in TREE_INPUTS order, from the deciding hit (as query-domain.ts computes them).
const LOW = TREE_INPUTS.slice(1);
function lowInputs(hit, kinds, text) {
  const e = hit.evidence;
  const query = e.queryWeight || 1;
  const values = {
    lexical: logit(hit.confidence),
    namedUnknown: kinds[0],
    otherUnknown: kinds[1],
    namedUntopical: kinds[2],
    otherUntopical: kinds[3],
    exactShare: e.exactWeight / query,
    unknownShare: e.unknownWeight / query,
    topicalShare: e.topicalWeight / query,
    missed: e.missedWeight,
    cosine: e.cosine,
    words: queryWords(text),
    neighbours: 0, // set by setNeighbours (it depends on which sets are fitted on)
    remembered: 0, // likewise
  };
  return LOW.map((name) => values[name]);
}

// A row per query: `all` when its deciding hit matches every typed word (answered whatever the confidence), `none`
// when no hit matches a typed word (never answered), else the linear inputs `x` and the trees' other inputs `low`.
const rows = [];
for (const [files, positive] of [
  [POSITIVES, 1],
  [NO_FIT, 0],
  [KEPT_ASIDE.slice(0, 1), 1],
  [KEPT_ASIDE.slice(1), 0],
]) {
  for (const file of files) {
    for (const { query, kind } of load(file)) {
      const top = index.search(query, 10).find((hit) => hit.evidence.exactWeight > 0);
      const vector = vectors.textVector(query.slice(0, 1000));
      const row = { y: positive, set: file, kind: kind ?? (file.startsWith('search-') ? 'model' : '') };
      row.terms = new Set(searchTerms(query.slice(0, 1000)));
      if (vector !== undefined && positive === 0 && MEMORY_KINDS.includes(row.kind)) row.packed = QueryNeighbours.pack(vector);
      if (top === undefined) row.none = true;
      else if (top.evidence.exactWeight >= top.evidence.queryWeight * (1 - 1e-9)) row.all = true;
      else {
        const kinds = rareKinds(top.evidence).map((present) => (present ? 1 : 0));
        row.x = [logit(top.confidence), ...kinds, ...(vector ?? new Float32Array(vectors.dimensions))];
        row.low = lowInputs(top, kinds, query.slice(0, 1000));
        row.untopical = [...new Set(index.untopicalTerms(query))];
      }
      rows.push(row);
    }
  }
}

const aside = rows.filter((row) => KEPT_ASIDE.includes(row.set));
rows.splice(0, rows.length, ...rows.filter((row) => !KEPT_ASIDE.includes(row.set)));

// Per judged row, per writer of the fitting pool, its best cosine with that writer's no-fit tasks (the vectors as
// query-neighbours.txt stores them).
const writerOf = (set) => (set.startsWith('blind') ? set.split('/')[0] : set);
const unpack = (line) => {
  const [scale, packed] = line.split(' ');
  return Float32Array.from(new Int8Array(Buffer.from(packed, 'base64')), (b) => b * Number(scale));
};
const neighbourPool = rows.filter((row) => row.x !== undefined && row.packed !== undefined && row.y === 0);
for (const row of neighbourPool) row.unpacked = unpack(row.packed);
for (const row of [...rows, ...aside]) {
  if (row.x === undefined) continue;
  row.near = new Map();
  const q = row.x.slice(5);
  for (const other of neighbourPool) {
    if (other === row) continue;
    let c = 0;
    for (let i = 0; i < q.length; i++) c += q[i] * other.unpacked[i];
    const writer = writerOf(other.set);
    if (c > (row.near.get(writer) ?? Number.NEGATIVE_INFINITY)) row.near.set(writer, c);
  }
}
// The remembered words (remembered-words.ts): per writer of the fitting pool, how many of its remembered no-fit tasks
// (MEMORY_KINDS) and of its positives hold each search term, so that a row's `remembered` input can leave out its own
// writer (and in --cv the set held out).
const MEMORY_MIN = Number(flag('memory-min') ?? 2);
const MEMORY_WRITERS = Number(flag('memory-writers') ?? 1);
const MEMORY_ALPHA = Number(flag('memory-alpha') ?? 0.5);
// Every no-fit task's words are remembered, near-misses' too: a word only counts where no skill of the searched scope is
// about it, so a tool another catalog serves is not held against it there (--memory-kinds vectors: only the kinds
// the `neighbours` vectors keep, measured: less).
const MEMORY_ALL = flag('memory-kinds') !== 'vectors';
const REMEMBERS = (row) => row.y === 0 && (MEMORY_ALL || MEMORY_KINDS.includes(row.kind));
// The input is the sum of the remembered weights of the query's untopical terms (--memory-best: the best one, measured: less).
const MEMORY_SUM = !args.includes('--memory-best');
const tally = new Map(); // writer → {noFit: Map(term → tasks), noFits, positive: Map(term → queries), positives}
for (const row of rows) {
  const remembered = REMEMBERS(row);
  if (row.y === 0 && !remembered) continue;
  const writer = writerOf(row.set);
  if (!tally.has(writer)) tally.set(writer, { noFit: new Map(), noFits: 0, positive: new Map(), positives: 0 });
  const counts = tally.get(writer);
  const map = remembered ? counts.noFit : counts.positive;
  if (remembered) counts.noFits++;
  else counts.positives++;
  for (const term of row.terms) map.set(term, (map.get(term) ?? 0) + 1);
}
/** The remembered weights from every writer but `excluded` (a Set): Map(term → weight above 0). */
function rememberedWeights(excluded) {
  const noFit = new Map();
  const writers = new Map();
  const positive = new Map();
  let noFits = 0;
  let positives = 0;
  for (const [writer, counts] of tally) {
    if (excluded.has(writer)) continue;
    noFits += counts.noFits;
    positives += counts.positives;
    for (const [term, n] of counts.noFit) {
      noFit.set(term, (noFit.get(term) ?? 0) + n);
      writers.set(term, (writers.get(term) ?? 0) + 1);
    }
    for (const [term, n] of counts.positive) positive.set(term, (positive.get(term) ?? 0) + n);
  }
  const weights = new Map();
  for (const [term, n] of noFit) {
    // Numbers are no subject (a "1500" of calories is a "1500" of pixels elsewhere).
    if (/^\p{N}+$/u.test(term)) continue;
    if (n < MEMORY_MIN || writers.get(term) < MEMORY_WRITERS) continue;
    const weight = Math.log((n + MEMORY_ALPHA) / (noFits + MEMORY_ALPHA) / (((positive.get(term) ?? 0) + MEMORY_ALPHA) / (positives + MEMORY_ALPHA)));
    if (weight > 0) weights.set(term, weight);
  }
  return weights;
}
const weightsCache = new Map();
const weightsWithout = (excluded) => {
  const key = [...excluded].sort().join(' ');
  if (!weightsCache.has(key)) weightsCache.set(key, rememberedWeights(excluded));
  return weightsCache.get(key);
};

const NEIGHBOURS = LOW.indexOf('neighbours');
// --without NAME,…: those tree inputs held at 0 (no tree can split on them), to measure what one adds.
const WITHOUT = new Set((flag('without') ?? '').split(',').filter(Boolean));
const REMEMBERED = WITHOUT.has('remembered') ? -1 : LOW.indexOf('remembered');
/** Sets every judged row's `neighbours` and `remembered` inputs from the fitting writers but its own and `excluded` (a --cv check). */
function setNeighbours(excluded) {
  for (const row of [...rows, ...aside]) {
    if (row.x === undefined) continue;
    let best = -1;
    for (const [writer, cosine] of row.near) if (writer !== excluded && writer !== writerOf(row.set)) best = Math.max(best, cosine);
    if (NEIGHBOURS >= 0 && !WITHOUT.has('neighbours')) row.low[NEIGHBOURS] = best;
    if (REMEMBERED >= 0) {
      const weights = weightsWithout(new Set([excluded, writerOf(row.set)].filter(Boolean)));
      let most = 0;
      for (const term of row.untopical) most = MEMORY_SUM ? most + (weights.get(term) ?? 0) : Math.max(most, weights.get(term) ?? 0);
      row.low[REMEMBERED] = most;
    }
  }
}

/** Solves A·x = b (Gaussian elimination with partial pivoting; A is small and positive definite). */
function solve(A, b) {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[pivot][c])) pivot = r;
    [M[c], M[pivot]] = [M[pivot], M[c]];
    for (let r = c + 1; r < n; r++) {
      const f = M[r][c] / M[c][c];
      if (f !== 0) for (let j = c; j <= n; j++) M[r][j] -= f * M[c][j];
    }
  }
  const x = new Float64Array(n);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r][n];
    for (let j = r + 1; j < n; j++) s -= M[r][j] * x[j];
    x[r] = s / M[r][r];
  }
  return x;
}

/** Balanced logistic regression on standardised inputs, L2 on the weights (not the bias), by Newton steps: {mean, sd, w, b}. */
function fitLinear(train) {
  const k = train[0].x.length;
  const K = k + 1;
  const mean = new Float64Array(k);
  const sd = new Float64Array(k);
  for (const { x } of train) for (let i = 0; i < k; i++) mean[i] += x[i] / train.length;
  for (const { x } of train) for (let i = 0; i < k; i++) sd[i] += (x[i] - mean[i]) ** 2 / train.length;
  for (let i = 0; i < k; i++) sd[i] = Math.sqrt(sd[i]) || 1;
  const xs = train.map(({ x }) => {
    const standard = new Float64Array(K);
    for (let i = 0; i < k; i++) standard[i] = (x[i] - mean[i]) / sd[i];
    standard[k] = 1;
    return standard;
  });
  const positives = train.filter(({ y }) => y === 1).length;
  const share = train.map(({ y }) => (y === 1 ? 0.5 / positives : 0.5 / (train.length - positives)));
  const w = new Float64Array(K);
  for (let step = 0; step < 12; step++) {
    const gradient = new Float64Array(K);
    const hessian = Array.from({ length: K }, () => new Float64Array(K));
    for (let n = 0; n < xs.length; n++) {
      const x = xs[n];
      let z = 0;
      for (let i = 0; i < K; i++) z += w[i] * x[i];
      const p = 1 / (1 + Math.exp(-z));
      const c = (p - train[n].y) * share[n];
      const h = p * (1 - p) * share[n];
      for (let i = 0; i < K; i++) {
        gradient[i] += c * x[i];
        const row = hessian[i];
        for (let j = 0; j <= i; j++) row[j] += h * x[i] * x[j];
      }
    }
    for (let i = 0; i < k; i++) {
      gradient[i] += l2 * w[i];
      hessian[i][i] += l2;
    }
    hessian[k][k] += 1e-9;
    for (let i = 0; i < K; i++) for (let j = 0; j < i; j++) hessian[j][i] = hessian[i][j];
    const step_ = solve(hessian, gradient);
    for (let i = 0; i < K; i++) w[i] -= step_[i];
  }
  return { mean, sd, w: w.slice(0, k), b: w[k] };
}
const linearMargin = ({ mean, sd, w, b }, x) => {
  let z = b;
  for (let i = 0; i < x.length; i++) z += (w[i] * (x[i] - mean[i])) / sd[i];
  return z;
};

/** A tree's value for one input vector (nodes: {input, threshold, left, right} or {value}). */
const treeValue = (node, inputs) => {
  while (node.value === undefined) node = inputs[node.input] < node.threshold ? node.left : node.right;
  return node.value;
};

/**
 * Boosts TREES regression trees on the balanced log loss (Newton leaf values, L2 1 on leaves, at least 2 of balanced
 * hessian per leaf) from the margins `base`, over `inputs` (a row per training row).
 */
function fitTrees(inputs, ys, base) {
  const n = inputs.length;
  const positives = ys.filter((y) => y === 1).length;
  const weight = ys.map((y) => (y === 1 ? n / 2 / positives : n / 2 / (n - positives)));
  const margin = Float64Array.from(base);
  const trees = [];
  const columns = inputs[0].length;
  const order = Array.from({ length: columns }, (_, f) => [...inputs.keys()].sort((a, b) => inputs[a][f] - inputs[b][f]));
  for (let round = 0; round < TREES; round++) {
    const g = new Float64Array(n);
    const h = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const p = 1 / (1 + Math.exp(-margin[i]));
      g[i] = (p - ys[i]) * weight[i];
      h[i] = Math.max(1e-6, p * (1 - p)) * weight[i];
    }
    const build = (member, depth) => {
      let G = 0;
      let H = 0;
      for (let i = 0; i < n; i++) {
        if (!member[i]) continue;
        G += g[i];
        H += h[i];
      }
      const leaf = { value: (-G / (H + 1)) * RATE };
      if (depth === DEPTH) return leaf;
      const parent = (G * G) / (H + 1);
      let best;
      for (let f = 0; f < columns; f++) {
        let gl = 0;
        let hl = 0;
        let previous;
        for (const i of order[f]) {
          if (!member[i]) continue;
          const value = inputs[i][f];
          if (previous !== undefined && value !== previous.value && hl >= 2 && H - hl >= 2) {
            const gain = (gl * gl) / (hl + 1) + ((G - gl) * (G - gl)) / (H - hl + 1) - parent;
            if (best === undefined || gain > best.gain) best = { gain, input: f, threshold: (previous.value + value) / 2 };
          }
          gl += g[i];
          hl += h[i];
          previous = { value };
        }
      }
      if (best === undefined || best.gain <= 0) return leaf;
      const left = member.map((m, i) => m && inputs[i][best.input] < best.threshold);
      const right = member.map((m, i) => m && inputs[i][best.input] >= best.threshold);
      return { input: best.input, threshold: best.threshold, left: build(left, depth + 1), right: build(right, depth + 1) };
    };
    const tree = build(new Array(n).fill(true), 0);
    trees.push(tree);
    for (let i = 0; i < n; i++) margin[i] += treeValue(tree, inputs[i]);
  }
  return trees;
}

/** The whole decision fitted on `train` (judged rows): {linear, trees, score(row)} (score: before the threshold). */
function fitDecision(train) {
  const linear = fitLinear(train);
  if (TREES === 0) return { linear, trees: [], score: (row) => linearMargin(linear, row.x) };
  const base = new Float64Array(train.length);
  for (let fold = 0; fold < FOLDS; fold++) {
    const model = fitLinear(train.filter((_, at) => at % FOLDS !== fold));
    train.forEach((row, at) => {
      if (at % FOLDS === fold) base[at] = linearMargin(model, row.x);
    });
  }
  const trees = fitTrees(
    train.map((row, at) => [base[at], ...row.low]),
    train.map((row) => row.y),
    base,
  );
  const score = (row) => {
    const margin = linearMargin(linear, row.x);
    const inputs = [margin, ...row.low];
    return trees.reduce((z, tree) => z + treeValue(tree, inputs), margin);
  };
  return { linear, trees, score };
}

/** A decision fitted on `fitting` (rows) and its threshold (ANSWERED of its positives answered, out of fold). */
function fitWithThreshold(fitting) {
  const judged = fitting.filter((row) => row.x !== undefined);
  const outOfFold = new Map();
  for (let fold = 0; fold < FOLDS; fold++) {
    const { score } = fitDecision(judged.filter((_, at) => at % FOLDS !== fold));
    judged.forEach((row, at) => {
      if (at % FOLDS === fold) outOfFold.set(row, score(row));
    });
  }
  const scores = fitting
    .filter((row) => row.y === 1)
    .map((row) => valueOf(row, (r) => outOfFold.get(r)))
    .sort((a, b) => a - b);
  const thresholdAt = (answered) => scores[Math.floor((1 - answered) * scores.length)];
  return { ...fitDecision(judged), threshold: thresholdAt(ANSWERED), thresholdAt, outOfFold };
}
const valueOf = (row, score) => (row.none ? -Number.POSITIVE_INFINITY : row.all ? Number.POSITIVE_INFINITY : score(row));

const percent = (x) => `${(100 * x).toFixed(1)} %`;
function rates(set, score, threshold) {
  let answered = 0;
  let positives = 0;
  let abstained = 0;
  let model = 0;
  let modelAnswered = 0;
  for (const row of set) {
    const yes = valueOf(row, score) >= threshold;
    if (row.y === 1) {
      positives++;
      answered += yes ? 1 : 0;
      if (row.kind === 'model') {
        model++;
        modelAnswered += yes ? 1 : 0;
      }
    } else abstained += yes ? 0 : 1;
  }
  return { answered: answered / positives, abstained: abstained / (set.length - positives), model: model > 0 ? modelAnswered / model : Number.NaN };
}
function auc(set, score) {
  const p = set.filter((row) => row.y === 1).map((row) => valueOf(row, score));
  const q = set.filter((row) => row.y === 0).map((row) => valueOf(row, score));
  let c = 0;
  for (const a of p) for (const b of q) c += a > b ? 1 : a === b ? 0.5 : 0;
  return c / p.length / q.length;
}

console.log(
  `fitting sets: ${rows.filter((row) => row.y === 1).length} positives, ${rows.filter((row) => row.y === 0).length} no-fit tasks, L2 ${l2}, ${TREES} trees of depth ${DEPTH}, rate ${RATE}`,
);
/** The share of no-fit tasks abstained at the threshold that keeps 95 % of the positives among `held` answered. */
function abstainedAt95(held, score) {
  const positives = held
    .filter((row) => row.y === 1)
    .map((row) => valueOf(row, score))
    .sort((a, b) => a - b);
  return rates(held, score, positives[Math.floor(0.05 * positives.length)]).abstained;
}

if (args.includes('--cv')) {
  console.log('| held out | AUC | no-fit with no result | positives answered | model-phrased answered | no-fit with no result at 95 % answered |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const means = [0, 0, 0, 0];
  const swept = SWEEP.map(() => []);
  for (const check of CHECKS) {
    setNeighbours(check.slice(0, -1));
    const held = rows.filter((row) => row.set.startsWith(check));
    const decision = fitWithThreshold(rows.filter((row) => !row.set.startsWith(check)));
    const at = rates(held, decision.score, decision.threshold);
    const at95 = abstainedAt95(held, decision.score);
    const area = auc(held, decision.score);
    for (const [i, v] of [area, at.abstained, at.answered, at95].entries()) means[i] += v / CHECKS.length;
    console.log(
      `| ${check.slice(0, -1)} | ${area.toFixed(3)} | ${percent(at.abstained)} | ${percent(at.answered)} | ${percent(at.model)} | ${percent(at95)} |`,
    );
    SWEEP.forEach((answered, i) => swept[i].push({ check, ...rates(held, decision.score, decision.thresholdAt(answered)) }));
  }
  console.log(`| mean | ${means[0].toFixed(4)} | ${percent(means[1])} | ${percent(means[2])} | | ${percent(means[3])} |`);
  for (const [i, answered] of SWEEP.entries()) {
    const list = swept[i];
    const mean = (key) => list.reduce((sum, r) => sum + r[key], 0) / list.length;
    const cells = list.map((r) => `${r.check.slice(0, -1)} ${percent(r.abstained)} / ${percent(r.answered)}`).join(', ');
    console.log(
      `  rule ${answered}: mean no-fit with no result ${percent(mean('abstained'))}, answered ${percent(mean('answered'))}, model ${percent(mean('model'))}; ${cells}`,
    );
  }
}

setNeighbours(undefined);
const decision = fitWithThreshold(rows);
const outOfFold = rates(rows, (row) => decision.outOfFold.get(row), decision.threshold);
const inSample = rates(rows, decision.score, decision.threshold);
console.log(`  out of fold: positives answered ${percent(outOfFold.answered)}, no-fit abstained ${percent(outOfFold.abstained)}`);
console.log(`  in sample:   positives answered ${percent(inSample.answered)}, no-fit abstained ${percent(inSample.abstained)}`);
if (aside.length > 0) {
  const check = rates(aside, decision.score, decision.threshold);
  const at95 = abstainedAt95(aside, decision.score);
  console.log(
    `  kept aside (${ASIDE}): AUC ${auc(aside, decision.score).toFixed(4)}, positives answered ${percent(check.answered)}, no-fit abstained ${percent(check.abstained)}, at 95 % answered ${percent(at95)}`,
  );
}

// Unstandardised: margin = lexical · logit(c) + Σ specific_k · kind_k + Σ weight_i · v_i + bias; z = margin + trees + offset.
const { linear } = decision;
const lexical = linear.w[0] / linear.sd[0];
const specific = [1, 2, 3, 4].map((i) => linear.w[i] / linear.sd[i]);
const weights = Array.from(linear.w.slice(5), (w, i) => w / linear.sd[i + 5]);
let bias = linear.b;
for (let i = 0; i < linear.w.length; i++) bias -= (linear.w[i] * linear.mean[i]) / linear.sd[i];
const offset = logit(MIN_CONFIDENCE) - decision.threshold;
const treeTokens = (node) =>
  node.value !== undefined
    ? ['=', node.value.toPrecision(6)]
    : ['?', String(node.input), node.threshold.toPrecision(8), ...treeTokens(node.left), ...treeTokens(node.right)];
const text = [
  '# The query-domain decision (query-domain.ts, decision-trees.ts): written by bench/blind/fit-domain.mjs, do not edit by hand.',
  `# Fitted on ${POSITIVES.join(', ')} against ${NO_FIT.join(', ')}; L2 ${l2}; ${TREES} trees of depth ${DEPTH}, rate ${RATE}; ${100 * ANSWERED} % of positives answered out of fold.`,
  `lexical ${lexical.toPrecision(6)}`,
  `bias ${bias.toPrecision(6)}`,
  `offset ${offset.toPrecision(6)}`,
  `specific ${specific.map((w) => w.toPrecision(6)).join(' ')}`,
  `weights ${weights.map((w) => w.toPrecision(5)).join(' ')}`,
  ...(decision.trees.length > 0 ? [`inputs ${TREE_INPUTS.join(' ')}`] : []),
  ...decision.trees.map((tree) => `tree ${treeTokens(tree).join(' ')}`),
  '',
].join('\n');
const neighbourText = [
  "# The fitting no-fit tasks' unit word vectors (query-neighbours.ts): written by bench/blind/fit-domain.mjs with query-domain.txt, do not edit by hand.",
  '# Per task: the scale, then the vector as signed bytes in base64.',
  ...neighbourPool.map((row) => row.packed),
  '',
].join('\n');
const remembered = [...weightsWithout(new Set())].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
const rememberedText = [
  "# The fitting no-fit tasks' remembered words (remembered-words.ts): written by bench/blind/fit-domain.mjs with query-domain.txt, do not edit by hand.",
  `# Per search term (not a number) held by at least ${MEMORY_MIN} ${MEMORY_ALL ? '' : 'everyday or off-domain '}no-fit tasks: ln of its share of them over its share of the positives (each count + ${MEMORY_ALPHA}), when above 0.`,
  ...remembered.map(([term, weight]) => `${term} ${weight.toPrecision(4)}`),
  '',
].join('\n');
if (!args.includes('--dry-run')) {
  writeFileSync(join(repo, 'packages/search/src/scoring/query-domain.txt'), text);
  writeFileSync(join(repo, 'packages/search/src/scoring/query-neighbours.txt'), neighbourText);
  writeFileSync(join(repo, 'packages/search/src/scoring/remembered-words.txt'), rememberedText);
}
console.log(text.split('\n').slice(2, 6).join('\n'));
