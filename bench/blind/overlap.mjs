#!/usr/bin/env node
// Runs the blind2 overlap check (bench/blind2/overlap-check.mjs, unchanged) over one blind set's queries.json. The
// checker knows only the four user-worded kinds, so:
//   1. paraphrase, indirect, terse, near-duplicate: must stay at or under the 0.25 limit (exit 1 otherwise);
//   2. model (relabelled paraphrase for the checker): reported only.
// Usage: node bench/blind/overlap.mjs SET_DIR [--verbose] [--id-prefix bN] [--checker PATH] [--corpus DIR]
// SET_DIR holds queries.json (bench/blind9, or a writer's /work/blind10 beside the clone); the id prefix is taken from
// its name (blind9 → b9). Defaults: this repository's checker and the corpus beside the clone (../shared/corpus/skills).
// The temporary query file goes in a folder inside SET_DIR (removed afterwards), not in the system temp folder.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const opt = (n, d) => {
  const i = args.indexOf(n);
  return i >= 0 && args[i + 1] ? args[i + 1] : d;
};
const valued = new Set(['--id-prefix', '--checker', '--corpus']);
const set = path.resolve(args.find((arg, at) => !arg.startsWith('--') && !valued.has(args[at - 1])) ?? '.');
const name = path.basename(set);
const prefix = opt('--id-prefix', /^blind(\d+)$/.exec(name) ? `b${/^blind(\d+)$/.exec(name)[1]}` : undefined);
if (prefix === undefined) {
  process.stderr.write(`${set}: not a blindN folder; pass --id-prefix\n`);
  process.exit(2);
}
const verbose = args.includes('--verbose');
const checker = path.resolve(opt('--checker', path.join(repo, 'bench', 'blind2', 'overlap-check.mjs')));
const corpus = path.resolve(opt('--corpus', path.join(repo, '..', 'shared', 'corpus', 'skills')));
const data = JSON.parse(fs.readFileSync(path.join(set, 'queries.json'), 'utf8'));
const scratch = fs.mkdtempSync(path.join(set, '.overlap-tmp-'));

function run(label, queries) {
  const file = path.join(scratch, 'q.json');
  fs.writeFileSync(file, JSON.stringify({ seed: data.seed, queries }));
  const r = spawnSync(process.execPath, [checker, '--corpus', corpus, '--queries', file, '--id-prefix', prefix, ...(verbose ? [] : ['--quiet'])], {
    encoding: 'utf8',
  });
  console.log(`== ${label}`);
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  return r.status;
}
let status;
try {
  status = run(
    'user-worded kinds (limit applies)',
    data.queries.filter((q) => q.kind !== 'model'),
  );
  run(
    'model kind (reported only; shown as paraphrase to the checker)',
    data.queries.filter((q) => q.kind === 'model').map((q) => ({ ...q, kind: 'paraphrase' })),
  );
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
console.log(`\n${name}: ${status === 0 ? 'PASS' : 'FAIL'} (the limit applies to the user-worded kinds; the model kind is reported only)`);
process.exit(status === 0 ? 0 : 1);
