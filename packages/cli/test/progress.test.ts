import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatProgress, progressLine } from '../src/progress.js';
import { startHttp, makeTree, skillMd } from '@skillport/test-kit';

/** A stand-in for a terminal's stderr: what was written, and whether it claims to be a TTY. */
function fakeStream(isTTY: boolean): NodeJS.WriteStream & { text: string } {
  const stream = {
    isTTY,
    columns: 80,
    text: '',
    write(chunk: string) {
      stream.text += chunk;
      return true;
    },
  };
  return stream as unknown as NodeJS.WriteStream & { text: string };
}

describe('cold-scan progress line (issue 13)', () => {
  test('says skills found and scanned, files, rate and time left', () => {
    assert.equal(
      formatProgress({ found: 10000, scanned: 4200, files: 31502 }, 5),
      'skillport: scanning: 4,200 of 10,000 skills, 31,502 files, 840 skills/s, about 7 s left',
    );
    assert.equal(
      formatProgress({ found: 100000, scanned: 1000, files: 5000 }, 10),
      'skillport: scanning: 1,000 of 100,000 skills, 5,000 files, 100 skills/s, about 17 min left',
    );
    assert.equal(formatProgress({ found: 0, scanned: 0, files: 0 }, 0), 'skillport: scanning: 0 of 0 skills, 0 files');
  });

  test('drawn in place on a terminal and cleared; nothing when not a terminal or with --quiet; no escapes with NO_COLOR', () => {
    const saved = process.env['NO_COLOR'];
    try {
      delete process.env['NO_COLOR'];
      let clock = 0;
      const tty = fakeStream(true);
      const line = progressLine(tty, false, () => clock)!;
      line.update({ found: 10, scanned: 2, files: 4 });
      clock = 50;
      line.update({ found: 10, scanned: 3, files: 6 }); // under 100 ms: not redrawn
      clock = 200;
      line.update({ found: 10, scanned: 10, files: 20 });
      line.clear();
      assert.match(
        tty.text,
        /^\rskillport: scanning: 2 of 10 skills, 4 files\u001b\[K\rskillport: scanning: 10 of 10 skills, 20 files, 50 skills\/s\u001b\[K\r\u001b\[K$/,
      );
      assert.equal(progressLine(fakeStream(false), false), undefined, 'not a terminal: no line');
      assert.equal(progressLine(fakeStream(true), true), undefined, '--quiet: no line');
      process.env['NO_COLOR'] = '1';
      const plain = fakeStream(true);
      const quietColours = progressLine(plain, false, () => 1000)!;
      quietColours.update({ found: 5, scanned: 5, files: 5 });
      quietColours.clear();
      assert.doesNotMatch(plain.text, /\u001b/);
      assert.match(plain.text, /^\rskillport: scanning: 5 of 5 skills, 5 files\r +\r$/);
    } finally {
      if (saved === undefined) delete process.env['NO_COLOR'];
      else process.env['NO_COLOR'] = saved;
    }
  });

  test('serve with stderr to a pipe prints no progress line', async () => {
    const dir = makeTree({ 'one/SKILL.md': skillMd('one'), 'two/SKILL.md': skillMd('two') });
    const server = await startHttp([dir]);
    try {
      assert.doesNotMatch(server.stderr(), /scanning: \d/);
      assert.doesNotMatch(server.stderr(), /\r/);
    } finally {
      await server.stop();
    }
  });
});
