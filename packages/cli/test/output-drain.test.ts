import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { CLI, makeTree, skillMd } from '@skillport/test-kit';

/**
 * A command's last lines reach a reader that lags: the CLI ends only once stderr, not only stdout, has drained.
 * (It once exited with stderr writes still queued, and a test harness reading slowly lost the summary line.)
 */
test('validate: a reader that lags behind stderr still gets every line and the summary', async () => {
  const spec: Record<string, string> = {};
  // 700 skills whose folder name differs from their name: one warning line each, well over a pipe's 64 KiB.
  for (let i = 0; i < 700; i++) spec[`folder-${i}/SKILL.md`] = skillMd(`drained-skill-with-a-long-name-${i}`);
  const root = makeTree(spec);
  const proc = spawn(process.execPath, [CLI, 'validate', '--quiet', '--no-scan', root], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stderr.pause();
  let code: number | null = null;
  const exited = new Promise<void>((done) => proc.on('exit', (exitCode) => ((code = exitCode), done())));
  let stderr = '';
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  proc.stdout.resume();
  // The reader lags: it reads once the process has exited (what a process that does not wait for its pipes loses)
  // or, as a process that waits never exits before it is read, after a while.
  await Promise.race([exited, new Promise((done) => setTimeout(done, 3000))]);
  proc.stderr.resume();
  await new Promise((done) => proc.on('close', done));
  assert.equal(code, 0);
  assert.equal(stderr.split('\n').filter((line) => line.startsWith('warning:')).length, 700);
  assert.match(stderr, /^700 skills checked: 700 valid \(700 with warnings\), 0 invalid$/m);
});
