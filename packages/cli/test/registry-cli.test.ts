import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { makeTree, runCli, skillMd } from '@skillport/test-kit';
import { publish, releaseFolder, storeDir } from '@skillport/test-kit';

describe('registry commands: help, usage errors, exit codes', () => {
  test('every registry command has --help (exit 0)', async () => {
    for (const command of [['pack'], ['publish'], ['versions'], ['tag'], ['yank'], ['revoke'], ['review'], ['keygen'], ['verify'], ['store', 'check']]) {
      const result = await runCli([...command, '--help']);
      assert.equal(result.code, 0, `${command.join(' ')}: ${result.stderr}`);
      assert.match(result.stdout, /Usage: skillport/);
    }
  });

  test('usage errors exit 2 with one line', async () => {
    const usage = async (args: string[], env?: Record<string, string>, why?: RegExp) => {
      const run = await runCli(args, env);
      assert.equal(run.code, 2, args.join(' '));
      const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
      assert.equal(lines.length, 1, `one line for ${args.join(' ')}: ${run.stderr}`);
      assert.match(lines[0]!, /^skillport: error: /);
      if (why) assert.match(lines[0]!, why);
    };
    await usage(['yank', 'no-version', '--registry', 'http://127.0.0.1:9'], undefined, /NAME@VERSION/);
    await usage(['versions', 'x'], { SKILLPORT_REGISTRY: '' }, /--registry/);
    await usage(['versions', 'x', '--registry', 'ftp://host'], undefined, /http\(s\) URL/);
    await usage(['versions', 'x', '--registry', 'http://a', '--data', '/tmp/x'], undefined, /not both/);
    await usage(['revoke', 'x@1.0.0', '--registry', 'http://a'], undefined, /--reason/);
  });

  test('keygen writes a private key (mode 600) and a public key, and will not overwrite without --force', async () => {
    const dir = makeTree({});
    const key = join(dir, 'signing.key');
    const made = await runCli(['keygen', '-o', key, '--json']);
    assert.equal(made.code, 0, made.stderr);
    assert.match(JSON.parse(made.stdout).keyId, /^ed25519:[0-9a-f]{32}$/);
    assert.equal(statSync(key).mode & 0o777, 0o600);
    assert.match(readFileSync(`${key}.pub`, 'utf8'), /BEGIN PUBLIC KEY/);
    const again = await runCli(['keygen', '-o', key]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists; use --force/);
    assert.equal((await runCli(['keygen', '-o', key, '--force'])).code, 0);
  });

  test('pack: deterministic bytes, errors refuse a skill, clear errors', async () => {
    const folder = releaseFolder('packed', '1.0.0');
    const out = makeTree({});
    const a = join(out, 'a.skill');
    const b = join(out, 'b.skill');
    assert.equal((await runCli(['pack', folder, '--version', '1.0.0', '-o', a])).code, 0);
    assert.equal((await runCli(['pack', folder, '--version', '1.0.0', '-o', b])).code, 0);
    assert.deepEqual(readFileSync(a), readFileSync(b));
    const exists = await runCli(['pack', folder, '-o', a]);
    assert.equal(exists.code, 1);
    assert.match(exists.stderr, /exists; use --force/);
    const invalid = makeTree({ 'Bad Skill/SKILL.md': '---\nname: Bad Skill\n---\n' });
    const refused = await runCli(['pack', join(invalid, 'Bad Skill'), '-o', join(out, 'c.skill')]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /does not validate:\n {2}error: Skill name 'Bad Skill' must be lowercase/);
    const missing = await runCli(['pack', join(out, 'nope')]);
    assert.match(missing.stderr, /no such file or folder/);
    const keyless = await runCli(['pack', folder, '--sign', join(out, 'no.key'), '-o', join(out, 'd.skill')]);
    assert.match(keyless.stderr, /cannot read the signing key .*ENOENT/);
    const notKey = join(out, 'bad.key');
    writeFileSync(notKey, 'not a key');
    assert.match((await runCli(['pack', folder, '--sign', notKey, '-o', join(out, 'e.skill')])).stderr, /not a private key/);
  });

  test('publish from a .skill file and into a local store; versions --json; store check exit 1 when a blob is lost', async () => {
    const data = storeDir();
    const folder = releaseFolder('local-skill', '1.0.0', { 'assets/data.txt': 'payload' });
    const out = join(makeTree({}), 'local-skill.skill');
    assert.equal((await runCli(['pack', folder, '--version', '2.0.0', '-o', out])).code, 0);
    const published = await publish([out, '--data', data]);
    assert.equal(published.code, 0, published.stderr);
    assert.equal(published.json?.['version'], '2.0.0', 'the version recorded in the archive');
    const versions = await runCli(['versions', 'local-skill', '--data', data, '--json']);
    assert.deepEqual(JSON.parse(versions.stdout).tags, { latest: '2.0.0' });
    const ok = await runCli(['store', 'check', '--data', data]);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    const digest = (published.json?.['files'] as Array<{ path: string; digest: string }>).find((f) => f.path === 'assets/data.txt')!.digest.slice(7);
    rmSync(join(data, 'blobs', 'sha256', digest.slice(0, 2), digest));
    const broken = await runCli(['store', 'check', '--data', data, '--json']);
    assert.equal(broken.code, 1);
    const report = JSON.parse(broken.stdout) as { consistent: boolean; problems: string[] };
    assert.equal(report.consistent, false);
    assert.match(report.problems.join('\n'), /is missing/);
    assert.match(broken.stderr, /is inconsistent \(1 problem\)/);
  });

  test('publish: warnings are printed and publish; --strict refuses them, listing the problems', async () => {
    const data = storeDir();
    const base = makeTree({ 'odd-fields/SKILL.md': skillMd('odd-fields', undefined, 'colour: blue\n') });
    const refused = await publish([join(base, 'odd-fields'), '--data', data, '--version', '1.0.0', '--strict']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /does not validate strictly \(--strict: warnings refuse it too\):\n {2}error: Unexpected fields in frontmatter: colour\./);
    const published = await publish([join(base, 'odd-fields'), '--data', data, '--version', '1.0.0']);
    assert.equal(published.code, 0, published.stderr);
    assert.match(published.stderr, /^warning: .*odd-fields.SKILL\.md: Unexpected fields in frontmatter: colour\./m);
    assert.equal(published.json?.['version'], '1.0.0');
    const allowed = await publish([join(base, 'odd-fields'), '--data', data, '--version', '1.0.1', '--strict', '--allow-field', 'colour']);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.doesNotMatch(allowed.stderr, /warning/);
  });
});
