import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { gitFixture, removeTrees, runCli, skillMd, tempFolder } from '@skillport/test-kit';

after(() => removeTrees());

interface Locked {
  source: string;
  uri: string;
  commit?: string;
  packageDigest: string;
  files: Record<string, string>;
}

describe('install from a git repository', () => {
  test('install REPO#REF NAME pins the commit and digests; outdated and update move along the branch; --frozen stays on the pin', async () => {
    const repo = gitFixture({ 'skills/alpha/SKILL.md': skillMd('alpha', 'Alpha one. Use for alpha.'), 'skills/beta/SKILL.md': skillMd('beta') });
    const first = repo.git('rev-parse', 'HEAD');
    const work = tempFolder('install-git');
    const to = join(work, 'skills');
    const lockfile = join(work, 'skillport-lock.json');
    const cache = join(work, 'cache');
    const source = `git:${repo.bare}#main:skills`;
    const common = ['--lockfile', lockfile, '--cache-dir', cache];
    const lock = () => (JSON.parse(readFileSync(lockfile, 'utf8')) as { skills: Record<string, Locked> }).skills;
    const installed = () => readFileSync(join(to, 'alpha', 'SKILL.md'), 'utf8');

    const run = await runCli(['install', source, 'alpha', '--to', to, ...common]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`added alpha ${first.slice(0, 12)}`));
    const pinned = lock()['alpha']!;
    assert.equal(pinned.source, source);
    assert.equal(pinned.uri, 'skill://alpha/SKILL.md');
    assert.equal(pinned.commit, first);
    assert.match(pinned.packageDigest, /^sha256:[0-9a-f]{64}$/);
    assert.match(installed(), /Alpha one/);

    // Nothing moved: up to date.
    assert.equal((await runCli(['outdated', ...common])).code, 0);

    const second = repo.commit({ 'skills/alpha/SKILL.md': skillMd('alpha', 'Alpha two. Use for alpha.') });
    const stale = await runCli(['outdated', ...common]);
    assert.equal(stale.code, 1, stale.stderr);
    assert.match(stale.stdout, new RegExp(`alpha +${first.slice(0, 12)} +${second.slice(0, 12)}`));

    const updated = await runCli(['update', ...common]);
    assert.equal(updated.code, 0, updated.stderr);
    assert.match(updated.stdout, new RegExp(`alpha ${first.slice(0, 12)} → ${second.slice(0, 12)}`));
    assert.equal(lock()['alpha']!.commit, second);
    assert.match(installed(), /Alpha two/);

    // The branch moves on (even by a force-push); --frozen installs the pinned commit, not the branch's head.
    repo.commit({ 'skills/alpha/SKILL.md': skillMd('alpha', 'Alpha three. Use for alpha.') });
    const frozen = await runCli(['install', '--frozen', '--force', ...common]);
    assert.equal(frozen.code, 0, frozen.stderr);
    assert.match(installed(), /Alpha two/);
    assert.equal(lock()['alpha']!.commit, second);

    // A ref that does not exist: a clear error, nothing written.
    const missing = await runCli([
      'install',
      `git:${repo.bare}#nope`,
      'alpha',
      '--to',
      join(work, 'other'),
      '--lockfile',
      join(work, 'other.json'),
      '--cache-dir',
      cache,
    ]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no branch or tag nope/);
  });
});
