// nf.txt -> ../no-fit.json (shuffled, seed 130912). Line: kind | phrasing | terms | closest | why_not | query
import fs from 'node:fs';
const SEED = 130912;
let a = SEED;
const rnd = () => { a |= 0; a = (a + 0x6d2b79f5) | 0; let t = Math.imul(a ^ (a >>> 15), 1 | a); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
const KIND = { everyday: 'everyday', offdomain: 'off-domain', nearmiss: 'near-miss' };
const rows = fs.readFileSync('nf.txt', 'utf8').split('\n').filter((l) => l.trim()).map((l) => {
  const [k, ph, , closest, why, ...rest] = l.split('|').map((x) => x.trim());
  const r = { query: rest.join('|').trim(), kind: KIND[k.trim()], phrasing: ph.trim() };
  if (r.kind === 'near-miss') r.closest = { skill: closest.trim(), why_not: why.trim() };
  return r;
});
for (let i = rows.length - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [rows[i], rows[j]] = [rows[j], rows[i]]; }
const queries = rows.map((r, i) => ({ id: `nf13-${String(i + 1).padStart(3, '0')}`, query: r.query, kind: r.kind, phrasing: r.phrasing, split: 'holdout', ...(r.closest ? { closest: r.closest } : {}) }));
fs.writeFileSync('../no-fit.json', JSON.stringify({ description: 'No-fit set 13 (helper blind13, session 18, 2026-12-03): tasks that no skill in the corpus serves; everyday, off-domain and near-miss (closest skill named). Every task is holdout. See README.md.', seed: SEED, queries }, null, 2) + '\n');
const c = {}; for (const q of queries) c[`${q.kind}/${q.phrasing}`] = (c[`${q.kind}/${q.phrasing}`] || 0) + 1;
const lens = queries.map((q) => q.query.split(/\s+/).length).sort((x, y) => x - y);
console.log(queries.length, c, 'len', lens[0], lens[lens.length >> 1], lens[lens.length - 1]);
