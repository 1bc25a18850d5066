#!/usr/bin/env node
// Assigns (or, with --check, verifies) the dev/holdout split of bench/blind3/queries.json.
// Not a copy: it runs bench/blind2/split.mjs on this folder's queries.json (same seeded,
// stratified-by-kind rule: 40 % dev, 60 % holdout; the seed is the file's "seed" field).
// Usage: node bench/blind3/split.mjs [--check]
import path from 'node:path';
import { fileURLToPath } from 'node:url';

process.argv.push('--file', path.join(path.dirname(fileURLToPath(import.meta.url)), 'queries.json'));
await import('../blind2/split.mjs');
