#!/usr/bin/env node
// bench/merge-after-restore: the CPU of the search index's first merge after a restore from its file, when the merge
// drops terms (removed skills held words no other skill has) and so writes every term list again: for two or more
// builds in one run, rounds alternating. Each round builds COUNT synthetic documents, encodes and decodes the index,
// removes every 10th document (each with a word of its own), and times `compact()` in process.cpuUsage (this thread).
// Prints the median per build and the first build's ratio to each other one.
// Usage: node bench/merge-after-restore.mjs COUNT ROUNDS ROOT ROOT…   e.g. node bench/merge-after-restore.mjs 20000 5 . /work/base
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [countText, roundsText, ...roots] = process.argv.slice(2);
const count = Number(countText ?? 20000);
const rounds = Number(roundsText ?? 5);
const WORDS =
  'deploy kubernetes containers docker pdf forms report charts data database test bash script slack gif webapp postgres query tuning index search image review code migrate'.split(
    ' ',
  );

function documents() {
  let state = 7;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
  return Array.from({ length: count }, (_, at) => ({
    id: `skill://s${at}/SKILL.md`,
    name: `s${at}-${words(1)}`,
    description: `${words(8)}${at % 10 === 0 ? ` own${at}word` : ''}`,
    headings: [words(2)],
    body: words(60),
  }));
}

const builds = await Promise.all(
  (roots.length > 0 ? roots : ['.']).map(async (root) => ({
    root,
    search: await import(pathToFileURL(join(resolve(root), 'packages/search/dist/src/index.js')).href),
    cpu: [],
  })),
);
const docs = documents();
const options = { wordVectors: false, minMergeRows: 1_000_000_000 };
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const build of order) {
    const { SkillSearchIndex, encodeIndex, decodeIndex } = build.search;
    const built = new SkillSearchIndex(docs, options);
    const index = decodeIndex(Buffer.concat(encodeIndex(built, () => '')), options).index;
    for (let at = 0; at < count; at += 10) index.remove(`skill://s${at}/SKILL.md`);
    globalThis.gc?.();
    const before = process.cpuUsage();
    index.compact();
    const used = process.cpuUsage(before);
    build.cpu.push((used.user + used.system) / 1000);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const build of builds)
  console.log(`${build.root}: compact ${median(build.cpu).toFixed(1)} ms CPU (rounds: ${build.cpu.map((ms) => ms.toFixed(1)).join(', ')})`);
for (const other of builds.slice(1)) console.log(`${builds[0].root} / ${other.root}: ${(median(builds[0].cpu) / median(other.cpu)).toFixed(2)}`);
console.log(
  `load average ${(await import('node:os'))
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(' ')}`,
);
