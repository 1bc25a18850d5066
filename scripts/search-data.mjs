#!/usr/bin/env node
// Part of `npm run build`: copies @skillport/search's data files (word lists written beside their parsers in
// packages/search/src/) into packages/search/dist/data/, where the package reads them at run time and from where it
// ships them (tsc copies only code). A file whose copy is already identical is left alone.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../packages/search/src/', import.meta.url));
const target = fileURLToPath(new URL('../packages/search/dist/data/', import.meta.url));
mkdirSync(target, { recursive: true });
const seen = new Map();
for (const entry of readdirSync(source, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.txt')) continue;
  const from = join(entry.parentPath ?? entry.path, entry.name);
  // One flat folder: two data files of one name would overwrite each other.
  if (seen.has(entry.name)) throw new Error(`search data: ${relative(source, from)} and ${seen.get(entry.name)} share a name`);
  seen.set(entry.name, relative(source, from));
  const to = join(target, entry.name);
  if (existsSync(to) && readFileSync(to).equals(readFileSync(from))) continue;
  copyFileSync(from, to);
}
