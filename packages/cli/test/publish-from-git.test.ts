import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { gitFixture, removeTrees, runCli, skillMd, startHttp, tempFolder } from '@skillport/test-kit';

after(() => removeTrees());

interface Published {
  tag: string;
  commit: string;
  name: string;
  version: string;
  status: string;
}

describe('publish --from-git', () => {
  test("every skill of each matching tag becomes a version, with the tag's commit as provenance; again, nothing changes", async () => {
    const repo = gitFixture({ 'skills/alpha/SKILL.md': skillMd('alpha'), 'skills/beta/SKILL.md': skillMd('beta', undefined, 'metadata:\n  version: 0.9.0\n') });
    const first = repo.git('rev-parse', 'HEAD');
    repo.git('tag', '-a', 'v1.0.0', '-m', 'one');
    const second = repo.commit({ 'skills/alpha/SKILL.md': skillMd('alpha', 'Alpha, better. Use for alpha.') });
    repo.git('tag', 'v1.1.0');
    repo.git('tag', 'beta@2.0.0');
    repo.git('tag', 'nightly');
    repo.git('push', '--quiet', 'origin', '--tags');
    const data = join(tempFolder('from-git'), 'registry');

    const run = await runCli(['publish', '--from-git', repo.bare, '--tags', 'v*', '--data', data, '--json']);
    assert.equal(run.code, 0, run.stderr);
    const published = (JSON.parse(run.stdout) as Published[]).map((r) => `${r.tag} ${r.name}@${r.version} ${r.status} ${r.commit}`);
    assert.deepEqual(published, [
      `v1.0.0 alpha@1.0.0 created ${first}`,
      `v1.0.0 beta@1.0.0 created ${first}`,
      `v1.1.0 alpha@1.1.0 created ${second}`,
      `v1.1.0 beta@1.1.0 created ${second}`,
    ]);
    // A tag naming one skill publishes that one; a tag that is no version takes each skill's own metadata.version.
    const scoped = await runCli(['publish', '--from-git', repo.work, '--tags', 'beta@*', '--data', data, '--json']);
    assert.equal(scoped.code, 0, scoped.stderr);
    assert.deepEqual(
      (JSON.parse(scoped.stdout) as Published[]).map((r) => `${r.name}@${r.version} ${r.status}`),
      ['beta@2.0.0 created'],
    );
    const nightly = await runCli(['publish', '--from-git', repo.bare, '--tags', 'nightly', '--data', data, '--json']);
    assert.equal(nightly.code, 1, 'alpha has no version of its own');
    const nightlyResults = JSON.parse(nightly.stdout) as Array<Published & { error?: string }>;
    assert.deepEqual(
      nightlyResults.map((r) => `${r.name} ${r.status}`),
      ['alpha refused', 'beta created'],
    );
    assert.equal(nightlyResults[1]!.version, '0.9.0');

    // Idempotent: run again, every version is already there.
    const again = await runCli(['publish', '--from-git', repo.bare, '--tags', 'v*', '--data', data, '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(
      (JSON.parse(again.stdout) as Published[]).map((r) => r.status),
      ['exists', 'exists', 'exists', 'exists'],
    );
    const versions = await runCli(['versions', 'alpha', '--data', data, '--json']);
    const listed = JSON.parse(versions.stdout) as { tags: Record<string, string>; versions: Array<{ version: string }> };
    assert.equal(listed.tags['latest'], '1.1.0', 'the newest tag is latest');
    // The commit travels with the version: what a server serving the registry says of it.
    const server = await startHttp(['--data', data]);
    try {
      const shown = await runCli(['show', server.url, 'alpha', '--json']);
      assert.equal(shown.code, 0, shown.stderr);
      const registry = (JSON.parse(shown.stdout) as { registry: { version: string; repository?: string; commit?: string } }).registry;
      assert.deepEqual([registry.version, registry.repository, registry.commit], ['1.1.0', repo.bare, second]);
    } finally {
      await server.stop();
    }

    const none = await runCli(['publish', '--from-git', repo.bare, '--tags', 'x*', '--data', data]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no tag of .* matches x\*/);
  });
});
