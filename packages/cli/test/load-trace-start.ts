/**
 * Test-only, preloaded with `node --import` into a real skillport process: prints `trace: loaded <package>` on stderr
 * whenever a package that a plain stdio `serve DIR` should not need before its first answer is resolved (issue 20:
 * archive readers, access control's native module and JWT library, database drivers, the tokenizer, the HTTP stack,
 * the web catalog and its renderers, the registry, the client library), so a test can show that start-up leaves them
 * unloaded. The bundle (dist/bundle/) holds them in chunks, not packages: each file of it resolved is printed as
 * `trace: bundle <file>`, and the test looks up what that file holds in the bundle's metafile.
 * Search's word vectors are a file, not a module (search/src/expansion/word-vectors.ts reads its compacted form with
 * readFileSync): reading it prints `trace: loaded word-vectors <path>`.
 */
import fs from 'node:fs';
import { register, syncBuiltinESMExports } from 'node:module';
import { DEFERRED } from './load-trace-deferred.js';

register(
  'data:text/javascript,' +
    encodeURIComponent(`const WATCHED = new RegExp(${JSON.stringify(DEFERRED)});
    export async function resolve(specifier, context, next) {
      const resolved = await next(specifier, context);
      const match = WATCHED.exec(resolved.url);
      if (match) console.error('trace: loaded ' + (match[1] ?? match[2]) + ' ' + resolved.url);
      const bundled = /\\/dist\\/bundle\\/([^/]+)$/.exec(resolved.url);
      if (bundled) console.error('trace: bundle ' + bundled[1]);
      return resolved;
    }`),
);

const readFileSync = fs.readFileSync;
const watchedFile = /[\\/]dist[\\/]data[\\/]word-vectors-/;
fs.readFileSync = function (this: unknown, ...args: unknown[]) {
  if (typeof args[0] === 'string' && watchedFile.test(args[0])) console.error(`trace: loaded word-vectors ${args[0]}`);
  return (readFileSync as (...rest: unknown[]) => unknown).apply(this, args);
} as typeof fs.readFileSync;
// Named imports of node:fs (`import { readFileSync } from 'node:fs'`) see the wrapper too.
syncBuiltinESMExports();
