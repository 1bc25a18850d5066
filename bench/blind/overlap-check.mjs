#!/usr/bin/env node
// Overlap check for the blind search query set (issue 15, item 1).
//
// Rule (exact):
//   content words of a text = the text lowercased, split on every non-letter
//   character (a-z only; digits, punctuation, hyphens, dots all split), keeping
//   tokens of length >= 3 that are not in STOP_WORDS below, each passed through
//   stem() below, as a set.
//   skill words   = content words of (frontmatter `name` + " " + frontmatter `description`).
//                   Where several corpus folders share one `name`, the union of
//                   all their descriptions is used (strictest reading).
//   overlap(q, s) = |content(q) ∩ skillwords(s)| / |content(q)|
//   A query passes when, for EVERY skill in its `expected` list, overlap <= 0.25,
//   every expected name exists in the corpus, and content(q) is not empty.
//
// stem(w), applied in order:
//   1. -ies -> -y (when the word is longer than 4); -sses -> -ss;
//      -xes/-ches/-shes/-zes -> drop "es"; otherwise a final -s (not -ss, -us, -is)
//      is dropped when the word is longer than 3.
//   2. -ing is dropped when at least 3 letters remain; -ed is dropped when at
//      least 3 letters remain; then a doubled final consonant (other than l, s, z)
//      is undoubled (running -> run, mapped -> map).
//   3. a final -e is dropped when at least 3 letters remain (create/created/creating -> creat).
//
// Usage:
//   node bench/blind/overlap-check.mjs [--corpus DIR] [query files...]
//   node bench/blind/overlap-check.mjs --probe "some query" skill-name [...]
// Defaults: corpus ../shared/corpus (relative to the repo root) or $SKILLPORT_CORPUS,
// files bench/blind/queries-dev.json and bench/blind/queries-holdout.json.
// Exits 1 if any query exceeds 25 %, names a missing skill, or is malformed.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const LIMIT = 0.25;
const KINDS = new Set(['paraphrase', 'indirect', 'terse', 'near-duplicate']);

// Standard English stop words (the NLTK English list, plus a few contractions' parts).
export const STOP_WORDS = new Set(
  `
a about above after again against ain all am an and any are aren arent as at be because been before being below
between both but by can couldn couldnt d did didn didnt do does doesn doesnt doing don dont down during each few for
from further had hadn hadnt has hasn hasnt have haven havent having he her here hers herself him himself his how i
if in into is isn isnt it its itself just ll m ma me mightn mightnt more most mustn mustnt my myself needn neednt no
nor not now o of off on once only or other our ours ourselves out over own re s same shan shant she shes should
shouldve shouldn shouldnt so some such t than that thatll the their theirs them themselves then there these they
this those through to too under until up ve very was wasn wasnt we were weren werent what when where which while
who whom why will with won wont wouldn wouldnt y you youd youll youre youve your yours yourself yourselves
`
    .split(/\s+/)
    .filter(Boolean),
);

export function stem(w) {
  if (w.length > 4 && w.endsWith('ies')) w = w.slice(0, -3) + 'y';
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(x|ch|sh|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  let cut = false;
  if (w.endsWith('ing') && w.length - 3 >= 3) {
    w = w.slice(0, -3);
    cut = true;
  } else if (w.endsWith('ed') && w.length - 2 >= 3) {
    w = w.slice(0, -2);
    cut = true;
  }
  if (cut && /([^aeiouylsz])\1$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('e') && w.length - 1 >= 3) w = w.slice(0, -1);
  return w;
}

export function contentWords(text) {
  const out = new Set();
  for (const tok of String(text)
    .toLowerCase()
    .split(/[^a-z]+/)) {
    if (tok.length < 3 || STOP_WORDS.has(tok)) continue;
    out.add(stem(tok));
  }
  return out;
}

function findSkillFiles(dir, acc = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) findSkillFiles(p, acc);
    else if (e.name === 'SKILL.md') acc.push(p);
  }
  return acc;
}

export function loadCorpus(corpusDir) {
  const skillsDir = path.join(corpusDir, 'skills');
  const byName = new Map(); // name -> { words:Set, folders:[] }
  for (const file of findSkillFiles(skillsDir)) {
    const text = fs.readFileSync(file, 'utf8');
    const m = text.match(/^---\r?\n([\s\S]*?)\r?\n---/);
    if (!m) continue;
    let fm;
    try {
      fm = YAML.parse(m[1]);
    } catch {
      continue;
    }
    if (!fm || typeof fm.name !== 'string') continue;
    const entry = byName.get(fm.name) ?? { words: new Set(), folders: [] };
    for (const w of contentWords(`${fm.name} ${fm.description ?? ''}`)) entry.words.add(w);
    entry.folders.push(path.relative(skillsDir, path.dirname(file)));
    byName.set(fm.name, entry);
  }
  return byName;
}

export function overlap(query, entry) {
  const q = contentWords(query);
  const shared = [...q].filter((w) => entry.words.has(w));
  return { ratio: q.size ? shared.length / q.size : 1, shared, size: q.size };
}

function main() {
  const args = process.argv.slice(2);
  let corpus = process.env.SKILLPORT_CORPUS || path.resolve(repoRoot, '..', 'shared', 'corpus');
  const ci = args.indexOf('--corpus');
  if (ci >= 0) {
    corpus = path.resolve(args[ci + 1]);
    args.splice(ci, 2);
  }
  if (!fs.existsSync(path.join(corpus, 'skills'))) {
    console.error(`no corpus at ${corpus} (pass --corpus DIR: the folder holding skills/)`);
    process.exit(2);
  }
  const skills = loadCorpus(corpus);

  if (args[0] === '--probe') {
    const [, q, ...names] = args;
    console.log('content words:', [...contentWords(q)].join(' '));
    for (const n of names) {
      const e = skills.get(n);
      if (!e) {
        console.log(`${n}: MISSING`);
        continue;
      }
      const o = overlap(q, e);
      console.log(`${n}: ${(o.ratio * 100).toFixed(0)}% shared=[${o.shared.join(' ')}]`);
    }
    return;
  }

  const files = args.length ? args : ['queries-dev.json', 'queries-holdout.json'].map((f) => path.join(here, f));
  const problems = [];
  const ratios = [];
  const kinds = {};
  const covered = new Set();
  const ids = new Set();
  let n = 0;
  for (const f of files) {
    const list = JSON.parse(fs.readFileSync(f, 'utf8'));
    for (const q of list) {
      n++;
      const tag = `${path.basename(f)}:${q.id}`;
      if (!q.id || typeof q.query !== 'string' || !Array.isArray(q.expected) || !q.expected.length) {
        problems.push(`${tag}: malformed`);
        continue;
      }
      if (ids.has(q.id)) problems.push(`${tag}: duplicate id`);
      ids.add(q.id);
      if (!KINDS.has(q.kind)) problems.push(`${tag}: bad kind ${q.kind}`);
      kinds[q.kind] = (kinds[q.kind] || 0) + 1;
      if (contentWords(q.query).size === 0) problems.push(`${tag}: no content words`);
      let worst = 0;
      for (const name of q.expected) {
        const e = skills.get(name);
        if (!e) {
          problems.push(`${tag}: unknown skill "${name}"`);
          continue;
        }
        covered.add(name);
        const o = overlap(q.query, e);
        worst = Math.max(worst, o.ratio);
        if (o.ratio > LIMIT) problems.push(`${tag}: ${(o.ratio * 100).toFixed(0)}% with ${name} [${o.shared.join(' ')}] "${q.query}"`);
      }
      ratios.push(worst);
    }
  }
  ratios.sort((a, b) => a - b);
  const mean = ratios.reduce((a, b) => a + b, 0) / (ratios.length || 1);
  const pct = (p) => (ratios.length ? ratios[Math.min(ratios.length - 1, Math.floor(p * ratios.length))] : 0);
  console.log(`corpus: ${corpus} (${skills.size} distinct names)`);
  console.log(`queries: ${n} in ${files.length} file(s); kinds: ${JSON.stringify(kinds)}`);
  console.log(`distinct expected skills: ${covered.size}`);
  console.log(
    `overlap (worst expected skill per query): mean ${(mean * 100).toFixed(1)}%, median ${(pct(0.5) * 100).toFixed(0)}%, p90 ${(pct(0.9) * 100).toFixed(0)}%, max ${(pct(1) * 100).toFixed(0)}%, zero-overlap ${ratios.filter((r) => r === 0).length}`,
  );
  if (problems.length) {
    console.log(`\n${problems.length} problem(s):`);
    for (const p of problems) console.log('  ' + p);
    process.exit(1);
  }
  console.log('OK: every query is within 25 % and every expected skill exists.');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
