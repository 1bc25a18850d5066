import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { GitProvider } from '@skillport/server';
import { gitFixture, removeTrees, skillMd, tempFolder } from '@skillport/test-kit';

after(() => removeTrees());

const has = (repo: string, object: string) => {
  try {
    execFileSync('git', ['-C', repo, 'cat-file', '-e', object], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

describe('the git provider’s cache', () => {
  test('a restart while the remote is away serves the commit the cache last served, under the same provenance', async () => {
    const repo = gitFixture({ 'skills/kept/SKILL.md': skillMd('kept') });
    const commit = repo.git('rev-parse', 'HEAD');
    const cacheDir = tempFolder('git-cache');
    const first = await GitProvider.open({ source: `git:${repo.bare}#main`, cacheDir });
    const before = first.skills()[0]!.entry._meta;
    await first.close();
    renameSync(repo.bare, `${repo.bare}.away`);
    const again = await GitProvider.open({ source: `git:${repo.bare}#main`, cacheDir });
    try {
      assert.equal(again.commit, commit);
      assert.deepEqual(again.skills()[0]!.entry._meta, before);
      assert.equal(again.health().status, 'failing');
      assert.match(again.health().error ?? '', /does not appear to be a git repository|ls-remote failed/);
    } finally {
      await again.close();
    }
    // Never fetched and unreachable: an error at open.
    await assert.rejects(GitProvider.open({ source: `git:${repo.bare}#main`, cacheDir: tempFolder('git-cache') }), /ls-remote failed/);
  });

  test('objects of commits no longer served are pruned; what is served and the next fetches stay whole', async () => {
    const repo = gitFixture({ 'skills/a/SKILL.md': skillMd('a'), 'skills/a/data.txt': 'v0\n' });
    const cacheDir = tempFolder('git-cache');
    const provider = await GitProvider.open({ source: `git:${repo.bare}#main`, cacheDir, pruneEvery: 3 });
    try {
      const blob = (version: number) => hashOf(`v${version}\n`);
      const cache = join(cacheDir, (await import('node:fs')).readdirSync(cacheDir)[0]!);
      assert.ok(has(cache, blob(0)));
      for (let version = 1; version <= 3; version++) {
        repo.commit({ 'skills/a/data.txt': `v${version}\n` });
        await provider.refresh();
      }
      assert.equal(provider.commit, repo.git('rev-parse', 'HEAD'));
      assert.ok(!has(cache, blob(0)), 'the first commit’s blob is gone after the third fetch');
      assert.ok(has(cache, blob(3)), 'the served commit’s blob is kept');
      const skill = provider.skills()[0]!;
      const file = skill.files.find((entry) => entry.path === 'data.txt')!;
      assert.equal(
        Buffer.from(await (skill.origin as { blobs: { read(d: string, s: number): Promise<Uint8Array> } }).blobs.read(file.digest, file.size)).toString(),
        'v3\n',
      );
      repo.commit({ 'skills/a/data.txt': 'v4\n' });
      await provider.refresh();
      assert.equal(provider.health().status, 'ok');
      assert.equal(provider.commit, repo.git('rev-parse', 'HEAD'));
    } finally {
      await provider.close();
    }
  });
});

function hashOf(text: string): string {
  return execFileSync('git', ['hash-object', '--stdin'], { input: text, encoding: 'utf8' }).trim();
}
