import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ChunkedFileWriter, readCheckedFile, readCheckedLines, readLinesCheckedBeside } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'skillport-lines-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('readCheckedLines (issue 13: a large persisted catalog read line by line)', () => {
  // Lines longer than the 4 MiB read chunk, and multi-byte characters wherever a chunk happens to end.
  const lines = [
    JSON.stringify({ head: 'é' }),
    'x'.repeat(5 * 1024 * 1024 + 3),
    ...Array.from({ length: 3000 }, (_, i) => `${i} ünïcödé ${'ß'.repeat(i % 700)} 🎉`),
    '',
  ];
  const path = join(dir, 'doc');
  const writer = new ChunkedFileWriter(path);
  for (const line of lines.slice(0, -1)) writer.write(`${line}\n`);
  writer.commit();

  test('gives back exactly the lines written, and the same document readCheckedFile checks', () => {
    assert.deepEqual([...readCheckedLines(path)!], lines.slice(0, -1));
    assert.equal(readCheckedFile(path), lines.join('\n'));
  });

  test('a torn file, a changed byte, a missing file: undefined, never lines', () => {
    const bytes = readFileSync(path);
    const torn = join(dir, 'torn');
    writeFileSync(torn, bytes);
    truncateSync(torn, Math.floor(bytes.length / 2));
    assert.equal(readCheckedLines(torn), undefined);
    const changed = Buffer.from(bytes);
    changed[100] = changed[100] === 0x61 ? 0x62 : 0x61;
    writeFileSync(join(dir, 'changed'), changed);
    assert.equal(readCheckedLines(join(dir, 'changed')), undefined);
    assert.equal(readCheckedLines(join(dir, 'missing')), undefined);
  });

  test('readLinesCheckedBeside: the same lines, verified true; a changed byte or a torn file: verified false', async () => {
    const good = readLinesCheckedBeside(path)!;
    assert.deepEqual([...good.lines], lines.slice(0, -1));
    assert.equal(await good.verified, true);
    const bytes = readFileSync(path);
    for (const at of [100, Math.floor(bytes.length / 2), bytes.length - 80]) {
      const changed = Buffer.from(bytes);
      changed[at] = changed[at] === 0x61 ? 0x62 : 0x61;
      writeFileSync(join(dir, 'changed'), changed);
      const read = readLinesCheckedBeside(join(dir, 'changed'))!;
      for (const _ of read.lines); // read to the end, as a loader does before it asks
      assert.equal(await read.verified, false, `byte ${at}`);
    }
    const torn = join(dir, 'torn');
    writeFileSync(torn, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const tornRead = readLinesCheckedBeside(torn);
    assert.ok(tornRead === undefined || !(await tornRead.verified), 'torn: no checksum line, or one that does not match');
    assert.equal(readLinesCheckedBeside(join(dir, 'missing')), undefined);
  });
});
