#!/usr/bin/env node
// bench/search-ab: this build's search against another build's (a worktree of an earlier commit, built), in one
// process on the same saved index (bench/search-scale.mjs --cache FILE writes one): each build restores its own copy,
// the seen queries alternate query by query between the two (the order flipped each round, so load falls on both
// alike), and every hit of every search is compared as JSON (ids, scores, reasons, confidence, matches). Prints CPU
// per search (process.cpuUsage: the machine is shared, wall time is noisy) p50 / p90 / p99 / mean for each build and
// new ÷ base, the load average before and after, and how many searches differ (0 is the only right answer).
// --cold N: the first N queries right after the restore instead (what a warm restart's first searches cost, JIT
// warm-up included), each build in a fresh process, the two alternating --rounds times; CPU is the whole process's
// (the optimising compiler's threads included) over those N searches.
// Usage: npm run build --silent && node bench/search-ab.mjs --base /path/to/other/worktree --cache FILE [--rounds 3] [--limit 10] [--queries N] [--cold N]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { measuredCommit, options } from './args.mjs';

const flags = options();
const base = resolve(flags.value('base', '/work/base'));
const cache = flags.value('cache', undefined);
const rounds = Number(flags.value('rounds', '3'));
const limit = Number(flags.value('limit', '10'));
const repo = resolve(import.meta.dirname, '..');
if (cache === undefined) throw new Error('--cache FILE: an index saved by bench/search-scale.mjs --cache');
const log = (line) => process.stderr.write(`${line}\n`);

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const seenQueries = () =>
  ['bench/search-queries.json', 'bench/search-queries-heldout.json'].flatMap((file) =>
    JSON.parse(readFileSync(join(repo, file), 'utf8')).map((query) => query.query),
  );
const child = flags.value('child', undefined);
if (child !== undefined) {
  // One build, fresh: restore, prepare, then the first N queries once.
  const { loadIndex } = await import(join(child, 'packages/search/dist/src/index.js'));
  const { index } = await loadIndex(cache);
  index.prepare();
  const each = [];
  const began = cpu();
  for (const text of seenQueries().slice(0, Number(flags.value('cold', '40')))) {
    const at = cpu();
    index.search(text, limit);
    each.push(cpu() - at);
  }
  console.log(JSON.stringify({ total: cpu() - began, each }));
  process.exit(0);
}
const coldCount = flags.value('cold', undefined);
if (coldCount !== undefined) {
  const runs = { base: [], new: [] };
  const load = [loadavg()[0]];
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? ['base', 'new'] : ['new', 'base']) {
      const out = execFileSync(
        process.execPath,
        [import.meta.filename, '--child', name === 'base' ? base : repo, '--cache', cache, '--cold', coldCount, '--limit', String(limit)],
        {
          encoding: 'utf8',
          maxBuffer: 1 << 24,
        },
      );
      runs[name].push(JSON.parse(out));
      log(`${name} round ${round}: ${runs[name].at(-1).total.toFixed(0)} ms CPU`);
    }
  }
  load.push(loadavg()[0]);
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const firstTen = (run) => run.each.slice(0, 10).reduce((sum, value) => sum + value, 0);
  console.log(
    `### first ${coldCount} searches after a restore, ${rounds} fresh processes per build; ${measuredCommit()} against ${base}; load ${load.map((value) => value.toFixed(1)).join(' → ')}\n`,
  );
  console.log('| build | process CPU over the searches, ms (each run) | median | of which the first 10 (median) |\n|---|---|---:|---:|');
  for (const name of ['base', 'new'])
    console.log(
      `| ${name} | ${runs[name].map((run) => run.total.toFixed(0)).join(', ')} | ${median(runs[name].map((run) => run.total)).toFixed(0)} | ${median(runs[name].map(firstTen)).toFixed(0)} |`,
    );
  console.log(`\nnew ÷ base (medians): ${(median(runs.new.map((run) => run.total)) / median(runs.base.map((run) => run.total))).toFixed(3)}`);
  process.exit(0);
}

const builds = {};
for (const [name, root] of [
  ['base', base],
  ['new', repo],
]) {
  const { loadIndex } = await import(join(root, 'packages/search/dist/src/index.js'));
  const started = performance.now();
  const { index } = await loadIndex(cache);
  index.prepare();
  builds[name] = index;
  log(`${name} (${root}): ${index.size} skills restored in ${(performance.now() - started).toFixed(0)} ms`);
}
let texts = seenQueries();
texts = texts.slice(0, Number(flags.value('queries', String(texts.length))));
for (const text of texts.slice(0, 30)) for (const name of ['base', 'new']) builds[name].search(text, limit); // warm-up
const load = [loadavg()[0]];
const times = { base: [], new: [] };
let differ = 0;
for (let round = 0; round < rounds; round++) {
  for (const text of texts) {
    const hits = {};
    for (const name of round % 2 === 0 ? ['base', 'new'] : ['new', 'base']) {
      const at = cpu();
      hits[name] = JSON.stringify(builds[name].search(text, limit));
      times[name].push(cpu() - at);
    }
    if (hits.base !== hits.new) {
      differ++;
      if (differ <= 3) log(`differs: ${text}`);
    }
  }
}
load.push(loadavg()[0]);
const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), mean: values.reduce((sum, value) => sum + value, 0) / values.length };
};
const result = {
  commit: measuredCommit(),
  base,
  skills: builds.new.size,
  searches: texts.length * rounds,
  differ,
  load,
  base_: stats(times.base),
  new: stats(times.new),
};
if (flags.flag('json')) console.log(JSON.stringify(result, null, 2));
else {
  console.log(
    `### search A/B at ${result.skills.toLocaleString('en')} skills, ${texts.length} queries × ${rounds}; ${result.commit} against ${base}; load ${load.map((value) => value.toFixed(1)).join(' → ')}\n`,
  );
  console.log('| CPU ms per search | p50 | p90 | p99 | mean |\n|---|---:|---:|---:|---:|');
  for (const [name, s] of [
    ['base', result.base_],
    ['new', result.new],
  ])
    console.log(`| ${name} | ${s.p50.toFixed(2)} | ${s.p90.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.mean.toFixed(2)} |`);
  const ratio = (key) => (result.new[key] / result.base_[key]).toFixed(3);
  console.log(`| new ÷ base | ${ratio('p50')} | ${ratio('p90')} | ${ratio('p99')} | ${ratio('mean')} |`);
  console.log(`\nsearches whose hits differ: ${differ} of ${result.searches}`);
}
