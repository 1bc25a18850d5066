#!/usr/bin/env node
// Assigns (or, with --check, verifies) the dev/holdout split of bench/blind4/queries.json and
// bench/blind4/no-fit.json with the seeded split of bench/blind2/split.mjs, which this script runs.
// blind2/split.mjs knows only the four blind2 kinds, so each kind of these files (model, everyday,
// off-domain, near-miss too) is split on its own: its queries, in id order, go to a scratch file under
// that file's seed with the kind relabelled, blind2/split.mjs splits them 40 % dev / 60 % holdout,
// and the result is copied back. Deterministic: same file + same seed -> same split.
// Usage: node bench/blind4/split.mjs [--check] [--help]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(
    'Usage: node bench/blind4/split.mjs [--check]\n  without --check: rewrites the split of queries.json and no-fit.json\n  --check: exits 1 when a file differs from the seeded split',
  );
  process.exit(0);
}
const check = args.includes('--check');
const splitter = path.join(here, '..', 'blind2', 'split.mjs');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'blind4-split-'));

function seededSplit(data) {
  const want = new Map();
  const kinds = [...new Set(data.queries.map((q) => q.kind))].sort();
  for (const kind of kinds) {
    const group = data.queries.filter((q) => q.kind === kind).sort((a, b) => a.id.localeCompare(b.id));
    const tmp = path.join(scratch, `${kind}.json`);
    const relabelled = group.map((q) => ({ id: q.id, kind: 'paraphrase', split: q.split }));
    fs.writeFileSync(tmp, JSON.stringify({ seed: data.seed, queries: relabelled }));
    execFileSync(process.execPath, [splitter, '--file', tmp], { stdio: 'ignore' });
    for (const q of JSON.parse(fs.readFileSync(tmp, 'utf8')).queries) want.set(q.id, q.split);
  }
  return { want, kinds };
}

let failed = false;
try {
  for (const name of ['queries.json', 'no-fit.json']) {
    const file = path.join(here, name);
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (!Number.isInteger(data.seed)) throw new Error(`${name} needs an integer "seed"`);
    const { want, kinds } = seededSplit(data);
    const diff = data.queries.filter((q) => q.split !== want.get(q.id)).length;
    const counts = kinds
      .map((k) => {
        const g = data.queries.filter((q) => q.kind === k);
        return `${k} ${g.filter((q) => want.get(q.id) === 'dev').length}/${g.filter((q) => want.get(q.id) === 'holdout').length}`;
      })
      .join(', ');
    if (check) {
      console.log(`${name}: ${diff === 0 ? 'split OK' : `split differs from the seeded assignment for ${diff} queries`} (dev/holdout: ${counts})`);
      if (diff) failed = true;
    } else {
      for (const q of data.queries) q.split = want.get(q.id);
      fs.writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
      console.log(`${name}: wrote splits (dev/holdout: ${counts})`);
    }
  }
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
