import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { describe, test } from 'node:test';
import { CLI, STDIO_HANDSHAKE, eventually, freePort, makeTree, runCli, skillMd, storeDir } from '@skillport/test-kit';

/**
 * A stdio server whose client stops reading its stdout must still stop when told to: SIGTERM, SIGINT, or the client
 * closing stdin. It once closed its stores and then waited forever for stdout to take answers nobody would read
 * (10+ minutes under SIGTERM, until SIGKILL), and with stdin held paused by the backpressure gate it never saw the
 * client hang up. What it recorded before being told (the audit log) must be kept.
 */

const BIG = 'x'.repeat(4 * 1024 * 1024);

function start(
  data: string,
  tree: string,
): { proc: ChildProcess; send(message: unknown): void; exited: Promise<{ code: number | null; signal: string | null }> } {
  const proc = spawn(process.execPath, [CLI, 'serve', '--no-cache', '--no-watch', '--data', data, tree], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  proc.stderr!.resume();
  proc.stdout!.pause(); // never read
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  return { proc, send: (message) => proc.stdin!.write(`${JSON.stringify(message)}\n`), exited };
}

/** Resolves with the exit, or with 'running' after `ms` (the old server never exited). */
function exitWithin<T>(exited: Promise<T>, ms: number): Promise<T | 'running'> {
  return Promise.race([exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), ms).unref())]);
}

describe('stdio: a server whose stdout is never read stops when told to', () => {
  for (const how of ['SIGTERM', 'SIGINT', 'stdin closed'] as const) {
    test(`${how}: the process ends, and what it audited before is kept`, async () => {
      const tree = makeTree({ 'big/SKILL.md': skillMd('big'), 'big/reference.txt': BIG });
      const data = storeDir();
      const { proc, send, exited } = start(data, tree);
      try {
        for (const message of STDIO_HANDSHAKE) send(message);
        send({ jsonrpc: '2.0', id: 'activate', method: 'tools/call', params: { name: 'activate_skill', arguments: { name: 'big' } } });
        // Twenty 4 MiB answers nobody reads: stdout's pipe fills and the server holds the rest back.
        for (let i = 0; i < 20; i++) send({ jsonrpc: '2.0', id: `read-${i}`, method: 'resources/read', params: { uri: 'skill://big/reference.txt' } });
        // Until the server has started answering (answers wait in stdout's pipe, unread), and a moment more for it
        // to fill: then it is told to stop. Waited for, not timed: a loaded machine starts the server late.
        await eventually(async () => (proc.stdout!.readableLength > 0 ? true : undefined), 120_000, 'the first answers');
        await new Promise((resolve) => setTimeout(resolve, 1000));
        if (how === 'stdin closed') proc.stdin!.end();
        else proc.kill(how);
        const outcome = await exitWithin(exited, 30_000);
        assert.notEqual(outcome, 'running', `the server did not stop on ${how} while its stdout was unread`);
        assert.deepEqual(outcome, { code: 0, signal: null });
      } finally {
        proc.kill('SIGKILL');
      }
      const audit = await runCli(['audit', '--data', data, '--json']);
      assert.equal(audit.code, 0, audit.stderr);
      assert.match(audit.stdout, /activate_skill/, 'the activation audited before the stop is in the log');
      assert.match(audit.stdout, /reference\.txt/, 'reads answered before the stop are in the log');
    });
  }
});

/**
 * A supervisor that never reads stderr (start-up printed one error line per broken skill, far more than a pipe
 * holds) must not keep a stopped HTTP server alive: it waited for stderr to drain and never exited (a settled
 * 100,000-skill server sat twelve minutes after SIGTERM until it was killed).
 */
test('HTTP: a server whose stderr is never read stops on SIGTERM', async () => {
  const spec: Record<string, string> = { 'fine/SKILL.md': skillMd('fine') };
  // 2,500 broken skills: one error line each, ~200 bytes with the folder name: well over a socket pair's buffers.
  for (let i = 0; i < 2500; i++) spec[`a-broken-skill-folder-with-a-rather-long-name-${i}/SKILL.md`] = '---\nname: [oops\n---\nbody\n';
  const tree = makeTree(spec);
  const port = await freePort();
  const proc = spawn(process.execPath, [CLI, 'serve', '--http', '--port', String(port), '--no-cache', '--no-watch', '--data', storeDir(), tree], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  proc.stderr!.pause(); // never read
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    // It listens once the scan is in and its error lines are written (or queued): then it is told to stop.
    await eventually(async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok ? true : undefined), 120_000, 'the server to listen');
    proc.kill('SIGTERM');
    const outcome = await exitWithin(exited, 60_000);
    assert.notEqual(outcome, 'running', 'the server did not stop on SIGTERM while its stderr was unread');
    assert.deepEqual(outcome, { code: 0, signal: null });
  } finally {
    proc.kill('SIGKILL');
  }
});
