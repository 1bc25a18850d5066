import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { McpSkillSource, SkillCache, SkillSet, skillTools, callSkillTool } from '../src/index.js';
import { makeZip } from '@skillport/test-kit';
import { makeTree, skillMd, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { startProxy } from '@skillport/test-kit';
import type { Proxy } from '@skillport/test-kit';

/**
 * Draft-era `archive` entries of skill://index.json, read by @skillport/client: one blob checked against the index
 * digest, unpacked in memory by core's safe reader, inspected with the server's rules; a tampered or hostile
 * archive is refused in one line.
 */
const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('client: draft-era archive entries', () => {
  const zipped = makeZip([
    { path: 'SKILL.md', content: skillMd('csv-cleaner', 'Clean CSV files. Use for messy CSVs.', '', '# CSV\n\nRun [the script](scripts/clean.py).\n') },
    { path: 'scripts/clean.py', content: 'print("clean")\n' },
  ]);
  const dir = makeTree({ 'csv.zip': zipped });
  let server: RunningServer;
  let proxy: Proxy;
  before(async () => {
    server = await startHttp([join(dir, 'csv.zip')]);
    proxy = await startProxy(server.url);
  });
  after(async () => {
    await proxy.stop();
    await server.stop();
  });

  test('listed from the index, loaded from the archive, every file verified; cached by the archive digest', async () => {
    const cache = new SkillCache({ dir: mkdtempSync(join(tmpdir(), 'skillport-archive-cache-')) });
    const source = new McpSkillSource(proxy.url, { origin: 'draft', mode: 'index', cache });
    const [skill] = await source.list();
    assert.equal(skill?.name, 'csv-cleaner');
    assert.deepEqual(skill.archive, { uri: 'skill://csv-cleaner.zip', digest: sha256(zipped) });
    const loaded = await source.load(skill);
    assert.match(loaded.body, /^\n?# CSV/);
    assert.deepEqual(
      loaded.resources.map((file) => [file.path, file.digest]),
      [['scripts/clean.py', sha256(Buffer.from('print("clean")\n'))]],
    );
    const script = await source.readFile(skill, 'scripts/clean.py');
    assert.equal(script.text, 'print("clean")\n');
    assert.equal(script.verified, true);
    await assert.rejects(source.readFile(skill, 'scripts/other.py'), /is not a file of skill 'csv-cleaner'; its files: scripts\/clean\.py/);
    await source.close();

    // A new source with the same cache: the listing is still fresh and the archive comes from the cache by its digest.
    proxy.reset();
    const again = new McpSkillSource(proxy.url, { origin: 'draft', mode: 'index', cache });
    const session = new SkillSet([again]).session();
    const tools = await skillTools(session);
    assert.match(
      await callSkillTool(tools, 'load_skill', { name: 'csv-cleaner' }),
      /^<skill_content name="csv-cleaner" origin="draft" uri="skill:\/\/csv-cleaner\.zip">/,
    );
    assert.match(await callSkillTool(tools, 'read_skill_resource', { name: 'csv-cleaner', path: 'scripts/clean.py' }), /print\("clean"\)/);
    assert.equal(proxy.total(), 0, `listing fresh and archive cached, so nothing is asked: ${JSON.stringify(proxy.counts)}`);
    await again.close();
  });

  test('an archive that does not match its digest, or that is hostile, is refused in one line', async () => {
    const evil = makeZip([
      { path: 'SKILL.md', content: skillMd('csv-cleaner', 'Clean CSV files. Use for messy CSVs.') },
      { path: '../../escape.sh', content: 'rm -rf ~\n' },
    ]);
    const swap =
      (withDigest: boolean): NonNullable<Proxy['tamper']> =>
      (method, params, result) => {
        if (method !== 'resources/read') return result;
        if (params['uri'] === 'skill://csv-cleaner.zip') {
          const contents = (result['contents'] as Array<Record<string, unknown>>).map((content) => ({ ...content, blob: evil.toString('base64') }));
          return { ...result, contents };
        }
        if (withDigest && params['uri'] === 'skill://index.json') {
          const contents = (result['contents'] as Array<Record<string, unknown>>).map((content) => ({
            ...content,
            text: String(content['text']).replace(sha256(zipped), sha256(evil)),
          }));
          return { ...result, contents };
        }
        return result;
      };
    for (const [withDigest, message] of [
      [false, /^skill:\/\/csv-cleaner\.zip does not match its digest/],
      [true, /^skill:\/\/csv-cleaner\.zip: .*(unsafe|\.\.).*: refused$/],
    ] as const) {
      proxy.tamper = swap(withDigest);
      try {
        const source = new McpSkillSource(proxy.url, { origin: 'draft', mode: 'index' });
        const [skill] = await source.list();
        await assert.rejects(
          source.load(skill!),
          (error: unknown) => error instanceof Error && message.test(error.message) && !error.message.includes('\n'),
          String(withDigest),
        );
        await source.close();
      } finally {
        proxy.tamper = undefined;
      }
    }
  });
});
