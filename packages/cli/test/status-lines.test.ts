import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eventually, makeTree, registryUrl, runCli, skillMd, startHttp, storeDir } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/** Status lines that say what is true (each of these said something else before). */
const TOKEN = 'status-lines-token';

describe('registry status lines', () => {
  let server: RunningServer;
  let base: string;
  let folder: string;
  const env = { SKILLPORT_TOKEN: TOKEN };
  before(async () => {
    server = await startHttp(['--data', storeDir(), '--no-web'], env);
    base = registryUrl(server.url);
    folder = join(makeTree({ 'pdf-tools/SKILL.md': skillMd('pdf-tools') }), 'pdf-tools');
    for (const version of ['0.1.0', '0.2.0']) assert.equal((await runCli(['publish', folder, '--registry', base, '--version', version, '-q'], env)).code, 0);
    assert.equal((await runCli(['tag', 'pdf-tools@0.1.0', 'beta', '--registry', base], env)).code, 0);
  });
  after(async () => {
    await server.stop();
  });

  test('show NAME@TAG prints the tags pointing at that version', async () => {
    const run = await runCli(['show', base, 'pdf-tools@beta'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^version: +0\.1\.0$/m);
    assert.match(run.stdout, /^tags: +beta$/m);
  });

  test('versions fits 100 columns, a long revocation reason cut (whole in --json)', async () => {
    const reason = 'the archive ships a private key that must never have been published, rotate it and republish';
    assert.equal((await runCli(['revoke', 'pdf-tools@0.1.0', '--reason', reason, '--registry', base], env)).code, 0);
    const run = await runCli(['versions', 'pdf-tools', '--registry', base], env);
    assert.equal(run.code, 0, run.stderr);
    for (const line of run.stdout.trimEnd().split('\n')) assert.ok(line.length <= 100, `${line.length}: ${line}`);
    assert.match(run.stdout, /revoked: the archiv/);
    assert.ok(run.stdout.includes('…'));
  });

  test('a revoked version is named once in the error, not twice', async () => {
    const run = await runCli(['install', base, 'pdf-tools@0.1.0', '--to', 'skills'], env, undefined, makeTree({}));
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^skillport: error: pdf-tools@0\.1\.0 was revoked on \S+: the archive ships/m);
    assert.doesNotMatch(run.stderr, /pdf-tools@0\.1\.0: pdf-tools@0\.1\.0/);
  });
});

describe('local status lines', () => {
  test('pack names the archive with the version publish would read (metadata.version, else a top-level version)', async () => {
    const tree = makeTree({
      'meta/SKILL.md': skillMd('meta', undefined, 'metadata:\n  version: 1.4.0\n'),
      'top/SKILL.md': skillMd('top', undefined, 'version: 2.0.1\n'),
    });
    for (const [name, version] of [
      ['meta', '1.4.0'],
      ['top', '2.0.1'],
    ] as const) {
      const run = await runCli(['pack', name], {}, undefined, tree);
      assert.equal(run.code, 0, run.stderr);
      assert.ok(existsSync(join(tree, `${name}-${version}.skill`)), run.stdout);
      assert.match(run.stdout, new RegExp(`^Packed ${name}@${version.replace(/\./g, '\\.')}: `));
    }
  });

  test('verify of a missing file or key says so in words', async () => {
    const dir = makeTree({});
    const key = await runCli(['verify', join(dir, 'nope.skill'), '--key', join(dir, 'nope.pub')]);
    assert.equal(key.code, 1);
    assert.match(key.stderr, /nope\.pub: no such file$/m);
    assert.equal((await runCli(['keygen', '-o', join(dir, 'k')])).code, 0);
    const file = await runCli(['verify', join(dir, 'nope.skill'), '--key', join(dir, 'k.pub')]);
    assert.match(file.stderr, /nope\.skill: no such file$/m);
  });

  test('publish --help shows one default for --tag', async () => {
    const run = await runCli(['publish', '--help']);
    const tag = run.stdout.slice(run.stdout.indexOf('--tag <tag>'), run.stdout.indexOf('--strict'));
    assert.match(tag, /default: latest/);
    assert.doesNotMatch(tag, /\(default: \[\]\)/);
  });

  test('a reload of one skill says "1 skill"', async () => {
    const tree = makeTree({ 'solo/SKILL.md': skillMd('solo') });
    const server = await startHttp([tree, '--no-web']);
    try {
      writeFileSync(join(tree, 'solo/SKILL.md'), skillMd('solo', 'Changed. Use when asked.'));
      await eventually(async () => (/reloaded: 1 changed/.test(server.stderr()) ? true : undefined), 20_000, 'the reload line');
      assert.match(server.stderr(), /reloaded: 1 changed \(1 skill\)$/m);
    } finally {
      await server.stop();
    }
  });

  test('a restart after a folder was removed says so in its serving line, not in a reload line before it', async () => {
    const tree = makeTree({ 'a/deploy/SKILL.md': skillMd('deploy'), 'b/deploy/SKILL.md': skillMd('deploy') });
    const cache = makeTree({});
    const first = await startHttp([tree, '--no-web', '--cache-dir', cache], {}, { cache: true });
    await first.stop();
    rmSync(join(tree, 'b'), { recursive: true });
    const second = await startHttp([tree, '--no-web', '--cache-dir', cache], {}, { cache: true });
    try {
      const serving = /^skillport: serving .*$/m.exec(second.stderr())?.[0] ?? '';
      assert.doesNotMatch(second.stderr().slice(0, second.stderr().indexOf(serving)), /reloaded:/, second.stderr());
      // The check found the removal before the serving line (it says so), or after it (a reload line follows).
      if (!/checked against the disk: 1 removed\)$/.test(serving)) {
        assert.match(serving, /checked against the disk\)$/, second.stderr());
        await eventually(async () => (/^skillport: reloaded: 1 removed \(1 skill\)$/m.test(second.stderr()) ? true : undefined), 20_000, 'the reload line');
      }
    } finally {
      await second.stop();
    }
  });

  test('a brand-new registry does not say it started from the last run’s catalog', async () => {
    const cache = makeTree({});
    for (const data of [storeDir(), storeDir()]) {
      const server = await startHttp(['--data', data, '--no-web', '--cache-dir', cache], {}, { cache: true });
      await server.stop();
      assert.doesNotMatch(server.stderr(), /last run's catalog/, server.stderr());
    }
  });
});
