import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { wordVectorPaths } from '@skillport/search';
import { BUNDLED_CLI, CLI, EXAMPLES, REPO, runCli, startHttp } from '@skillport/test-kit';
import { DEFERRED } from './load-trace-deferred.js';

// Issue 20: a stdio client waits for the whole start-up, so a plain `serve DIR` over stdio loads only what its first
// answer needs. The trace names every deferred package resolved, and every file of the bundle loaded (see
// load-trace-start.ts and load-trace-deferred.ts).
const trace = { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${new URL('./load-trace-start.js', import.meta.url).href}`.trim() };

interface Answered {
  skills: number;
  /** stderr up to the first answer: what start-up loaded. */
  stderr: string;
  /** stderr once the server said it serves (after its background check), when asked to wait for it. */
  later: string;
}

/**
 * Spawns `serve` over stdio, pipelines initialize + skills/list as stdio clients do, and returns stderr once answered.
 * With `until`, the process runs on after the answer until `until(stderr)` holds (the start-up line, a persisted
 * catalog), then is killed.
 */
function firstAnswer(cli: string, args: string[], until?: (stderr: string) => boolean): Promise<Answered> {
  const proc = spawn(process.execPath, [cli, 'serve', ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...trace, NO_COLOR: '1' } });
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'skills/list', params: {} },
  ];
  proc.stdin.write(lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return new Promise((resolve, reject) => {
    let out = '';
    let stderr = '';
    let atAnswer: string | undefined;
    let skills = -1;
    let poll: NodeJS.Timeout | undefined;
    const finish = () => {
      if (until === undefined || until(stderr)) proc.kill('SIGKILL');
    };
    proc.stderr.on('data', (chunk) => (stderr += chunk));
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      // Whole lines only: an answer may arrive in several chunks.
      const complete = out.split('\n');
      out = complete.pop()!;
      for (const line of complete) {
        if (!line.startsWith('{') || skills >= 0) continue;
        const message = JSON.parse(line) as { id?: number; result?: { skills: unknown[] } };
        // Answered: what was loaded by now is what start-up cost.
        if (message.id === 2) {
          skills = message.result?.skills.length ?? 0;
          atAnswer = stderr;
          finish();
          if (proc.exitCode === null && proc.signalCode === null) poll = setInterval(finish, 50);
        }
      }
    });
    proc.on('error', reject);
    proc.on('exit', () => {
      clearInterval(poll);
      if (skills >= 0 && atAnswer !== undefined) resolve({ skills, stderr: atAnswer, later: stderr });
      else reject(new Error(`exited before answering: ${stderr}`));
    });
  });
}

const deferred = new RegExp(DEFERRED);
// The catalog itself, not the temporary file it is written to first (catalog-….json.<pid>.tmp, renamed into place).
const persisted = (cacheDir: string) => () => readdirSync(cacheDir).some((name) => /^catalog-.*\.json$/.test(name));

test('a plain stdio serve loads no archive reader, access-control native module, JWT library, tokenizer, HTTP stack, registry, web catalog, client library, semver or word vectors', {
  timeout: 180_000,
}, async () => {
  const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-cache-'));
  // Cold (a scan; the process runs on until its catalog is persisted), then warm (from the persisted catalog,
  // checked in the background): both paths.
  const cold = await firstAnswer(CLI, ['--cache-dir', cacheDir, EXAMPLES], persisted(cacheDir));
  assert.ok(cold.skills > 0, `cold: no skills listed:\n${cold.stderr}`);
  assert.doesNotMatch(cold.stderr, /trace: loaded/, 'the cold start loaded what it does not use');
  const warm = await firstAnswer(CLI, ['--cache-dir', cacheDir, EXAMPLES], (stderr) => /serving \d+ skills/.test(stderr));
  assert.ok(warm.skills > 0, `warm: no skills listed:\n${warm.stderr}`);
  assert.match(warm.later, /started from the last run's catalog/, 'the second start was warm');
  assert.doesNotMatch(warm.stderr, /trace: loaded/, 'the warm start loaded what it does not use');
  // The control: the same trace sees what it watches when it is used: the HTTP stack and the web catalog over HTTP,
  // tar when a skill is packed.
  const http = await startHttp(['--no-cache', EXAMPLES], trace);
  await http.stop();
  assert.match(http.stderr(), /trace: loaded @modelcontextprotocol\/node /);
  assert.match(http.stderr(), /trace: loaded web /);
  const packed = await runCli(['pack', join(EXAMPLES, readdirSync(EXAMPLES)[0]!), '-o', join(cacheDir, 'one.skill')], trace);
  assert.equal(packed.code, 0, packed.stderr);
  assert.match(packed.stderr, /trace: loaded tar /);
});

test('the bundle the installed command runs loads no chunk that holds a deferred package before its first answer', { timeout: 180_000 }, async (t) => {
  const metaFile = join(REPO, 'packages/cli/dist/bundle-meta.json');
  if (!existsSync(BUNDLED_CLI) || !existsSync(metaFile)) return t.skip('no bundle: run npm run build');
  const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  /** The deferred sources a bundle file holds (metafile paths are relative to the repository). */
  const deferredIn = (file: string) => {
    const output = Object.entries(meta.outputs).find(([path]) => path.endsWith(`/dist/bundle/${file}`));
    assert.ok(output, `${file} is in the bundle's metafile (a stale bundle? run npm run build)`);
    return Object.keys(output[1].inputs).filter((input) => deferred.test(`/${input}`));
  };
  const loadedFiles = (stderr: string) => [...stderr.matchAll(/trace: bundle (\S+)/g)].map((match) => match[1]!);
  const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-cache-'));
  const cold = await firstAnswer(BUNDLED_CLI, ['--cache-dir', cacheDir, EXAMPLES], persisted(cacheDir));
  const warm = await firstAnswer(BUNDLED_CLI, ['--cache-dir', cacheDir, EXAMPLES], (stderr) => /serving \d+ skills/.test(stderr));
  assert.match(warm.later, /started from the last run's catalog/, 'the second start was warm');
  for (const [run, answered] of [
    ['cold', cold],
    ['warm', warm],
  ] as const) {
    assert.ok(answered.skills > 0, `${run}: no skills listed:\n${answered.stderr}`);
    const files = loadedFiles(answered.stderr);
    assert.ok(files.includes('skillport.js'), `${run}: the trace saw the bundle load:\n${answered.stderr}`);
    for (const file of files) assert.deepEqual(deferredIn(file), [], `${run}: ${file}, loaded before the first answer, holds deferred code`);
  }
  // The control: over HTTP the bundle loads chunks holding the HTTP stack and the web catalog.
  const http = await serveUntilListening(BUNDLED_CLI, ['--http', '--port', '0', '--no-cache', EXAMPLES]);
  const held = loadedFiles(http).flatMap(deferredIn).join('\n');
  assert.match(held, /node_modules\/@modelcontextprotocol\/node\//, http);
  assert.match(held, /packages\/web\/dist\//, http);
});

test('search reads the word vectors on its first query, not before (the trace sees them when they are read)', { timeout: 120_000 }, async (t) => {
  const paths = wordVectorPaths();
  if (paths === undefined || !existsSync(paths.compact)) return t.skip('no compacted word vectors: run npm run build');
  for (const cli of existsSync(BUNDLED_CLI) ? [CLI, BUNDLED_CLI] : [CLI]) {
    const proc = spawn(process.execPath, [cli, 'serve', '--no-cache', EXAMPLES], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...trace, NO_COLOR: '1' },
    });
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'skills/list', params: {} },
    ];
    proc.stdin.write(lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    let stderr = '';
    let out = '';
    proc.stderr.on('data', (chunk) => (stderr += chunk));
    const answered = (id: number) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          if (out.split('\n').some((line) => line.startsWith(`{"result"`) && line.includes(`"id":${id}`))) {
            proc.stdout.off('data', listen);
            resolve(stderr);
          }
        };
        const listen = (chunk: Buffer) => {
          out += chunk;
          check();
        };
        proc.stdout.on('data', listen);
        proc.once('exit', () => reject(new Error(`exited before answering ${id}: ${stderr}`)));
        check();
      });
    const listed = await answered(2);
    assert.doesNotMatch(listed, /trace: loaded word-vectors/, `${cli}: read before any search`);
    proc.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_skills', arguments: { query: 'slides for my boss' } } })}\n`,
    );
    const searched = await answered(3);
    proc.kill('SIGKILL');
    assert.match(searched, /trace: loaded word-vectors /, `${cli}: the first search read them`);
  }
});

/** Runs `serve ...args` with the trace until it says where it serves, and returns its stderr. */
function serveUntilListening(cli: string, args: string[]): Promise<string> {
  const proc = spawn(process.execPath, [cli, 'serve', ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...trace, NO_COLOR: '1' } });
  let stderr = '';
  return new Promise((resolve, reject) => {
    proc.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (/serving \d+ skills/.test(stderr)) proc.kill('SIGKILL');
    });
    proc.on('error', reject);
    proc.on('exit', () => (/serving \d+ skills/.test(stderr) ? resolve(stderr) : reject(new Error(`exited before serving: ${stderr}`))));
  });
}
