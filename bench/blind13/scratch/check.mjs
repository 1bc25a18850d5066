// node check.mjs rounds/rN.txt [-a]: lines "kind | expected,expected | pattern | query"
import fs from 'node:fs';
import { loadSkills, resolver, contentWords, skillWords } from './words.mjs';
const [file, flag] = process.argv.slice(2);
const sk = loadSkills();
const res = resolver(sk);
const KINDS = new Set(['paraphrase', 'indirect', 'terse', 'near-duplicate', 'model']);
let pass = 0, fail = 0;
const passLines = [];
for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
  if (!line.trim() || line.startsWith('#')) continue;
  const [kind, exp, pat, ...rest] = line.split(' | ');
  const query = rest.join(' | ').trim();
  const errs = [];
  if (!KINDS.has(kind.trim())) errs.push('kind');
  const ex = exp.split(',').map((x) => x.trim()).filter(Boolean);
  const qw = contentWords(query);
  let worst = { r: 0, sh: [], ex: '' };
  const re = new RegExp(pat.trim().replace(/[.*+?^${}()[\]\\]/g, '\\$&'), 'i');
  for (const e of ex) {
    const r = res(e);
    if (r.err) { errs.push(r.err); continue; }
    if (!re.test(r.s.body)) errs.push(`pattern not in ${e}`);
    const sw = skillWords(r.s);
    const sh = [...qw].filter((w) => sw.has(w));
    const ratio = qw.size ? sh.length / qw.size : 0;
    if (ratio >= worst.r) worst = { r: ratio, sh, ex: e };
  }
  if (kind.trim() === 'near-duplicate' && ex.length < 2) errs.push('nd<2');
  const nw = query.split(/\s+/).length;
  if (kind.trim() === 'terse' && (nw < 4 || nw > 7)) errs.push(`terse ${nw} words`);
  if (kind.trim() !== 'model' && worst.r > 0.25 + 1e-9) errs.push(`overlap ${worst.r.toFixed(3)} [${worst.sh.join(' ')}] vs ${worst.ex}`);
  const ok = errs.length === 0;
  ok ? pass++ : fail++;
  if (ok) passLines.push(line);
  let alt = '';
  if (flag === '-a') {
    const others = sk.filter((s) => re.test(s.body) && !ex.includes(s.name) && !ex.includes(s.folder));
    alt = `\n      alts(${others.length}): ${others.slice(0, 12).map((s) => s.name).join(', ')}`;
  }
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${worst.r.toFixed(2)} ${kind.trim().padEnd(14)} ${ex.join(',')} :: ${query}${errs.length ? '\n      ' + errs.join('; ') : ''}${alt}`);
}
fs.writeFileSync(file.replace(/\.txt$/, '.pass'), passLines.join('\n') + (passLines.length ? '\n' : ''));
console.log(`pass ${pass} fail ${fail}`);
