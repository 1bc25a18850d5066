// Word rules and frontmatter parser copied unchanged from bench/blind2/overlap-check.mjs (the checker).
import fs from 'node:fs';
import path from 'node:path';
export const corpusDir = '/work/shared/corpus/skills';
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
export function loadSkills() {
  const skills = [];
  (function walk(d) {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'SKILL.md') {
        const text = fs.readFileSync(p, 'utf8');
        const fm = parseFrontmatter(text);
        skills.push({ folder: path.relative(corpusDir, d).split(path.sep).join('/'), name: fm.name || '', description: fm.description || '', body: text });
      }
    }
  })(corpusDir);
  return skills;
}
export function resolver(skills) {
  const byName = new Map();
  for (const s of skills) byName.set(s.name, [...(byName.get(s.name) || []), s]);
  const byFolder = new Map(skills.map((s) => [s.folder, s]));
  return (ex) => {
    const f = byFolder.get(ex);
    if (f) return { s: f };
    const h = byName.get(ex) || [];
    if (h.length === 1) return { s: h[0] };
    return { err: h.length ? `ambiguous ${ex}` : `missing ${ex}` };
  };
}
export const skillWords = (s) => contentWords(`${s.name} ${s.name.replace(/[-_/]/g, ' ')} ${s.description}`);
