import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sha256Digest } from '@skillport/core';
import { eventually } from '@skillport/test-kit';
import { ContentReader, SlowFileError, StaleFileError } from '../src/catalog/content.js';
import { readThreadTesting } from '../src/catalog/read-thread.js';
import type { SkillOrigin } from '../src/catalog/model.js';
import { catalogFile } from './catalog-files.js';

/**
 * How served bytes are read (docs/architecture.md, "Reading bytes"): a cache miss never blocks the main thread with
 * a synchronous read (a catalog larger than the page cache waits on the disk), and concurrent misses share a read.
 */
const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'skillport-content-read-'));
  temps.push(dir);
  return dir;
};
const file = catalogFile;

describe('ContentReader reads', () => {
  test('a small file is read without a synchronous system call (node --trace-sync-io stays silent)', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes.md'), 'a small file\n');
    const content = new URL('../src/catalog/content.js', import.meta.url).href;
    const core = import.meta.resolve('@skillport/core');
    // --trace-sync-io warns of every synchronous I/O call made after the first turn of the event loop.
    const script = `
      const { ContentReader } = await import(${JSON.stringify(content)});
      const { sha256Digest } = await import(${JSON.stringify(core)});
      const { readFile } = await import('node:fs/promises');
      const bytes = await readFile(${JSON.stringify(join(dir, 'notes.md'))});
      await new Promise((done) => setTimeout(done, 10));
      const reader = new ContentReader();
      const file = { uri: 'skill://s/notes.md', path: 'notes.md', size: bytes.length, digest: sha256Digest(bytes), mimeType: 'text/markdown' };
      const origin = { kind: 'folder', root: ${JSON.stringify(dir)}, dir: ${JSON.stringify(dir)}, realDir: ${JSON.stringify(dir)} };
      const read = await reader.read(file, origin);
      process.stdout.write(read.toString());
    `;
    const run = spawnSync(process.execPath, ['--trace-sync-io', '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, 'a small file\n');
    // Module loading resolves paths synchronously too: only the warnings of a file's own open and read count.
    const fileReads = run.stderr.split('WARNING: Detected use of sync API').filter((warning) => /at (openSync|readSync|fstatSync) /.test(warning));
    assert.deepEqual(fileReads, [], 'a synchronous open or read of the file');
  });

  test('concurrent misses of one small file share one read', async () => {
    const bytes = Buffer.from('shared bytes\n');
    let reads = 0;
    const origin: SkillOrigin = {
      kind: 'stored',
      source: 'test',
      blobs: {
        read: async () => {
          reads++;
          await new Promise((done) => setTimeout(done, 5));
          return bytes;
        },
      },
    };
    const reader = new ContentReader();
    const answers = await Promise.all(Array.from({ length: 16 }, () => reader.read(file(bytes), origin)));
    for (const answer of answers) assert.deepEqual(answer, bytes);
    assert.equal(reads, 1, `${reads} reads for 16 concurrent misses`);
  });

  test('a file sharing its bytes with one that changed is still served, and the changed one refused', async () => {
    const dir = tempDir();
    const bytes = Buffer.from('the same bytes in two skills\n');
    writeFileSync(join(dir, 'a.md'), 'changed since the scan\n');
    writeFileSync(join(dir, 'b.md'), bytes);
    const origin: SkillOrigin = { kind: 'folder', root: dir, dir, realDir: dir };
    const reader = new ContentReader();
    const [a, b] = await Promise.allSettled([reader.read(file(bytes, 'a.md'), origin), reader.read(file(bytes, 'b.md'), origin)]);
    assert.equal(a.status, 'rejected');
    assert.ok(a.status === 'rejected' && a.reason instanceof StaleFileError);
    assert.equal(b.status, 'fulfilled');
    assert.deepEqual(b.status === 'fulfilled' ? b.value : undefined, bytes);
  });

  test("a cached text file's JSON string is made once, counted in the budget, and dropped with the file", async () => {
    const dir = tempDir();
    const text = Buffer.from('line "one"\n\ttab\u00e9\n');
    writeFileSync(join(dir, 'a.md'), text);
    const origin: SkillOrigin = { kind: 'folder', root: dir, dir, realDir: dir };
    const reader = new ContentReader(4096);
    const bytes = await reader.read(file(text, 'a.md'), origin);
    const form = reader.servedForm(sha256Digest(text), bytes, true);
    assert.equal(form.text, true);
    assert.equal(form.json?.toString(), JSON.stringify(text.toString()));
    assert.equal(reader.servedForm(sha256Digest(text), bytes, true).json, form.json, 'made once while cached');
    // Filling the budget with other files pushes the first out, its JSON string with it.
    for (let i = 0; i < 20; i++) {
      const other = Buffer.from(`${i} ${'x'.repeat(400)}\n`);
      writeFileSync(join(dir, `o${i}.md`), other);
      await reader.read(file(other, `o${i}.md`), origin);
    }
    assert.notEqual(await reader.read(file(text, 'a.md'), origin), bytes, 'read again once pushed out');
    const binary = Buffer.from([0x61, 0x00, 0x62]);
    assert.equal(reader.servedForm(sha256Digest(binary), binary, true).text, false, 'a NUL byte is not text');
  });

  test('the budget counts bytes and JSON strings, holds a hot set that fits, and never grows past its bound', async () => {
    const dir = tempDir();
    const origin: SkillOrigin = { kind: 'folder', root: dir, dir, realDir: dir };
    const files = Array.from({ length: 40 }, (_, i) => {
      const bytes = Buffer.from(`# file ${i}\n${'a "quoted" line\n'.repeat(60)}`);
      writeFileSync(join(dir, `f${i}.md`), bytes);
      return { entry: file(bytes, `f${i}.md`), bytes };
    });
    // A served text file is kept as its JSON string alone (the bytes are made again from it).
    const cost = (at: number) => JSON.stringify(files[at]!.bytes.toString()).length;
    const hot = Array.from({ length: 20 }, (_, i) => cost(i)).reduce((a, b) => a + b);
    // Room for 20 files as JSON strings: the first 20 stay cached however often they are read.
    const reader = new ContentReader(hot + 100);
    const serve = async (at: number) => {
      const read = await reader.read(files[at]!.entry, origin);
      return { read, json: reader.servedForm(files[at]!.entry.digest, read, true).json };
    };
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => serve(i)));
    assert.equal(reader.bytes, hot, 'each JSON string counted, its bytes no longer held beside it');
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 20; i++) {
        const again = await serve(i);
        assert.equal(again.json, first[i]!.json, 'a hot file that fits is served from the cache');
        assert.deepEqual(again.read, files[i]!.bytes, "and its bytes made again from the JSON string are the file's");
      }
    }
    // Twice as many files as fit: the cache stays within its budget throughout.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < files.length; i++) {
        const { read, json } = await serve(i);
        assert.deepEqual(read, files[i]!.bytes);
        assert.equal(json?.toString(), JSON.stringify(files[i]!.bytes.toString()));
        assert.ok(reader.bytes <= reader.cacheBytes, `${reader.bytes} bytes held for a budget of ${reader.cacheBytes}`);
      }
    }
    const none = new ContentReader(0);
    await none.read(files[0]!.entry, origin);
    none.servedForm(files[0]!.entry.digest, files[0]!.bytes, true);
    assert.equal(none.bytes, 0, 'a budget of 0 keeps nothing');
  });

  test('a changed file is never served from the cache with its old bytes once the catalog names its new digest', async () => {
    const dir = tempDir();
    const origin: SkillOrigin = { kind: 'folder', root: dir, dir, realDir: dir };
    const before = Buffer.from('the first version\n');
    const after = Buffer.from('the second version, longer\n');
    writeFileSync(join(dir, 'SKILL.md'), before);
    const reader = new ContentReader();
    const old = file(before, 'SKILL.md');
    const cached = await reader.read(old, origin);
    assert.equal(reader.servedForm(old.digest, cached, true).json?.toString(), JSON.stringify(before.toString()));
    writeFileSync(join(dir, 'SKILL.md'), after);
    // The rescan gives the catalog the new digest: the read goes to the file, never to the old cached bytes.
    const renewed = file(after, 'SKILL.md');
    const read = await reader.read(renewed, origin);
    assert.deepEqual(read, after);
    assert.equal(reader.servedForm(renewed.digest, read, true).json?.toString(), JSON.stringify(after.toString()));
    assert.deepEqual(await reader.read(renewed, origin), after, 'and from then on from the cache, the new bytes');
    // The same size as the cached version, other bytes: still the file's, by digest.
    const same = Buffer.from('the first versioN\n');
    writeFileSync(join(dir, 'SKILL.md'), same);
    assert.deepEqual(await reader.read(file(same, 'SKILL.md'), origin), same);
  });
});

describe('the read thread (first reads of small files, whole, off the main thread)', () => {
  const readers: ContentReader[] = [];
  after(async () => {
    for (const reader of readers) await reader.close();
  });
  /**
   * A reader whose misses go to the thread, got there as a server gets there: the first miss starts the thread (and
   * is read in the thread pool meanwhile); a miss that comes back with its JSON string made was read by the thread.
   */
  const threaded = async (options: { readLimitMs?: number } = {}): Promise<ContentReader> => {
    const reader = new ContentReader(undefined, undefined, options);
    readers.push(reader);
    const dir = tempDir();
    const origin: SkillOrigin = { kind: 'folder', root: dir, dir, realDir: dir };
    let n = 0;
    await eventually(
      async () => {
        const text = Buffer.from(`warm-up ${++n}\n`);
        writeFileSync(join(dir, `w${n}.md`), text);
        await reader.read(file(text, `w${n}.md`), origin);
        return reader.cachedText(sha256Digest(text)) !== undefined ? true : undefined;
      },
      10_000,
      'a miss read by the thread',
    );
    return reader;
  };

  test('a miss comes back with its bytes and JSON string made there, counted in the budget, as made here', async () => {
    const dir = tempDir();
    const origin: SkillOrigin = { kind: 'folder', root: dir, dir, realDir: dir };
    const text = Buffer.from(`line "one"\n\ttab\u00e9 \u65e5\u672c \u{1f389} \\ back\u0001\n${'more text\n'.repeat(900)}`);
    writeFileSync(join(dir, 'a.md'), text);
    const reader = await threaded();
    const warm = reader.bytes; // the warm-up files'
    const bytes = await reader.read(file(text, 'a.md'), origin);
    assert.deepEqual(bytes, text);
    // Made by the thread: the cached JSON string is there without servedForm having been asked for it.
    const cached = reader.cachedText(sha256Digest(text));
    assert.ok(cached !== undefined, 'the JSON string came with the bytes');
    assert.ok(cached.json.equals(Buffer.from(JSON.stringify(text.toString('utf8')))), 'the same bytes as JSON.stringify');
    assert.equal(reader.bytes - warm, cached.json.byteLength, 'kept as the JSON string alone');
    assert.ok(bytes.buffer.byteLength <= text.byteLength + 1, 'a buffer of its own: the bytes and the one spare byte of the read');
    assert.equal(reader.servedForm(sha256Digest(text), bytes, true).json, cached.json, 'servedForm gives the one made');
    // Gone from the disk: a read is answered from the cache, its bytes exactly the file's (multi-byte UTF-8, escapes).
    rmSync(join(dir, 'a.md'));
    const again = await reader.read(file(text, 'a.md'), origin);
    assert.deepEqual(again, text);
    assert.equal(reader.servedForm(sha256Digest(text), again, true).json, cached.json, 'the same JSON string for the bytes made again');
  });

  test('a binary file is served as bytes, with no JSON string', async () => {
    const dir = tempDir();
    const origin: SkillOrigin = { kind: 'folder', root: dir, dir, realDir: dir };
    const binary = Buffer.from([0x61, 0x00, 0x62, 0xff, 0xfe]);
    writeFileSync(join(dir, 'b.bin'), binary);
    const reader = await threaded();
    assert.deepEqual(await reader.read(file(binary, 'b.bin'), origin), binary);
    assert.equal(reader.cachedText(sha256Digest(binary)), undefined);
    assert.equal(reader.servedForm(sha256Digest(binary), binary).text, false);
  });

  test('a changed, missing or symlinked file is refused as stale, and concurrent misses still share a read', async () => {
    const dir = tempDir();
    const origin: SkillOrigin = { kind: 'folder', root: dir, dir, realDir: dir };
    const published = Buffer.from('the published bytes\n');
    writeFileSync(join(dir, 'changed.md'), 'other bytes of the same size\n'.slice(0, published.byteLength));
    writeFileSync(join(dir, 'target.md'), published);
    symlinkSync(join(dir, 'target.md'), join(dir, 'link.md'));
    const reader = await threaded();
    for (const name of ['changed.md', 'missing.md', 'link.md']) {
      await assert.rejects(reader.read(file(published, name), origin), StaleFileError, name);
    }
    const answers = await Promise.all(Array.from({ length: 8 }, () => reader.read(file(published, 'target.md'), origin)));
    for (const answer of answers) assert.equal(answer, answers[0], 'one read, one buffer');
    assert.deepEqual(answers[0], published);
  });

  test('behind a slow file, reads past the queue cap are made in the thread pool, with the same answers', async () => {
    const dir = tempDir();
    const origin: SkillOrigin = { kind: 'folder', root: dir, dir, realDir: dir };
    const texts = Array.from({ length: 100 }, (_, i) => Buffer.from(`file ${i}\n${'text '.repeat(i)}\n`));
    texts.forEach((text, i) => writeFileSync(join(dir, `f${i}.md`), text));
    const hold = new Int32Array(new SharedArrayBuffer(4));
    readThreadTesting.hold = hold;
    let reader: ContentReader;
    try {
      reader = await threaded();
    } finally {
      readThreadTesting.hold = undefined;
    }
    // The thread now waits before its next batch, as on a file the disk is slow to give.
    Atomics.store(hold, 0, 1);
    const done: boolean[] = texts.map(() => false);
    const reads = texts.map((text, i) =>
      reader.read(file(text, `f${i}.md`), origin).then((bytes) => {
        done[i] = true;
        return bytes;
      }),
    );
    try {
      const served = await eventually(
        async () => (done.filter(Boolean).length >= 36 ? done.filter(Boolean).length : undefined),
        10_000,
        'reads past the cap answered',
      );
      assert.equal(served, 36, 'the 64 queued for the thread wait for it; the rest do not');
    } finally {
      Atomics.store(hold, 0, 0);
      Atomics.notify(hold, 0);
    }
    const answers = await Promise.all(reads);
    answers.forEach((bytes, i) => assert.deepEqual(bytes, texts[i]));
    // The thread's reads came with their JSON string; the thread pool's get it when asked (servedForm), as before.
    assert.equal(texts.filter((text) => reader.cachedText(sha256Digest(text)) !== undefined).length, 64);
  });

  test('a read the disk does not finish within the limit is answered as slow; the file fails at once until it ends', { timeout: 30_000 }, async () => {
    const dir = tempDir();
    const origin: SkillOrigin = { kind: 'folder', root: dir, dir, realDir: dir };
    const text = Buffer.from('on a disk that stopped answering\n');
    writeFileSync(join(dir, 'slow.md'), text);
    const hold = new Int32Array(new SharedArrayBuffer(4));
    readThreadTesting.hold = hold;
    let reader: ContentReader;
    try {
      reader = await threaded({ readLimitMs: 300 });
    } finally {
      readThreadTesting.hold = undefined;
    }
    Atomics.store(hold, 0, 1);
    let again: unknown;
    try {
      await assert.rejects(reader.read(file(text, 'slow.md'), origin), (error: unknown) => {
        assert.ok(error instanceof SlowFileError);
        assert.match(error.message, /could not be read within 0\.3 s.*try again later/);
        return true;
      });
      // Still stalled: a second read is not queued behind the first; it fails at once (before the disk answers).
      again = await reader.read(file(text, 'slow.md'), origin).catch((error: unknown) => error);
      assert.ok(again instanceof SlowFileError, 'failed while the first read still waits');
      assert.equal(Atomics.load(hold, 0), 1, 'the disk had not answered yet');
    } finally {
      Atomics.store(hold, 0, 0);
      Atomics.notify(hold, 0);
    }
    // Once the stalled read ends, the file is read again and served verified.
    const served = await eventually(
      async () => {
        const bytes = await reader.read(file(text, 'slow.md'), origin).catch(() => undefined);
        return bytes?.equals(text) ? bytes : undefined;
      },
      10_000,
      'served once the disk answers',
    );
    assert.deepEqual(served, text);
  });

  test('once the thread is stopped, misses are read on the main thread as before', async () => {
    const dir = tempDir();
    const origin: SkillOrigin = { kind: 'folder', root: dir, dir, realDir: dir };
    const text = Buffer.from('read after the thread stopped\n');
    writeFileSync(join(dir, 'c.md'), text);
    const reader = await threaded();
    await reader.close();
    assert.deepEqual(await reader.read(file(text, 'c.md'), origin), text);
    assert.equal(reader.cachedText(sha256Digest(text)), undefined, 'no JSON string until asked: read here');
  });
});
