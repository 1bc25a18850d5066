import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { discoverSkills } from '../src/index.js';
import { makeTree, removeTrees, skillMd } from './helpers.js';

after(removeTrees);

describe('discoverSkills: folder links that leave the served folder', () => {
  test('a link to a skill folder elsewhere is served; a link to a tree elsewhere is not searched', () => {
    const outside = makeTree({
      'home/.claude/skills/private/SKILL.md': skillMd('private', 'A private skill.'),
      'home/.claude/skills/private/.env': 'TOKEN=secret\n',
      'home/work/proj/skills/corp/SKILL.md': skillMd('corp', 'A corporate skill.'),
      'shared/linked-skill/SKILL.md': skillMd('linked-skill', 'A skill linked in.'),
    });
    const served = makeTree({ 'innocent/SKILL.md': skillMd('innocent', 'The repository skill.'), 'skills/.keep': '' });
    symlinkSync(join(outside, 'home'), join(served, 'docs'));
    symlinkSync(join(outside, 'shared/linked-skill'), join(served, 'skills/linked-skill'));
    // Inside the served folder, a link to another folder of it is followed as before.
    mkdirSync(join(served, 'inner/deep'), { recursive: true });
    symlinkSync(join(served, 'innocent'), join(served, 'inner/deep/again'));
    const { skills, problems } = discoverSkills(served);
    assert.deepEqual(skills.map((skill) => skill.segments.join('/')).sort(), ['inner/deep/again', 'innocent', 'skills/linked-skill']);
    const refused = problems.find((problem) => problem.path === join(served, 'docs'));
    assert.ok(refused !== undefined, JSON.stringify(problems));
    assert.equal(refused.severity, 'warning');
    assert.match(refused.message, /outside the served folder and not a skill folder; not followed/);
  });
});
