#!/usr/bin/env node
// Runs the blind2 overlap check (bench/blind2/overlap-check.mjs) over bench/blind4/queries.json.
// The checker knows only the four user-worded kinds, so the set is checked in two parts:
//   1. paraphrase, indirect, terse, near-duplicate: must stay at or under the 0.25 limit (exit 1 otherwise);
//   2. model (relabelled for the checker): allowed over the limit, since an agent's query uses the
//      domain's usual terms; its figures are only reported.
// Usage: node bench/blind4/overlap.mjs [--verbose] [--help]   (--verbose lists every query, not only failures)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(
    'Usage: node bench/blind4/overlap.mjs [--verbose]\n  exit 0 when every user-worded query is at or under the limit; model queries are reported only',
  );
  process.exit(0);
}
const verbose = args.includes('--verbose');
const checker = path.join(here, '..', 'blind2', 'overlap-check.mjs');
const data = JSON.parse(fs.readFileSync(path.join(here, 'queries.json'), 'utf8'));
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'blind4-overlap-'));

function run(label, queries) {
  const file = path.join(scratch, `${label}.json`);
  fs.writeFileSync(file, JSON.stringify({ seed: data.seed, queries }));
  const r = spawnSync(process.execPath, [checker, '--queries', file, '--id-prefix', 'b4', ...(verbose ? [] : ['--quiet'])], { encoding: 'utf8' });
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
console.log(`\nblind4: ${status === 0 ? 'PASS' : 'FAIL'} (the limit applies to the user-worded kinds; the model kind is reported only)`);
process.exit(status === 0 ? 0 : 1);
