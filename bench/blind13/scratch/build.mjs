// pos.txt -> ../queries.json, shuffled with a seeded PRNG (mulberry32)
import fs from 'node:fs';
const SEED = 130911;
let a = SEED;
const rnd = () => { a |= 0; a = (a + 0x6d2b79f5) | 0; let t = Math.imul(a ^ (a >>> 15), 1 | a); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
const rows = fs.readFileSync('pos.txt', 'utf8').split('\n').filter((l) => l.trim()).map((l) => {
  const [kind, exp, , ...rest] = l.split(' | ');
  return { query: rest.join(' | ').trim(), kind: kind.trim(), expected: exp.split(',').map((x) => x.trim()) };
});
for (let i = rows.length - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [rows[i], rows[j]] = [rows[j], rows[i]]; }
const queries = rows.map((r, i) => ({ id: `b13-${String(i + 1).padStart(3, '0')}`, query: r.query, kind: r.kind, expected: r.expected, split: 'holdout' }));
const out = { description: 'Blind query set 13 (helper blind13, session 18, 2026-12-03): positive queries written blind from the corpus; user-worded kinds (paraphrase, indirect, terse, near-duplicate) and model-phrased queries (kind model). Every query is holdout. See README.md.', seed: SEED, queries };
fs.writeFileSync('../queries.json', JSON.stringify(out, null, 2) + '\n');
const c = {}; for (const q of queries) c[q.kind] = (c[q.kind] || 0) + 1;
console.log(queries.length, c);
