#!/usr/bin/env node
// Builds a large skill catalog from the corpus for benchmarks: COUNT skills made of repeated copies of the corpus,
// each copy under its own top folder (copy-00/, copy-01/, ...), every .md file given a distinct trailing line so
// that copies do not share digests (no cache can serve one copy from another's bytes).
// Usage: node bench/generate-catalog.mjs [--count 10000] [--from ../shared/corpus/skills] [--out bench/.data/catalog-10000]
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync, utimesSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { options } from './args.mjs';

const flags = options();
const option = (name, fallback) => flags.value(name, fallback);
const repo = resolve(import.meta.dirname, '..');
// Its real path: a catalog made from one worktree is reused from another (the marker below names the source).
const from = realpathSync(resolve(option('from', join(repo, '../shared/corpus/skills'))));
const count = Number(option('count', '10000'));
const out = resolve(option('out', join(repo, `bench/.data/catalog-${count}`)));

export function skillDirs(root) {
  const found = [];
  const walk = (dir, rel) => {
    const names = readdirSync(dir);
    if (names.includes('SKILL.md')) found.push(rel);
    for (const name of names) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path, rel ? `${rel}/${name}` : name);
    }
  };
  walk(root, '');
  return found;
}

const marker = join(out, '.complete');
if (existsSync(marker) && readFileSync(marker, 'utf8') === `${from}\n${count}\n`) {
  process.stderr.write(`${out}: already generated\n`);
  process.stdout.write(`${out}\n`);
  process.exit(0);
}
rmSync(out, { recursive: true, force: true });
// The corpus is walked once (walking it again per skill made a 100,000-skill catalog start with minutes of walks).
const all = skillDirs(from);
const sources = all.filter((rel) => !all.some((other) => other !== rel && rel.startsWith(`${other}/`)));
let made = 0;
for (let copy = 0; made < count; copy++) {
  const top = join(out, `copy-${String(copy).padStart(2, '0')}`);
  for (const rel of sources) {
    if (made >= count) break;
    const target = join(top, rel);
    mkdirSync(join(target, '..'), { recursive: true });
    cpSync(join(from, rel), target, { recursive: true });
    const mark = (dir) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) mark(path);
        else if (name.endsWith('.md')) writeFileSync(path, `${readFileSync(path, 'utf8')}\n<!-- catalog copy ${copy} -->\n`);
      }
    };
    mark(target);
    made += skillDirs(target).length;
  }
  process.stderr.write(`\rgenerating: ${made}/${count} skills`);
}
// Age the files so digest caches may trust their timestamps (files modified in the last second are re-hashed).
const past = new Date(Date.now() - 60_000);
const age = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) age(path);
    else utimesSync(path, past, past);
  }
};
age(out);
writeFileSync(marker, `${from}\n${count}\n`);
process.stderr.write('\n');
process.stdout.write(`${out}\n`);
