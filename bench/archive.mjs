#!/usr/bin/env node
// bench/archive: what reading skills from archives costs, against reading the same skills from folders in the same
// run, and what a bomb costs before it is refused. Each corpus skill (a sample, --sample N) is packed in memory as a
// tar.gz and as a zip (the writers of packages/core/test/archive-builders.ts); then, per skill: inspectSkillFolder
// on the folder (baseline) vs inspectSkillArchive on each archive (inflate + parse + the same skill rules). The
// package digests must agree. Bombs: a 64 MiB tar.gz of zeros, a 64 MiB zip entry, a zip whose header understates
// its size, and the overlapping-entries zip (5,000 entries x 1 MiB claimed): time to refusal and the rise in
// memory (RSS and array buffers) against the bytes the bomb would expand to.
// Usage: npm run build --silent && node bench/archive.mjs [--corpus ../shared/corpus/skills] [--sample 200]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { discoverSkills, inspectSkillArchive, inspectSkillFolder } from '../packages/core/dist/src/index.js';
import { makeOverlappingZipBomb, makeTarGz, makeZip } from '../packages/test-kit/dist/src/archive-builders.js';
import { options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const corpus = resolve(flags.value('corpus', join(repo, '../shared/corpus/skills')));
const sample = Number(flags.value('sample', '200'));
const MiB = 1024 * 1024;

const found = discoverSkills(corpus).skills;
const step = Math.max(1, Math.floor(found.length / sample));
const skills = [];
for (let i = 0; i < found.length && skills.length < sample; i += step) {
  const inspection = inspectSkillFolder(found[i].dir);
  if (!inspection.skill || inspection.skill.files.some((file) => file.target !== undefined)) continue;
  const files = inspection.skill.files.map((file) => ({ path: file.path, bytes: readFileSync(join(inspection.skill.realDir, file.path)) }));
  const name = found[i].dir.split('/').at(-1);
  skills.push({
    dir: found[i].dir,
    digest: inspection.skill.packageDigest,
    bytes: inspection.skill.totalBytes,
    tgz: makeTarGz(files.map((file) => ({ path: `${name}/${file.path}`, content: file.bytes }))),
    zip: makeZip(files.map((file) => ({ path: `${name}/${file.path}`, content: file.bytes }))),
  });
}

async function time(run) {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

// Warm-up, then three rounds each, best round kept (the machine is shared).
const rounds = { folder: [], tgz: [], zip: [] };
let mismatches = 0;
for (let round = 0; round < 4; round++) {
  const folder = await time(async () => {
    for (const skill of skills) inspectSkillFolder(skill.dir);
  });
  const tgz = await time(async () => {
    for (const skill of skills) if ((await inspectSkillArchive(skill.tgz)).skill?.packageDigest !== skill.digest) mismatches++;
  });
  const zip = await time(async () => {
    for (const skill of skills) if ((await inspectSkillArchive(skill.zip)).skill?.packageDigest !== skill.digest) mismatches++;
  });
  if (round > 0) {
    rounds.folder.push(folder);
    rounds.tgz.push(tgz);
    rounds.zip.push(zip);
  }
}
const best = (list) => Math.min(...list);
const totalBytes = skills.reduce((sum, skill) => sum + skill.bytes, 0);
console.log(
  `corpus sample: ${skills.length} skills, ${(totalBytes / MiB).toFixed(1)} MiB of files; tar.gz ${(skills.reduce((s, k) => s + k.tgz.length, 0) / MiB).toFixed(1)} MiB, zip ${(skills.reduce((s, k) => s + k.zip.length, 0) / MiB).toFixed(1)} MiB`,
);
console.log(`package digests that differ from the folder's: ${mismatches}`);
for (const kind of ['folder', 'tgz', 'zip']) {
  const ms = best(rounds[kind]);
  console.log(`${kind.padEnd(6)} ${(ms / skills.length).toFixed(2)} ms per skill  (${(ms / best(rounds.folder)).toFixed(2)}x the folder read)`);
}

async function bomb(label, bytes, expands) {
  global.gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakBuffers = before.arrayBuffers;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakBuffers = Math.max(peakBuffers, now.arrayBuffers);
  }, 5);
  let message = '';
  const ms = await time(async () => {
    message = (await inspectSkillArchive(bytes)).problems[0]?.message ?? 'ACCEPTED';
  });
  clearInterval(sampler);
  const after = process.memoryUsage();
  peakRss = Math.max(peakRss, after.rss);
  peakBuffers = Math.max(peakBuffers, after.arrayBuffers);
  console.log(
    `${label}: ${(bytes.length / 1024).toFixed(0)} KiB archive, would expand to ${expands}; refused in ${ms.toFixed(0)} ms, RSS +${((peakRss - before.rss) / MiB).toFixed(1)} MiB, array buffers +${((peakBuffers - before.arrayBuffers) / MiB).toFixed(1)} MiB: ${message}`,
  );
}

const md = '---\nname: bomb\ndescription: A bomb.\n---\n';
await bomb(
  'tar.gz of zeros',
  makeTarGz([
    { path: 'SKILL.md', content: md },
    { path: 'zeros.bin', content: Buffer.alloc(64 * MiB) },
  ]),
  '64 MiB',
);
await bomb(
  'zip entry of zeros',
  makeZip([
    { path: 'SKILL.md', content: md },
    { path: 'zeros.bin', content: Buffer.alloc(64 * MiB) },
  ]),
  '64 MiB',
);
await bomb(
  'zip with a lying header',
  makeZip([
    { path: 'SKILL.md', content: md },
    { path: 'zeros.bin', content: Buffer.alloc(64 * MiB), declaredSize: 1000 },
  ]),
  '64 MiB (declares 1000 bytes)',
);
await bomb('overlapping-entries zip', makeOverlappingZipBomb(5000, MiB), '5,000 MiB');
await bomb('overlapping-entries zip (1,000 entries)', makeOverlappingZipBomb(1000, MiB), '1,000 MiB');
