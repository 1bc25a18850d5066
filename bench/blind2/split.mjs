#!/usr/bin/env node
// Assigns (or, with --check, verifies) the dev/holdout split of bench/blind2/queries.json
// (or of another query set in the same format, with --file; bench/blind3/split.mjs uses it).
// Stratified by kind: within each kind, the queries (in id order) are shuffled with a seeded
// PRNG (mulberry32, seed in the file's "seed" field) and the first round(40%) become "dev",
// the rest "holdout". Deterministic: same file + same seed -> same split.
// Usage: node bench/blind2/split.mjs [--file QUERIES.json] [--check]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const fileArg = process.argv.indexOf('--file');
const file =
  fileArg >= 0 && process.argv[fileArg + 1] ? path.resolve(process.argv[fileArg + 1]) : path.join(path.dirname(fileURLToPath(import.meta.url)), 'queries.json');
const check = process.argv.includes('--check');
const data = JSON.parse(fs.readFileSync(file, 'utf8'));
const seed = data.seed;
if (!Number.isInteger(seed)) throw new Error('queries.json needs an integer "seed"');
function mulberry32(s) {
  return () => {
    s |= 0;
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(seed);
const want = new Map();
for (const kind of ['paraphrase', 'indirect', 'terse', 'near-duplicate']) {
  const group = data.queries.filter((q) => q.kind === kind).sort((a, b) => a.id.localeCompare(b.id));
  const idx = group.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  const nDev = Math.round(group.length * 0.4);
  idx.forEach((gi, k) => want.set(group[gi].id, k < nDev ? 'dev' : 'holdout'));
}
let diff = 0;
for (const q of data.queries) {
  if (q.split !== want.get(q.id)) diff++;
  if (!check) q.split = want.get(q.id);
}
if (check) {
  console.log(diff === 0 ? 'split OK' : `split differs from the seeded assignment for ${diff} queries`);
  process.exit(diff === 0 ? 0 : 1);
}
fs.writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
const n = (s) => data.queries.filter((q) => q.split === s).length;
console.log(`wrote splits: dev=${n('dev')} holdout=${n('holdout')}`);
