import fs from 'node:fs';
import { loadSkills, resolver } from './words.mjs';
const res = resolver(loadSkills());
const qs = JSON.parse(fs.readFileSync('../queries.json', 'utf8')).queries;
const groups = { 'user-worded': qs.filter((q) => q.kind !== 'model'), model: qs.filter((q) => q.kind === 'model'), all: qs };
for (const [g, a] of Object.entries(groups)) {
  const ex = new Set(a.flatMap((q) => q.expected.map((e) => res(e).s.folder)));
  const lens = a.map((q) => q.query.split(/\s+/).length).sort((x, y) => x - y);
  const terse = a.filter((q) => q.kind === 'terse').map((q) => q.query.split(/\s+/).length);
  console.log(g, a.length, 'distinct', ex.size, 'mean', (a.reduce((s, q) => s + q.expected.length, 0) / a.length).toFixed(2), 'one', a.filter((q) => q.expected.length === 1).length,
    'len', lens[0], lens[lens.length >> 1], lens[lens.length - 1], terse.length ? `terse ${Math.min(...terse)}-${Math.max(...terse)}` : '', 'questions', a.filter((q) => q.query.includes('?')).length);
}
const all = new Set(qs.flatMap((q) => q.expected.map((e) => res(e).s.folder)));
const src = {}; for (const f of all) { const s = f.split('/')[0]; src[s] = (src[s] || 0) + 1; }
const tot = {}; for (const s of loadSkills()) { const k = s.folder.split('/')[0]; tot[k] = (tot[k] || 0) + 1; }
for (const [s, n] of Object.entries(src).sort((a, b) => b[1] - a[1])) console.log(s, n, `(${Math.round((tot[s] * all.size) / 725)})`);
const kinds = {}; for (const q of qs) { kinds[q.kind] = kinds[q.kind] || [0, 0]; kinds[q.kind][0]++; if (q.expected.length > 1) kinds[q.kind][1]++; }
console.log(kinds);
const readme = fs.readFileSync('/work/main/bench/blind12/README.md', 'utf8') + fs.readFileSync('/work/main/bench/blind11/README.md', 'utf8');
const flagged = [...new Set(qs.flatMap((q) => q.expected))].filter((e) => { const n = res(e).s.name; return new RegExp(`(^|[^a-z0-9-])${n.replace(/[^a-z0-9]/gi, (c) => '\\' + c)}($|[^a-z0-9-])`, 'i').test(readme); });
console.log('expected named in blind11/12 READMEs:', flagged.join(', '));
