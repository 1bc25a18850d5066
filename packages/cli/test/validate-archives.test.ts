import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeTarGz, makeZip } from '@skillport/test-kit';
import { makeTree, runCli, skillMd } from '@skillport/test-kit';

test('validate checks skill archives: safety first, then the skill rules; --json says what serve would do', async () => {
  const dir = makeTree({
    'good.skill': makeZip([
      { path: 'good/SKILL.md', content: skillMd('good') },
      { path: 'good/references/a.md', content: '# A\n' },
    ]),
    'renamed.tgz': makeTarGz([{ path: 'other-name/SKILL.md', content: skillMd('renamed') }]),
    'slip.zip': makeZip([
      { path: 'SKILL.md', content: skillMd('slip') },
      { path: '../evil', content: 'x' },
    ]),
    'nodesc.zip': makeZip([{ path: 'SKILL.md', content: '---\nname: nodesc\n---\n\n# x\n' }]),
  });
  const good = await runCli(['validate', join(dir, 'good.skill')]);
  assert.equal(good.code, 0, good.stderr);
  assert.equal(good.stderr, '1 skill checked: valid\n');
  const bad = await runCli(['validate', join(dir, 'renamed.tgz'), join(dir, 'slip.zip'), join(dir, 'nodesc.zip')]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^warning: .*renamed\.tgz: Directory name 'other-name' must match skill name 'renamed'$/m);
  assert.match(bad.stderr, /^error: .*slip\.zip(!\.\.\/evil)?: unsafe entry path "\.\.\/evil": '\.\.' segment in path$/m);
  assert.match(bad.stderr, /^error: .*nodesc\.zip: Missing required field in frontmatter: description$/m);
  const json = await runCli(['validate', '--json', join(dir, 'good.skill'), join(dir, 'renamed.tgz'), join(dir, 'slip.zip')]);
  const report = JSON.parse(json.stdout) as { valid: boolean; skills: Array<{ name?: string; valid: boolean; servable: boolean }> };
  assert.equal(report.valid, false);
  assert.deepEqual(
    report.skills.map((skill) => [skill.name, skill.valid, skill.servable]),
    [
      ['good', true, true],
      ['renamed', true, true],
      [undefined, false, false],
    ],
  );
});
