#!/usr/bin/env node
// Splits a combined blind query list into queries-dev.json (~40 %) and
// queries-holdout.json (~60 %), stratified by `kind`, with a fixed seed so
// the split is reproducible:  node bench/blind/split.mjs all-queries.json
// (The combined list was only a working file and is not kept in the repo.)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SEED = 15; // issue number
const DEV_SHARE = 0.4;
const here = path.dirname(fileURLToPath(import.meta.url));

function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const all = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const rand = mulberry32(SEED);
const dev = [],
  holdout = [];
for (const kind of [...new Set(all.map((q) => q.kind))].sort()) {
  const group = all.filter((q) => q.kind === kind);
  for (let i = group.length - 1; i > 0; i--) {
    // Fisher-Yates
    const j = Math.floor(rand() * (i + 1));
    [group[i], group[j]] = [group[j], group[i]];
  }
  const nDev = Math.round(group.length * DEV_SHARE);
  dev.push(...group.slice(0, nDev));
  holdout.push(...group.slice(nDev));
}
const byId = (a, b) => a.id.localeCompare(b.id);
const write = (f, list) => fs.writeFileSync(path.join(here, f), JSON.stringify(list.sort(byId), null, 2) + '\n');
write('queries-dev.json', dev);
write('queries-holdout.json', holdout);
console.log(`dev ${dev.length}, holdout ${holdout.length}`);
