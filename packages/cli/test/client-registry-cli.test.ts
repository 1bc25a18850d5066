import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createToken } from '@skillport/test-kit';
import { EXAMPLES, eventually, makeTree, runCli, skillMd, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { publish, registryUrl, storeDir, writeRelease } from '@skillport/test-kit';

/**
 * The client commands against the project's own servers as users meet them (issue 10): a server with
 * `--auth tokens` and a registry of versions, local edits in an installed folder, servers that fail to start.
 */
describe('ls, show, cat and install against an --auth tokens registry server', () => {
  let server: RunningServer;
  let data: string;
  let reader: string;
  let writer: string;
  let keyId: string;
  before(async () => {
    data = storeDir();
    const key = join(makeTree({}), 'ci.key');
    keyId = (JSON.parse((await runCli(['keygen', '-o', key, '--json'])).stdout) as { keyId: string }).keyId;
    const base = makeTree({});
    writeRelease(base, 'demo', '1.0.0');
    assert.equal((await publish([join(base, 'demo'), '--data', data, '--version', '1.0.0'])).code, 0);
    writeRelease(base, 'demo', '1.1.0', { 'scripts/run.sh': '#!/bin/sh\necho run\n' });
    assert.equal((await publish([join(base, 'demo'), '--data', data, '--version', '1.1.0', '--sign', key])).code, 0);
    assert.equal((await runCli(['tag', 'demo@1.0.0', 'beta', '--data', data])).code, 0);
    reader = await createToken(data, ['--user', 'alice', '--scope', 'read']);
    writer = await createToken(data, ['--user', 'carol', '--scope', 'admin']);
    server = await startHttp(['--auth', 'tokens', '--data', data, '--trusted-keys', `${key}.pub`, EXAMPLES]);
  });
  after(async () => {
    await server.stop();
  });

  test('--token and SKILLPORT_TOKEN authenticate; without one the error says how; a token is never printed', async () => {
    const anonymous = await runCli(['ls', server.url]);
    assert.equal(anonymous.code, 1);
    assert.match(anonymous.stderr, /unauthorized \(HTTP 401\).*pass it with --token or SKILLPORT_TOKEN/);
    const flag = await runCli(['ls', '--token', reader, server.url]);
    assert.equal(flag.code, 0, flag.stderr);
    assert.match(flag.stdout, /^csv-data-cleaning\s/m);
    assert.match(flag.stdout, /^demo\s/m);
    const env = await runCli(['show', server.url, 'csv-data-cleaning'], { SKILLPORT_TOKEN: reader });
    assert.equal(env.code, 0, env.stderr);
    const cat = await runCli(['cat', server.url, 'csv-data-cleaning'], { SKILLPORT_TOKEN: reader });
    assert.equal(cat.stdout, readFileSync(join(EXAMPLES, 'csv-data-cleaning/SKILL.md'), 'utf8'));
    const target = join(makeTree({}), 'skills');
    const installed = await runCli(['install', server.url, 'csv-data-cleaning', '--to', target, '--token', reader], {}, undefined, dirname(target));
    assert.equal(installed.code, 0, installed.stderr);
    const wrong = 'skp_000000000000_not-a-real-secret';
    const refused = await runCli(['ls', '--token', wrong, server.url]);
    assert.equal(refused.code, 1);
    for (const run of [anonymous, flag, env, installed, refused]) {
      assert.ok(!run.stderr.includes(reader) && !run.stdout.includes(reader) && !run.stderr.includes(wrong), 'no token in any output');
    }
    assert.ok(!readFileSync(join(dirname(target), 'skillport-lock.json'), 'utf8').includes(reader), 'no token in the lockfile');
  });

  test('show prints version, tags, signature, publisher and review; cat and install take NAME@VERSION, --version and tags', async () => {
    const env = { SKILLPORT_TOKEN: reader };
    const show = await runCli(['show', server.url, 'demo'], env);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /^version: +1\.1\.0$/m);
    assert.match(show.stdout, /^tags: +latest$/m);
    assert.match(show.stdout, new RegExp(`^signature: +${keyId} \\(trusted\\)$`, 'm'));
    assert.match(show.stdout, /^published: +\S+ by local$/m);
    assert.match(show.stdout, /^review: +unreviewed$/m);
    const old = await runCli(['show', '--json', server.url, 'demo@1.0.0'], env);
    const parsed = JSON.parse(old.stdout) as { version: string; uri: string; registry: { signatures: unknown[]; tags: string[] } };
    assert.equal(parsed.version, '1.0.0');
    assert.equal(parsed.uri, 'skill://1.0.0/demo/SKILL.md');
    assert.deepEqual(parsed.registry.signatures, []);

    const v1 = await runCli(['cat', server.url, 'demo@1.0.0', 'references/guide.md'], env);
    assert.equal(v1.stdout, 'guide for release 1.0.0\n', v1.stderr);
    assert.equal((await runCli(['cat', server.url, 'demo', 'references/guide.md', '--version', '1.0.0'], env)).stdout, 'guide for release 1.0.0\n');
    assert.equal(
      (await runCli(['cat', server.url, 'demo@beta', 'references/guide.md'], env)).stdout,
      'guide for release 1.0.0\n',
      'a tag is resolved through the registry API',
    );
    assert.equal((await runCli(['cat', server.url, 'demo', 'references/guide.md'], env)).stdout, 'guide for release 1.1.0\n');
    const missing = await runCli(['cat', server.url, 'demo@9.9.9'], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no version 9\.9\.9 of 'demo'/);

    const target = join(makeTree({}), 'skills');
    const pinned = await runCli(['install', server.url, 'demo@1.0.0', '--to', target], env, undefined, dirname(target));
    assert.equal(pinned.code, 0, pinned.stderr);
    const lock = JSON.parse(readFileSync(join(dirname(target), 'skillport-lock.json'), 'utf8')) as { skills: Record<string, { uri: string; version: string }> };
    assert.equal(lock.skills['demo']!.version, '1.0.0');
    assert.equal(lock.skills['demo']!.uri, 'skill://1.0.0/demo/SKILL.md');
    assert.equal(readFileSync(join(target, 'demo/references/guide.md'), 'utf8'), 'guide for release 1.0.0\n');
    // --frozen reads the exact version and the folder the lockfile pins, though the server lists 1.1.0.
    const frozen = await runCli(['install', '--frozen'], env, undefined, dirname(target));
    assert.equal(frozen.code, 0, frozen.stderr);
    assert.match(frozen.stdout, /^demo 1\.0\.0 up to date$/m);
  });

  test('the server logs each publish, tag, yank, unyank and revoke on one stderr line with who did it; versions are sorted by semver under headers', async () => {
    const registry = registryUrl(server.url);
    const base = makeTree({});
    for (const version of ['1.10.0', '1.2.0']) {
      writeRelease(base, 'demo', version);
      const published = await publish([join(base, 'demo'), '--registry', registry, '--token', writer, '--version', version, '--tag', 'next']);
      assert.equal(published.code, 0, published.stderr);
    }
    await eventually(
      async () => (/published demo@1\.2\.0 sha256:\S+ \(tags: next\) by carol/.test(server.stderr()) ? true : undefined),
      5000,
      'the publish log line',
    );
    assert.match(server.stderr(), /published demo@1\.10\.0 sha256:/);
    for (const args of [
      ['tag', 'demo@1.10.0', 'stable'],
      ['yank', 'demo@1.2.0'],
      ['yank', 'demo@1.2.0', '--undo'],
      ['revoke', 'demo@1.2.0', '--reason', 'leaks a key'],
    ]) {
      const run = await runCli([...args, '--registry', registry, '--token', writer]);
      assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
    }
    const log = server.stderr();
    assert.match(log, /^skillport: tagged demo@1\.10\.0 as stable by carol$/m);
    assert.match(log, /^skillport: yanked demo@1\.2\.0 by carol$/m);
    assert.match(log, /^skillport: unyanked demo@1\.2\.0 by carol$/m);
    assert.match(log, /^skillport: revoked demo@1\.2\.0: leaks a key by carol$/m);
    const versions = await runCli(['versions', 'demo', '--registry', registry, '--token', reader]);
    assert.equal(versions.code, 0, versions.stderr);
    const lines = versions.stdout.trim().split('\n');
    assert.equal(lines[0], 'demo: 4 versions');
    assert.match(lines[1]!, /^VERSION +DIGEST +PUBLISHED +SIGNATURE +TAGS +REVIEW +SCAN +STATE$/);
    assert.deepEqual(
      lines.slice(2).map((line) => line.split(/\s+/)[0]),
      ['1.0.0', '1.1.0', '1.2.0', '1.10.0'],
    );
    assert.match(lines[4]!, /revoked: leaks a key$/);
  });
});

describe('install keeps local work and scripts; ls reads folders', () => {
  let source: string;
  let server: RunningServer;
  before(async () => {
    source = makeTree({
      'alpha/SKILL.md': skillMd('alpha'),
      'alpha/scripts/run.sh': '#!/bin/sh\necho alpha\n',
      'alpha/references/notes.md': 'notes\n',
      'beta/SKILL.md': skillMd('beta'),
    });
    server = await startHttp([source]);
  });
  after(async () => {
    await server.stop();
  });

  test('scripts are installed executable, and a file made executable locally stays so', async () => {
    const target = join(makeTree({}), 'skills');
    const first = await runCli(['install', server.url, 'alpha', '--to', target], {}, undefined, dirname(target));
    assert.equal(first.code, 0, first.stderr);
    assert.notEqual(statSync(join(target, 'alpha/scripts/run.sh')).mode & 0o111, 0, 'a #! script is executable');
    assert.equal(statSync(join(target, 'alpha/SKILL.md')).mode & 0o111, 0);
    chmodSync(join(target, 'alpha/references/notes.md'), 0o755);
    const again = await runCli(['install', server.url, 'alpha', '--to', target], {}, undefined, dirname(target));
    assert.equal(again.code, 0, again.stderr);
    assert.notEqual(statSync(join(target, 'alpha/references/notes.md')).mode & 0o111, 0, 'the local executable bit is kept');
  });

  test('local edits are not overwritten without --force, and the message names the files', async () => {
    const target = join(makeTree({}), 'skills');
    assert.equal((await runCli(['install', server.url, '--to', target], {}, undefined, dirname(target))).code, 0);
    writeFileSync(join(target, 'alpha/SKILL.md'), `${skillMd('alpha')}\nMy own notes.\n`);
    writeFileSync(join(target, 'alpha/mine.md'), 'mine\n');
    const refused = await runCli(['install', server.url, 'alpha', '--to', target], {}, undefined, dirname(target));
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /has local changes that installing would overwrite: SKILL\.md \(modified\), mine\.md \(added\); use --force/);
    assert.match(readFileSync(join(target, 'alpha/SKILL.md'), 'utf8'), /My own notes/);
    const frozen = await runCli(['install', '--frozen', 'alpha', '--to', target], {}, undefined, dirname(target));
    assert.equal(frozen.code, 1, 'the lockfile names the server; local edits still stop it');
    assert.match(frozen.stderr, /SKILL\.md \(modified\)/);
    const forced = await runCli(['install', server.url, 'alpha', '--to', target, '--force'], {}, undefined, dirname(target));
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(readFileSync(join(target, 'alpha/SKILL.md'), 'utf8'), skillMd('alpha'));
    assert.ok(!existsSync(join(target, 'alpha/mine.md')));
    // A folder skillport did not install is somebody's work too.
    const other = join(makeTree({}), 'skills');
    makeTree({ 'beta/SKILL.md': 'hand-written\n' }, other);
    const foreign = await runCli(['install', server.url, 'beta', '--to', other], {}, undefined, dirname(other));
    assert.equal(foreign.code, 1);
    assert.match(foreign.stderr, /SKILL\.md \(not installed by skillport\)/);
  });

  test('install --frozen needs no server: it reads it from the lockfile', async () => {
    const target = join(makeTree({}), 'skills');
    assert.equal((await runCli(['install', server.url, '--to', target], {}, undefined, dirname(target))).code, 0);
    const frozen = await runCli(['install', '--frozen', '--to', target, '--json'], {}, undefined, dirname(target));
    assert.equal(frozen.code, 0, frozen.stderr);
    assert.deepEqual(
      (JSON.parse(frozen.stdout) as { results: Array<{ name: string; ok: boolean }> }).results.map((r) => [r.name, r.ok]),
      [
        ['alpha', true],
        ['beta', true],
      ],
    );
    const usage = await runCli(['install', '--to', target], {}, undefined, dirname(target));
    assert.equal(usage.code, 1);
    assert.match(usage.stderr, /give the server to install from/);
  });

  test('ls, show and cat work on a local folder; a SKILL.md path says to give its folder', async () => {
    const ls = await runCli(['ls', source]);
    assert.equal(ls.code, 0, ls.stderr);
    assert.deepEqual(
      ls.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/)[0]),
      ['alpha', 'beta'],
    );
    const cat = await runCli(['cat', source, 'alpha', 'scripts/run.sh']);
    assert.equal(cat.stdout, '#!/bin/sh\necho alpha\n');
    const file = await runCli(['ls', join(source, 'alpha/SKILL.md')]);
    assert.equal(file.code, 1);
    assert.match(file.stderr, /is a file: give the folder/);
    const none = await runCli(['ls', join(source, 'nope')]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /is not a server or a folder/);
  });
});

describe('errors people understand', () => {
  test('a stdio server that exits: its stderr tail is shown', async () => {
    const script = join(
      makeTree({ 'fail.mjs': "console.error('loading config…');\nconsole.error('fatal: missing config file /etc/skills.yaml');\nprocess.exit(3);\n" }),
      'fail.mjs',
    );
    const result = await runCli(['ls', `stdio:${process.execPath} ${script}`]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /the server process exited/);
    assert.match(result.stderr, /stderr ended with:\n {2}\| loading config…\n {2}\| fatal: missing config file \/etc\/skills\.yaml/);
  });

  test('nothing listening: "connection refused", not SDK jargon', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const result = await runCli(['ls', `http://127.0.0.1:${port}/mcp`]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`cannot connect to http://127\\.0\\.0\\.1:${port}/mcp: connection refused by 127\\.0\\.0\\.1:${port}`));
    assert.doesNotMatch(result.stderr, /fetch failed|negotiation/i);
  });
});

describe('small things users of npm, cargo and Verdaccio expect', () => {
  test('init NAME scaffolds a skill that validates; a bad name is a usage error; an existing folder is kept', async () => {
    const parent = makeTree({});
    const made = await runCli(['init', 'pdf-tools', '--dir', parent]);
    assert.equal(made.code, 0, made.stderr);
    assert.match(readFileSync(join(parent, 'pdf-tools/SKILL.md'), 'utf8'), /^---\nname: pdf-tools\ndescription: /);
    const validate = await runCli(['validate', join(parent, 'pdf-tools')]);
    assert.equal(validate.code, 0, validate.stdout + validate.stderr);
    assert.equal((await runCli(['init', 'PDF_tools', '--dir', parent])).code, 2);
    const again = await runCli(['init', 'pdf-tools', '--dir', parent]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists and is not empty; use --force/);
  });

  test("init into a --dir that is a file, or over a file of the skill's name, is one clear line, not a stack", async () => {
    const parent = makeTree({ 'notes.txt': 'a file', 'pdf-tools': 'a file named like the skill' });
    const inFile = await runCli(['init', 'pdf-tools', '--dir', join(parent, 'notes.txt')]);
    assert.equal(inFile.code, 1, inFile.stderr);
    assert.match(inFile.stderr, /^skillport: error: cannot create .*SKILL\.md: a part of the path is a file, not a folder\n$/);
    const overFile = await runCli(['init', 'pdf-tools', '--dir', parent]);
    assert.equal(overFile.code, 1, overFile.stderr);
    assert.match(overFile.stderr, /^skillport: error: .*pdf-tools exists and is not a folder\n$/);
    assert.equal(readFileSync(join(parent, 'pdf-tools'), 'utf8'), 'a file named like the skill');
  });

  test('token list, audit and versions with a mistyped --data fail and create nothing', async () => {
    const typo = join(makeTree({}), 'dta');
    for (const args of [
      ['token', 'list', '--data', typo],
      ['audit', '--data', typo],
      ['versions', 'x', '--data', typo],
      ['yank', 'x@1.0.0', '--data', typo],
    ]) {
      const result = await runCli(args);
      assert.equal(result.code, 1, args.join(' '));
      assert.match(result.stderr, /no (access|registry) data at |no audit log in /, args.join(' '));
      assert.ok(!existsSync(typo), `${args.join(' ')} created ${typo}`);
    }
  });

  test('yank --undo lists a version again and gives latest back; plurals', async () => {
    const data = storeDir();
    const base = makeTree({});
    for (const version of ['1.0.0', '2.0.0']) {
      writeRelease(base, 'one', version);
      assert.equal((await publish([join(base, 'one'), '--data', data, '--version', version])).code, 0);
    }
    const tags = async () => (JSON.parse((await runCli(['versions', 'one', '--data', data, '--json'])).stdout) as { tags: Record<string, string> }).tags;
    assert.equal((await runCli(['yank', 'one@2.0.0', '--data', data])).code, 0);
    assert.equal((await tags())['latest'], '1.0.0');
    const undo = await runCli(['yank', 'one@2.0.0', '--undo', '--data', data]);
    assert.equal(undo.code, 0, undo.stderr);
    assert.match(undo.stdout, /Unyanked one@2\.0\.0/);
    assert.equal((await tags())['latest'], '2.0.0');
    assert.doesNotMatch((await runCli(['versions', 'one', '--data', data])).stdout, /yanked/);
    assert.equal((await runCli(['revoke', 'one@1.0.0', '--reason', 'bad', '--data', data])).code, 0);
    const revoked = await runCli(['yank', 'one@1.0.0', '--undo', '--data', data]);
    assert.equal(revoked.code, 1);
    assert.match(revoked.stderr, /revoked; a revoked version cannot be restored/);

    const single = makeTree({ 'solo/SKILL.md': skillMd('solo') });
    const packed = await runCli(['pack', join(single, 'solo'), '-o', join(single, 'solo.skill')]);
    assert.match(packed.stdout, /: 1 file, \d+ bytes ->/);
    const check = await runCli(['store', 'check', '--data', data]);
    assert.match(check.stdout, /Consistent: 2 versions, 1 tag, /);
    const server = await startHttp([single]);
    try {
      const installed = await runCli(['install', server.url, '--to', join(single, 'out')], {}, undefined, single);
      assert.match(installed.stdout, /^added solo sha256:\S+ \(1 file\) → out\/solo$/m);
    } finally {
      await server.stop();
    }
  });
});
