import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CLI, connectHttp, eventually, freePort, makeTree, skillMd } from '@skillport/test-kit';

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
  const proc = spawn(process.execPath, [CLI, 'serve', '--http', ...(args.includes('--port') ? [] : ['--port', '0']), ...args], {
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

/** The names a search for `query` finds. */
async function found(url: string, query: string): Promise<string[]> {
  const client = await connectHttp(url, 'modern');
  try {
    const result = (await client.callTool({ name: 'list_skills', arguments: { query } })) as { structuredContent: { skills: Array<{ name: string }> } };
    return result.structuredContent.skills.map((skill) => skill.name);
  } finally {
    await client.close();
  }
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

  test('a file changed the moment the warm restart first answers (before its serving line) is served new and searchable', async () => {
    const dir = catalog();
    const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-stop-early-'));
    const first = await serve(['--cache-dir', cacheDir, dir]);
    // A cold start reads them when first searched (the first build needs them then, not before).
    const cold = (await (await fetch(first.url.replace(/\/mcp$/, '/healthz'))).json()) as { search: { prepared: boolean } };
    assert.equal(cold.search.prepared, false);
    assert.ok((await found(first.url, 'task number')).length > 0);
    assert.equal(await first.stop('SIGTERM'), 0, first.stderr());
    // A port of our own, so that the restart is asked before it prints its line (it prints it once checked).
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const again = serve(['--cache-dir', cacheDir, '--port', String(port), dir]);
    try {
      await eventually(
        async () => ((await read(url, 'skill://skill-11/SKILL.md').catch(() => undefined)) === undefined ? undefined : true),
        60_000,
        'a first answer',
      );
      // The data a first search reads were read before it answered: the searches below do not wait for them.
      const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { search: { prepared: boolean; restored: unknown } };
      assert.equal(health.search.prepared, true);
      // And the last run's index was read before the first answer (decoded after it, it held reads and changes).
      assert.deepEqual(health.search.restored, { skills: 300 });
      const changed = skillMd('skill-11', 'Handles task number 11.', '', '# skill-11\n\nNow about the quokka ferry timetable.\n');
      writeFileSync(join(dir, 'skill-11/SKILL.md'), changed);
      // Waited for, never timed: a change in the window after the first answer is heard (or found), not lost.
      await eventually(async () => ((await read(url, 'skill://skill-11/SKILL.md')) === changed ? true : undefined), 60_000, 'the new bytes');
      await eventually(async () => ((await found(url, 'quokka ferry')).includes('skill-11') ? true : undefined), 60_000, 'the new words');
      assert.match((await again).stderr(), /started from the last run's catalog/);
    } finally {
      await (await again).stop('SIGTERM');
    }
  });
});
