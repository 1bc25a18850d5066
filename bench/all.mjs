#!/usr/bin/env node
// Runs every benchmark one after the other on the built tree (nothing else should run on the machine), each with the
// settings its docs/benchmarks.md table was measured with, and keeps each one's output in
// bench/.results/<commit>/<name>.txt so every table can name the commit it was measured on.
// Usage: npm run build --silent && node bench/all.mjs [--only serve,search] [--skip agents] [--list]
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { measuredCommit, options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
// name, script and arguments, and roughly how long it takes on a quiet 2-core machine.
const BENCHES = [
  { name: 'start', args: ['bench/start.mjs', '--pairs', '8', '--catalogs', 'examples,corpus', '--transports', 'stdio,http'], minutes: 4 },
  { name: 'serve', args: ['bench/serve.mjs', '--catalogs', 'corpus,10000', '--rounds', '3', '--duration', '5'], minutes: 8 },
  { name: 'scale', args: ['bench/scale.mjs'], minutes: 15, optional: true },
  { name: 'search', args: ['bench/search.mjs', '--quick'], minutes: 2 },
  { name: 'search-blind2', args: ['bench/blind/score.mjs', 'bench/blind2/queries.json', '--split', 'holdout', '--baseline'], minutes: 1 },
  { name: 'search-blind3', args: ['bench/blind/score.mjs', 'bench/blind3/queries.json', '--split', 'holdout', '--baseline', '--by-kind'], minutes: 1 },
  { name: 'archive', args: ['bench/archive.mjs'], minutes: 1 },
  { name: 'client', args: ['bench/client.mjs'], minutes: 1 },
  { name: 'access', args: ['bench/access.mjs', '--rounds', '3'], minutes: 3 },
  { name: 'registry', args: ['bench/registry.mjs', '--rounds', '3'], minutes: 4 },
  { name: 'pg', args: ['bench/pg.mjs', '--rounds', '3'], minutes: 5 },
  { name: 'web', args: ['bench/web.mjs'], minutes: 3 },
  { name: 'soak', args: ['bench/soak.mjs'], minutes: 6, optional: true },
  { name: 'agents', args: ['bench/agents/run.mjs', '--svg', 'docs/agents-benchmark.svg'], minutes: 3 },
];

const flags = options();
const pick = (value) => (value ? new Set(value.split(',')) : undefined);
const only = pick(flags.value('only'));
const skip = pick(flags.value('skip')) ?? new Set();
const chosen = BENCHES.filter((bench) => (only ? only.has(bench.name) : true) && !skip.has(bench.name) && existsSync(join(repo, bench.args[0])));
if (flags.flag('list')) {
  for (const bench of BENCHES) process.stdout.write(`${bench.name.padEnd(14)} ~${String(bench.minutes).padStart(2)} min  node ${bench.args.join(' ')}\n`);
  process.exit(0);
}

const commit = measuredCommit();
const out = join(repo, 'bench/.results', commit);
mkdirSync(out, { recursive: true });
process.stderr.write(
  `benchmarks at ${commit}: ${chosen.map((bench) => bench.name).join(', ')} (about ${chosen.reduce((sum, bench) => sum + bench.minutes, 0)} min); output in ${out}\n`,
);
const summary = [];
for (const bench of chosen) {
  const started = Date.now();
  process.stderr.write(`\n== ${bench.name}: node ${bench.args.join(' ')}\n`);
  const file = createWriteStream(join(out, `${bench.name}.txt`));
  file.write(`# ${commit} node ${bench.args.join(' ')} (${new Date().toISOString()})\n`);
  const code = await new Promise((done) => {
    const child = spawn(process.execPath, bench.args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      file.write(chunk);
    });
    child.stderr.on('data', (chunk) => process.stderr.write(chunk));
    child.on('close', (status) => done(status ?? 1));
  });
  file.end();
  summary.push(`${bench.name.padEnd(14)} ${code === 0 ? 'ok    ' : `exit ${code}`} ${((Date.now() - started) / 60_000).toFixed(1)} min`);
}
process.stderr.write(`\n${summary.join('\n')}\n`);
