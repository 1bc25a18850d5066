#!/usr/bin/env node
// bench/client: what the client library's digest cache saves. Starts a real skillport server over HTTP on a
// catalog (the corpus by default, else examples/skills), then activates N skills and reads every file of each, three
// ways in the same process: cold (empty cache), relisted (cache warm, listing refetched), warm (cache and listing
// fresh). Prints wall time, resources/read and total requests for each, and the ratios against cold.
// Usage: node bench/client.mjs [--skills 50] [--dir DIR] [--json]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const corpus = resolve(repo, '../shared/corpus/skills');
const dir = flags.value('dir', existsSync(corpus) ? corpus : join(repo, 'examples/skills'));
const count = Number(flags.value('skills', '50'));
const asJson = process.argv.includes('--json');
const { McpSkillSource, SkillCache, SkillSet } = await import(join(repo, 'packages/client/dist/src/index.js'));

const server = spawn(process.execPath, [join(repo, 'packages/cli/dist/src/bin.js'), 'serve', '--http', '--port', '0', '--no-cache', '--no-watch', dir], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
const url = await new Promise((done, fail) => {
  let err = '';
  server.stderr.on('data', (chunk) => {
    err += chunk;
    const match = / on (http:\/\/\S+)/.exec(err);
    if (match) done(match[1]);
  });
  server.on('exit', (code) => fail(new Error(`server exited ${code}: ${err}`)));
});

const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-bench-client-'));
async function run(label, sourceOptions, prepare) {
  const source = new McpSkillSource(url, { cache: new SkillCache({ dir: cacheDir }), ...sourceOptions });
  prepare?.(source);
  const set = new SkillSet([source]);
  const started = process.hrtime.bigint();
  const skills = (await set.skills()).slice(0, count);
  let files = 0;
  let bytes = 0;
  for (const skill of skills) {
    const loaded = await source.load(skill);
    bytes += loaded.file.bytes.byteLength;
    files++;
    for (const file of loaded.resources) {
      const read = await source.readFile(skill, file.path);
      bytes += read.bytes.byteLength;
      files++;
    }
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  await set.close();
  const requests = Object.values(source.requests).reduce((sum, value) => sum + value, 0);
  return { label, skills: skills.length, files, bytes, ms: Number(ms.toFixed(1)), fileReads: source.requests['resources/read'] ?? 0, requests };
}

try {
  const cold = await run('cold (empty cache)', { defaultTtlMs: 0 }, (source) => source.invalidate());
  const relisted = await run('relisted (cache warm, listing refetched)', { defaultTtlMs: 0 }, (source) => source.invalidate());
  const warm = await run('warm (cache and listing fresh)', { defaultTtlMs: 600_000 });
  const warm2 = await run('warm again', { defaultTtlMs: 600_000 });
  const rows = [cold, relisted, warm, warm2];
  if (asJson) console.log(JSON.stringify({ dir, rows }, null, 2));
  else {
    console.log(`catalog: ${dir}; ${cold.skills} skills activated, ${cold.files} files (${(cold.bytes / 1024).toFixed(0)} KiB) read each run`);
    for (const row of rows) {
      console.log(
        `${row.label.padEnd(42)} ${String(row.ms).padStart(8)} ms  ${String(row.fileReads).padStart(5)} file reads  ${String(row.requests).padStart(5)} requests  ${(cold.ms / row.ms).toFixed(1)}x faster than cold`,
      );
    }
  }
} finally {
  server.kill('SIGTERM');
  rmSync(cacheDir, { recursive: true, force: true });
}
