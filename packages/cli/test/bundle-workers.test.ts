import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '@skillport/test-kit';

// The bundled CLI (scripts/bundle-cli.mjs) starts worker threads by file name beside its chunks: a worker started by
// `new URL('./name.js', import.meta.url)` that is no entry of the bundle fails to start there (only there: tests and
// bench/ run the plain build), and its caller falls back to slower work without a word.
test('every worker started by file name is a file of the bundle', () => {
  const started = new Set<string>();
  for (const pkg of readdirSync(join(REPO, 'packages'))) {
    const src = join(REPO, 'packages', pkg, 'src');
    if (!existsSync(src)) continue;
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      for (const match of readFileSync(join(src, file), 'utf8').matchAll(/new Worker\(new URL\('\.\/([\w-]+\.js)', import\.meta\.url\)/g))
        started.add(match[1]!);
    }
  }
  assert.ok(started.has('scan-worker.js') && started.has('watch-worker.js'), `found: ${[...started].join(', ')}`);
  const bundle = join(REPO, 'packages', 'cli', 'dist', 'bundle');
  assert.deepEqual(
    [...started].filter((name) => !existsSync(join(bundle, name))),
    [],
    'workers missing from the bundle',
  );
});
