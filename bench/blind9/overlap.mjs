#!/usr/bin/env node
// Runs the blind2 overlap check (bench/blind2/overlap-check.mjs, unchanged) over blind9/queries.json; this file is
// bench/blind8/overlap.mjs adapted to blind set 9 (id prefix b9). The checker knows only the four user-worded kinds, so:
//   1. paraphrase, indirect, terse, near-duplicate: must stay at or under the 0.25 limit (exit 1 otherwise);
//   2. model (relabelled paraphrase for the checker): reported only.
// Usage: node overlap.mjs [--verbose] [--checker PATH] [--corpus DIR]
// Defaults: the first that exists of bench/blind2/overlap-check.mjs (this file in bench/blind9/ of the repository) or
// ../main/bench/blind2/overlap-check.mjs (this folder beside the clone, as /work/blind9/); likewise the corpus,
// ../../../shared/corpus/skills or ../shared/corpus/skills. The temporary query file goes in a folder beside this file
// (removed afterwards), not in the system temp folder.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (n, d) => {
  const i = args.indexOf(n);
  return i >= 0 && args[i + 1] ? args[i + 1] : d;
};
const verbose = args.includes('--verbose');
const firstExisting = (...ps) => ps.find((p) => fs.existsSync(p)) || ps[0];
const checker = path.resolve(
  opt('--checker', firstExisting(path.join(here, '..', 'blind2', 'overlap-check.mjs'), path.join(here, '..', 'main', 'bench', 'blind2', 'overlap-check.mjs'))),
);
const corpus = path.resolve(
  opt('--corpus', firstExisting(path.join(here, '..', '..', '..', 'shared', 'corpus', 'skills'), path.join(here, '..', 'shared', 'corpus', 'skills'))),
);
const data = JSON.parse(fs.readFileSync(path.join(here, 'queries.json'), 'utf8'));
const scratch = fs.mkdtempSync(path.join(here, '.overlap-tmp-'));

function run(label, queries) {
  const file = path.join(scratch, 'q.json');
  fs.writeFileSync(file, JSON.stringify({ seed: data.seed, queries }));
  const r = spawnSync(process.execPath, [checker, '--corpus', corpus, '--queries', file, '--id-prefix', 'b9', ...(verbose ? [] : ['--quiet'])], {
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
console.log(`\nblind9: ${status === 0 ? 'PASS' : 'FAIL'} (the limit applies to the user-worded kinds; the model kind is reported only)`);
process.exit(status === 0 ? 0 : 1);
