#!/usr/bin/env node
// The installed `skillport` command. It is committed, not built, so that npm finds the bin target when it links
// it: on a fresh clone `npm install` links bins before `prepare` has built dist/ (a bin pointing into dist/ was
// then skipped, and `npx skillport` answered "not found" until a second install).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('skillport: not built yet (no dist/): run `npm run build` in the repository first\n');
  process.exit(1);
}
await import(entry.href);
