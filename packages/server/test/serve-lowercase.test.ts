import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { connectHttp, makeTree, runCli, skillMd, startHttp } from '@skillport/test-kit';

test('a lowercase skill.md (accepted by skills-ref) is served as SKILL.md, verified, with a warning', async () => {
  const dir = makeTree({
    'lower/skill.md': skillMd('lower'),
    'lower/notes.md': 'notes\n',
    'upper/SKILL.md': skillMd('upper'),
    'upper/skill.md': 'not the manifest\n',
  });
  const server = await startHttp([dir]);
  try {
    const client = await connectHttp(server.url, 'modern');
    const skills = new SkillsClient(client);
    const listing = await skills.list();
    const lower = listing.skills.find((skill) => skill.frontmatter.name === 'lower')!;
    assert.equal(lower.uri, 'skill://lower/SKILL.md');
    assert.deepEqual(
      (lower.resources as Array<{ uri: string }>).map((resource) => resource.uri),
      ['skill://lower/SKILL.md', 'skill://lower/notes.md'],
    );
    const manifest = await skills.read(lower);
    assert.equal(manifest.verified, true);
    assert.equal(manifest.frontmatter?.['name'], 'lower');
    // With both spellings present, SKILL.md is the manifest and skill.md an ordinary file.
    const upper = listing.skills.find((skill) => skill.frontmatter.name === 'upper')!;
    assert.equal((await skills.read(upper, 'skill.md')).text, 'not the manifest\n');
    assert.match(server.stderr(), /lower\/skill\.md: the manifest is named skill\.md; it is served as SKILL\.md/);
    await client.close();
  } finally {
    await server.stop();
  }
  // A warning, not an error: validate passes unless asked to be strict.
  const validate = await runCli(['validate', `${dir}/lower`]);
  assert.equal(validate.code, 0);
  assert.match(validate.stderr, /the manifest is named skill\.md/);
  const strict = await runCli(['validate', '--strict', `${dir}/lower`]);
  assert.equal(strict.code, 1);
});
