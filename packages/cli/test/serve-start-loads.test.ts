import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, EXAMPLES, runCli, startHttp } from './helpers.js';

// Issue 20: a stdio client waits for the whole start-up, so a plain `serve DIR` over stdio loads only what its first
// answer needs. The trace names every watched package resolved (see load-trace-start.ts).
const trace = { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${new URL('./load-trace-start.js', import.meta.url).href}`.trim() };

/** Spawns `serve` over stdio, pipelines initialize + skills/list as stdio clients do, and returns stderr once answered. */
function firstAnswer(args: string[]): Promise<{ skills: number; stderr: string }> {
  const proc = spawn(process.execPath, [CLI, 'serve', ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...trace, NO_COLOR: '1' } });
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'skills/list', params: {} },
  ];
  proc.stdin.write(lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return new Promise((resolve, reject) => {
    let out = '';
    let stderr = '';
    let skills = -1;
    proc.stderr.on('data', (chunk) => (stderr += chunk));
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      for (const line of out.split('\n')) {
        if (!line.startsWith('{') || skills >= 0) continue;
        const message = JSON.parse(line) as { id?: number; result?: { skills: unknown[] } };
        // Answered: what was loaded by now is what start-up cost; the process is then killed.
        if (message.id === 2) {
          skills = message.result?.skills.length ?? 0;
          proc.kill('SIGKILL');
        }
      }
    });
    proc.on('error', reject);
    proc.on('exit', () => (skills >= 0 ? resolve({ skills, stderr }) : reject(new Error(`exited before answering: ${stderr}`))));
  });
}

test('a plain stdio serve loads no archive reader, access-control native module, JWT library, tokenizer, HTTP stack, registry or web catalog', { timeout: 120_000 }, async () => {
  const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-cache-'));
  // Cold (a scan), then warm (from the persisted catalog, checked in the background): both paths.
  for (const run of ['cold', 'warm']) {
    const { skills, stderr } = await firstAnswer(['--cache-dir', cacheDir, EXAMPLES]);
    assert.ok(skills > 0, `${run}: no skills listed:\n${stderr}`);
    assert.doesNotMatch(stderr, /trace: loaded/, `${run} start loaded what it does not use`);
  }
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
