import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import { stringify } from 'yaml';
import { MAX_YAML_NESTING, splitFrontmatter, yamlNestingOverflow } from '../src/index.js';

/** A value nested exactly `depth` containers deep, mixing mappings and sequences by a seeded rule. */
function nested(depth: number, seed: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = (seed >> (level % 8)) & 1 ? { [`k${level}`]: value, s: 'x' } : [value, 'y'];
  return value;
}

/** Containers on the deepest path (a scalar is depth 0). */
function trueDepth(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(trueDepth));
  if (value !== null && typeof value === 'object') return 1 + Math.max(0, ...Object.values(value).map(trueDepth));
  return 0;
}

describe('yamlNestingOverflow', () => {
  test('the bound is never below the true depth, in block, flow and mixed styles', () => {
    for (const depth of [1, 2, 5, 17, 40]) {
      for (const seed of [0, 0xff, 0x5a, 0x33]) {
        const value = nested(depth, seed);
        assert.equal(trueDepth(value), depth);
        for (const text of [stringify(value), stringify(value, { collectionStyle: 'flow' }), stringify({ top: value }, { flowCollectionPadding: false })]) {
          // Past depth - 1 it must report; at a generous limit it must not.
          assert.ok(yamlNestingOverflow(text, depth - 1) !== undefined, `depth ${depth} seed ${seed}:\n${text}`);
          assert.equal(yamlNestingOverflow(text, 2 * depth + 2), undefined, `depth ${depth} seed ${seed}:\n${text}`);
        }
      }
    }
  });

  test('hostile shapes are refused with the line and column where they pass the limit', () => {
    assert.deepEqual(yamlNestingOverflow(`a: ${'['.repeat(50_000)}`, 10), { line: 1, column: 13 });
    assert.deepEqual(yamlNestingOverflow(`a: b\nc: ${'{x: '.repeat(20)}`, 10), { line: 2, column: 4 + 4 * 9 });
    // Compact block sequences and complex keys nest on one line.
    assert.ok(yamlNestingOverflow(`x:\n  ${'- '.repeat(30)}v\n`, 10)?.line === 2);
    assert.ok(yamlNestingOverflow(`${'? '.repeat(30)}v\n`, 10)?.line === 1);
    // A staircase of indentation, and a flow collection carried over many lines.
    const stairs = Array.from({ length: 30 }, (_, i) => `${' '.repeat(i)}k:`).join('\n');
    assert.deepEqual(yamlNestingOverflow(stairs, 10), { line: 11, column: 1 });
    assert.deepEqual(yamlNestingOverflow(`a:\n${'  [\n'.repeat(30)}`, 10), { line: 10, column: 3 });
    // Closed brackets do not add up; blank and comment lines change nothing.
    assert.equal(yamlNestingOverflow(`a: ${'[1], '.repeat(5000)}\n\n   # ${'['.repeat(50)}\n`, 10), undefined);
  });

  test("the bundled examples' frontmatter is far under the limit", () => {
    const root = new URL('../../../../examples/skills/', import.meta.url);
    const folders = readdirSync(root);
    assert.ok(folders.length > 0);
    for (const folder of folders) {
      const { yaml } = splitFrontmatter(readFileSync(new URL(`${folder}/SKILL.md`, root), 'utf8'), 64 * 1024);
      assert.equal(yamlNestingOverflow(yaml, 8), undefined, folder);
    }
    assert.ok(MAX_YAML_NESTING >= 64, 'a mapping up to 64 deep is valid frontmatter');
  });

  test('deeply nested frontmatter never reaches the parser, so a small worker heap cannot abort the process', () => {
    // Without the bound this aborts the whole process ("RegExpCompiler Allocation failed"): the parser recurses to
    // the end of the worker's stack, a GC flushes a regexp's code, and recompiling it there is fatal in V8.
    // A small young generation makes that GC come at once, so the run below fails every time without the bound.
    const script = `
      const { Worker } = require('node:worker_threads');
      const code = \`
        const { parentPort, workerData } = require('node:worker_threads');
        import(workerData.module).then(({ parseSkillMarkdown }) => {
          const deep = 32000;
          const results = [];
          for (let i = 0; i < 5; i++) {
            const text = '---\\\\nname: d\\\\ndescription: Deep.\\\\nx: ' + '['.repeat(deep) + ']'.repeat(deep) + '\\\\n---\\\\n# ' + i + '\\\\n';
            try { parseSkillMarkdown(text); results.push('parsed'); } catch (error) { results.push(error.name); }
          }
          parentPort.postMessage(results.join(','));
        });\`;
      let left = 4;
      for (let n = 0; n < 4; n++) {
        const worker = new Worker(code, { eval: true, workerData: { module: process.argv[1] }, resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 64 } });
        worker.on('message', (message) => console.log(message));
        worker.on('error', (error) => { console.log('error ' + error.message); process.exitCode = 1; });
        worker.on('exit', () => { if (--left === 0) console.log('done'); });
      }`;
    const run = spawnSync(process.execPath, ['-e', script, new URL('../src/index.js', import.meta.url).href], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr.slice(0, 2000)}`);
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines.at(-1), 'done');
    assert.deepEqual(lines.slice(0, -1), Array(4).fill('FrontmatterError,FrontmatterError,FrontmatterError,FrontmatterError,FrontmatterError'));
  });
});
