#!/usr/bin/env node
// The installed `skillport` command. It is committed, not built, so that npm finds the bin target when it links
// it: on a fresh clone `npm install` links bins before `prepare` has built dist/ (a bin pointing into dist/ was
// then skipped, and `npx skillport` answered "not found" until a second install).
// It runs the bundle (dist/bundle/, built by scripts/bundle-cli.mjs: a client spawning `skillport serve` waits for
// far fewer module loads) and falls back to the plain build; SKILLPORT_NO_BUNDLE=1 picks the plain build (diagnostics).
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/bundle/skillport.js', import.meta.url);
const entry = process.env.SKILLPORT_NO_BUNDLE !== '1' && existsSync(bundle) ? bundle : new URL('../dist/src/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('skillport: not built yet (no dist/): run `npm run build` in the repository first\n');
  process.exit(1);
}
await import(entry.href);
