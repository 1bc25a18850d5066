import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CLI, connectHttp, makeTree, skillMd } from '@skillport/test-kit';

/**
 * A replica stopped right after a cold start (a rolling deploy that moves on as soon as it answers) must restart from
 * the catalog it scanned, not scan again: the catalog is persisted once the scan is in, and a stop (SIGTERM, SIGINT)
 * lets a save in progress finish. The restart still checks the disk: a file changed while it was down is served new.
 */

interface Started {
  url: string;
  stderr: () => string;
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

/** `skillport serve --http --port 0 ...args`, once it prints the line with its URL (it keeps running). */
function serve(args: string[]): Promise<Started> {
  const proc = spawn(process.execPath, [CLI, 'serve', '--http', '--port', '0', ...args], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const stop = (signal: NodeJS.Signals) =>
    new Promise<number | null>((done) => {
      if (proc.exitCode !== null) return done(proc.exitCode);
      proc.once('exit', (code) => done(code));
      proc.kill(signal);
    });
  return new Promise((resolve, reject) => {
    proc.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = / on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve({ url: match[1]!, stderr: () => stderr, stop });
    });
    proc.on('exit', (code) => reject(new Error(`serve exited (${code}) before it served:\n${stderr}`)));
  });
}

async function read(url: string, uri: string): Promise<string> {
  const client = await connectHttp(url, 'modern');
  try {
    const result = await client.readResource({ uri });
    return String((result.contents[0] as { text?: string }).text);
  } finally {
    await client.close();
  }
}

/** A catalog large enough that its persisted base is written in many slices (the stop comes in the middle of them). */
function catalog(): string {
  const spec: Record<string, string> = {};
  for (let at = 0; at < 300; at++) {
    spec[`skill-${at}/SKILL.md`] = skillMd(`skill-${at}`, `Handles task number ${at}.`, '', `# skill-${at}\n\n${'A line of steps.\n'.repeat(20)}`);
    spec[`skill-${at}/references/notes.md`] = `notes ${at}\n`;
  }
  return makeTree(spec);
}

describe('a stop right after a cold start: the restart is warm', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} the moment it answers; the restart restores the catalog, and a file changed meanwhile is served new`, async () => {
      const dir = catalog();
      const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-stop-early-'));
      const first = await serve(['--cache-dir', cacheDir, dir]);
      assert.match(first.stderr(), /serving 300 skills/);
      assert.doesNotMatch(first.stderr(), /last run's catalog/, 'the first start was cold');
      assert.equal(await first.stop(signal), 0, first.stderr());
      assert.ok(
        readdirSync(cacheDir).some((name) => /^catalog-.*\.json$/.test(name)),
        'the catalog was persisted before the process ended',
      );
      writeFileSync(join(dir, 'skill-7/references/notes.md'), 'changed while down\n');
      const again = await serve(['--cache-dir', cacheDir, dir]);
      try {
        assert.match(again.stderr(), /started from the last run's catalog, checked against the disk: 1 changed/, again.stderr());
        assert.equal(await read(again.url, 'skill://skill-7/references/notes.md'), 'changed while down\n');
      } finally {
        await again.stop('SIGTERM');
      }
    });
  }
});
