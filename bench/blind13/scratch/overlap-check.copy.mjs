#!/usr/bin/env node
// Overlap check for the blind2 query set (issue 15, item 1).
//
// For every query, count how many of its content words also occur in the
// name + description (YAML frontmatter) of each expected skill, and fail when
// any query shares more than a quarter of its content words with any of its
// expected skills.
//
//   ratio = |content(query) ∩ content(name + description)| / |content(query)|
//
// content(): lowercase, split on anything that is not a letter or digit, drop
// stopwords and one-letter tokens, then a light stemmer (plural/-ing/-ed and a
// trailing "e"), then de-duplicate. The check is deliberately on the query's
// side: a long description does not dilute it.
//
// Also validates the file: ids, kinds, splits, that every expected entry
// resolves to exactly one skill in the corpus (a frontmatter name, or for names
// that collide, the folder path relative to corpus/skills).
//
// Usage: node bench/blind2/overlap-check.mjs [--corpus DIR] [--queries FILE] [--id-prefix b2] [--quiet]
// --id-prefix: the ids must read <prefix>-NNN (default b2; the blind3 set passes b3).
// Exit status: 0 when every query is at or under the limit, 1 otherwise.
// No dependencies; does not touch any search or ranking code.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LIMIT = 0.25;
const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
};
const quiet = args.includes('--quiet');
const idPrefix = opt('--id-prefix', 'b2');
const idPattern = new RegExp(`^${idPrefix.replace(/[^A-Za-z0-9_]/g, '')}-\\d{3}$`);
const queriesFile = path.resolve(opt('--queries', path.join(here, 'queries.json')));
// The corpus: --corpus DIR, or ../shared/corpus/skills beside the repository; never a path of one machine.
const corpusCandidates = [opt('--corpus', process.env.SKILLPORT_CORPUS || ''), path.resolve(here, '../../../shared/corpus/skills')].filter(Boolean);
const corpusDir = corpusCandidates.find((d) => fs.existsSync(d));
if (!corpusDir) {
  console.error(`corpus not found; tried: ${corpusCandidates.join(', ')} (pass --corpus DIR)`);
  process.exit(2);
}

// ---- stopwords (English function words + pronouns + a few fillers) ----
const STOP = new Set(
  `
a about above after again against all am an and any are aren as at be because been before being below between both
but by can cannot could couldn did didn do does doesn doing don down during each few for from further had hadn has
hasn have haven having he her here hers herself him himself his how i if in into is isn it its itself just let ll
me more most mustn my myself no nor not now of off on once only or other ought our ours ourselves out over own re
same shan she should shouldn so some such than that the their theirs them themselves then there these they this
those through to too under until up very was wasn we were weren what when where which while who whom why will with
won would wouldn you your yours yourself yourselves ve d m s t also get got into onto via vs etc e g i.e eg ie
can't i'm it's don't want wants need needs needed like please thing things something anything every really still
lot lots one ones way maybe even much many us okay ok going
`
    .split(/\s+/)
    .filter(Boolean),
);

function stem(w) {
  if (/^\d+$/.test(w)) return w;
  if (w.length > 4 && w.endsWith('ies')) w = w.slice(0, -3) + 'y';
  else if (w.length > 5 && w.endsWith('ing')) {
    w = w.slice(0, -3);
    if (/([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  } else if (w.length > 4 && w.endsWith('ed')) {
    w = w.slice(0, -2);
    if (/([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  } else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}
export function contentWords(text) {
  const out = new Set();
  for (const raw of String(text)
    .toLowerCase()
    .replace(/['’]/g, '')
    .split(/[^a-z0-9]+/)) {
    if (!raw || raw.length < 2 || STOP.has(raw)) continue;
    out.add(stem(raw));
  }
  return out;
}

// ---- corpus: frontmatter name + description of every SKILL.md ----
function parseFrontmatter(text) {
  const m = text.match(/^---\r?\n([\s\S]*?)\r?\n---/);
  if (!m) return {};
  const lines = m[1].split(/\r?\n/);
  const o = {};
  for (let i = 0; i < lines.length; i++) {
    const km = lines[i].match(/^([A-Za-z_-]+):\s*(.*)$/);
    if (!km) continue;
    let v = km[2];
    if (/^[>|][-+]?\s*$/.test(v)) {
      const buf = [];
      while (i + 1 < lines.length && (/^\s/.test(lines[i + 1]) || lines[i + 1] === '')) buf.push(lines[++i].trim());
      v = buf.join(' ');
    } else {
      while (i + 1 < lines.length && /^\s+\S/.test(lines[i + 1])) v += ` ${lines[++i].trim()}`;
    }
    v = v.trim();
    if (/^(["']).*\1$/.test(v)) v = v.slice(1, -1);
    o[km[1]] = v.replace(/\s+/g, ' ').trim();
  }
  return o;
}
const skills = [];
(function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name === 'SKILL.md') {
      const fm = parseFrontmatter(fs.readFileSync(p, 'utf8'));
      skills.push({ folder: path.relative(corpusDir, d).split(path.sep).join('/'), name: fm.name || '', description: fm.description || '' });
    }
  }
})(corpusDir);
const byName = new Map();
for (const s of skills) byName.set(s.name, [...(byName.get(s.name) || []), s]);
const byFolder = new Map(skills.map((s) => [s.folder, s]));

// ---- queries ----
const data = JSON.parse(fs.readFileSync(queriesFile, 'utf8'));
const queries = Array.isArray(data) ? data : data.queries;
const KINDS = new Set(['paraphrase', 'indirect', 'terse', 'near-duplicate']);
const SPLITS = new Set(['dev', 'holdout']);
const problems = [];
const ids = new Set();
const rows = [];
for (const q of queries) {
  if (!idPattern.test(q.id || '')) problems.push(`${q.id}: bad id`);
  if (ids.has(q.id)) problems.push(`${q.id}: duplicate id`);
  ids.add(q.id);
  if (!KINDS.has(q.kind)) problems.push(`${q.id}: bad kind ${q.kind}`);
  if (!SPLITS.has(q.split)) problems.push(`${q.id}: bad split ${q.split}`);
  if (!Array.isArray(q.expected) || q.expected.length === 0) problems.push(`${q.id}: no expected`);
  if (q.kind === 'near-duplicate' && (q.expected || []).length < 2) problems.push(`${q.id}: near-duplicate needs 2+ expected`);
  const qw = contentWords(q.query);
  if (qw.size === 0) problems.push(`${q.id}: no content words`);
  let worst = { ratio: 0, shared: [], skill: '' };
  for (const ex of q.expected || []) {
    let s = byFolder.get(ex);
    if (!s) {
      const hits = byName.get(ex) || [];
      if (hits.length === 0) {
        problems.push(`${q.id}: expected "${ex}" not in corpus`);
        continue;
      }
      if (hits.length > 1) {
        problems.push(`${q.id}: expected "${ex}" is ambiguous (${hits.map((h) => h.folder).join(', ')}); use the folder path`);
        continue;
      }
      s = hits[0];
    }
    const sw = contentWords(`${s.name} ${s.name.replace(/[-_/]/g, ' ')} ${s.description}`);
    const shared = [...qw].filter((w) => sw.has(w));
    const ratio = qw.size ? shared.length / qw.size : 0;
    if (ratio >= worst.ratio) worst = { ratio, shared, skill: ex };
  }
  rows.push({ id: q.id, kind: q.kind, split: q.split, words: qw.size, ...worst });
}

let over = 0;
for (const r of rows) {
  const bad = r.ratio > LIMIT + 1e-9;
  if (bad) over++;
  if (!quiet || bad) {
    console.log(
      `${bad ? 'FAIL' : 'ok  '} ${r.id} ${r.kind.padEnd(14)} ${r.split.padEnd(7)} ratio ${r.ratio.toFixed(3)} (${r.shared.length}/${r.words}) vs ${r.skill}${r.shared.length ? ` shared: ${r.shared.join(' ')}` : ''}`,
    );
  }
}
const ratios = rows.map((r) => r.ratio).sort((a, b) => a - b);
const mean = ratios.reduce((a, b) => a + b, 0) / (ratios.length || 1);
const count = (k, v) => rows.filter((r) => r[k] === v).length;
console.log('');
console.log(`corpus: ${skills.length} skills from ${corpusDir}`);
console.log(
  `queries: ${rows.length}  kinds: ${[...KINDS].map((k) => `${k}=${count('kind', k)}`).join(' ')}  splits: dev=${count('split', 'dev')} holdout=${count('split', 'holdout')}`,
);
console.log(
  `overlap ratio (worst expected skill per query): mean ${mean.toFixed(3)}, median ${(ratios[Math.floor(ratios.length / 2)] || 0).toFixed(3)}, max ${(ratios[ratios.length - 1] || 0).toFixed(3)}, zero-overlap queries ${ratios.filter((r) => r === 0).length}`,
);
console.log(`limit ${LIMIT}: ${over} over the limit`);
for (const p of problems) console.log(`PROBLEM ${p}`);
if (over > 0 || problems.length > 0) {
  console.log('RESULT: FAIL');
  process.exit(1);
}
console.log('RESULT: PASS');
