import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { connectHttp, makeTree, registryUrl, runCli, startHttp, storeDir } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { ARCHIVE_MEDIA_TYPE, manifestFor, packSkillArchive } from '../src/package-format.js';
import { files, skillMd } from './fixtures.js';

/**
 * Windows keeps CON, PRN, AUX, NUL, COM0-9 and LPT0-9 for devices, with any extension and in any case: a skill with
 * `CON.md` or `references/nul.txt` cannot be installed there (the file is never created, or its bytes go to the
 * device). Such names were published (201) and served; now a publish is a 422 naming the file, and a served folder
 * or archive holding one is refused with the same error while the other skills are served.
 */

const TOKEN = 'reserved-names-token';
const archive = (name: string, extra: Record<string, string>) => {
  const content = files(name, extra);
  return packSkillArchive(manifestFor(name, content, { version: '1.0.0' }), content);
};

describe('Windows device names', () => {
  let server: RunningServer;
  let folders: string;
  before(async () => {
    folders = makeTree({
      'good/SKILL.md': skillMd('good'),
      'good/references/console.md': 'not a device',
      'bad/SKILL.md': skillMd('bad'),
      'bad/references/Aux.md': 'the AUX device on Windows',
    });
    server = await startHttp(['--data', storeDir(), folders], { SKILLPORT_TOKEN: TOKEN });
  });
  after(async () => server?.stop());

  const post = (body: Uint8Array) =>
    fetch(`${registryUrl(server.url)}/api/v1/skills`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': ARCHIVE_MEDIA_TYPE },
      body,
    });

  test('a publish holding a device name is a 422 naming it; look-alikes publish', async () => {
    for (const [name, extra, named] of [
      ['dev-con', { 'CON.md': 'x' }, "'CON.md' is named for the CON device on Windows"],
      ['dev-nul', { 'references/nul.tar.gz': 'x' }, "'references/nul.tar.gz' is named for the NUL device"],
      ['dev-lpt', { 'Lpt1/notes.md': 'x' }, "'Lpt1' is named for the LPT1 device on Windows (reserved with any extension, in any case): the folder"],
      ['dev-com', { 'scripts/com9. ': 'x' }, 'the COM9 device'],
    ] as const) {
      const answer = await post(archive(name, extra));
      const body = (await answer.json()) as { error: { code: string; message: string } };
      assert.equal(answer.status, 422, `${name}: ${JSON.stringify(body)}`);
      assert.equal(body.error.code, 'invalid_skill');
      assert.ok(body.error.message.includes(named), body.error.message);
    }
    const fine = await post(archive('dev-fine', { 'console.md': 'x', 'COM10.md': 'y', 'auxiliary/a.md': 'z', 'a.nul.md': 'w' }));
    assert.equal(fine.status, 201, await fine.text());
    const listed = (await (await fetch(`${registryUrl(server.url)}/api/v1/skills`)).json()) as { skills: Array<{ name: string }> };
    assert.deepEqual(
      listed.skills.map((skill) => skill.name),
      ['dev-fine'],
    );
  });

  test('a served folder holding one is refused with that error; the others are served over MCP', async () => {
    const client = await connectHttp(server.url, 'modern');
    try {
      const names = (await new SkillsClient(client).list()).skills.map((skill) => skill.frontmatter.name);
      assert.ok(names.includes('good'), JSON.stringify(names));
      assert.ok(!names.includes('bad'), JSON.stringify(names));
    } finally {
      await client.close();
    }
    const validate = await runCli(['validate', `${folders}/bad`]);
    assert.equal(validate.code, 1, validate.stderr);
    assert.match(validate.stderr, /'references\/Aux\.md' is named for the AUX device on Windows/);
  });
});
