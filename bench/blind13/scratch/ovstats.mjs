import fs from 'node:fs';
const kind = Object.fromEntries(JSON.parse(fs.readFileSync('../queries.json', 'utf8')).queries.map((q) => [q.id, q.kind]));
const rows = [];
for (const l of fs.readFileSync('overlap-verbose.txt', 'utf8').split('\n')) { const m = l.match(/^(ok  |FAIL) (b13-\d+) \S+\s+\S+\s+ratio ([\d.]+)/); if (m) rows.push({ id: m[2], r: +m[3], fail: m[1] === 'FAIL', k: kind[m[2]] }); }
const show = (label, a) => { const r = a.map((x) => x.r).sort((x, y) => x - y); console.log(`| ${label.padEnd(20)} | ${String(a.length).padStart(7)} | ${(r.reduce((s, x) => s + x, 0) / r.length).toFixed(3)} | ${r[r.length >> 1].toFixed(3)} | ${r[r.length - 1].toFixed(3)} | ${String(r.filter((x) => x === 0).length).padStart(3)} | ${String(a.filter((x) => x.fail).length).padStart(3)} |`); };
for (const k of ['paraphrase', 'indirect', 'terse', 'near-duplicate']) show(k, rows.filter((x) => x.k === k));
show('user-worded, all', rows.filter((x) => x.k !== 'model'));
show('model (not limited)', rows.filter((x) => x.k === 'model'));
