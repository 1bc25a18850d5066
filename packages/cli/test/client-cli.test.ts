import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sha256Digest } from '@skillport/core';
import { CLI, EXAMPLES, makeTree, runCli, skillMd, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { startProxy } from '@skillport/test-kit';
import type { Proxy } from '@skillport/test-kit';

/** `skillport ls|show|cat|install` against real servers (HTTP and stdio), real folders and a tampering proxy. */
describe('skillport ls, show, cat, install', () => {
  let server: RunningServer;
  let proxy: Proxy;
  before(async () => {
    server = await startHttp([EXAMPLES]);
    proxy = await startProxy(server.url);
  });
  after(async () => {
    await proxy.stop();
    await server.stop();
  });

  test('--help on every command', async () => {
    for (const command of ['ls', 'show', 'cat', 'install']) {
      const result = await runCli([command, '--help']);
      assert.equal(result.code, 0, command);
      assert.match(result.stdout, /stdio:COMMAND ARGS/, command);
    }
  });

  test('ls lists without reading any file (HTTP and stdio), --json for scripts', async () => {
    proxy.reset();
    const text = await runCli(['ls', proxy.url]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^api-design-review\s+Review REST/m);
    assert.equal(text.stdout.trim().split('\n').length, 6);
    assert.equal(proxy.counts['resources/read'] ?? 0, 0);
    const json = await runCli(['ls', '--json', `stdio:${process.execPath} ${CLI} serve --no-cache ${EXAMPLES}`]);
    assert.equal(json.code, 0, json.stderr);
    const parsed = JSON.parse(json.stdout) as { mode: string; skills: Array<{ name: string; digest: string; files: number }> };
    assert.equal(parsed.mode, 'extension');
    assert.equal(parsed.skills.length, 6);
    assert.match(parsed.skills[0]!.digest, /^sha256:/);
  });

  test('show and cat print verified content; clear errors and exit 1 otherwise', async () => {
    const show = await runCli(['show', server.url, 'csv-data-cleaning']);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /^files \(4\):$/m);
    assert.match(show.stdout, /assets\/sample\.csv {2}858 bytes {2}sha256:/);
    const showJson = JSON.parse((await runCli(['show', '--json', server.url, 'csv-data-cleaning'])).stdout) as {
      files: unknown[];
      frontmatter: { license: string };
    };
    assert.equal(showJson.files.length, 4);
    assert.equal(showJson.frontmatter.license, 'Apache-2.0');
    const cat = await runCli(['cat', server.url, 'csv-data-cleaning', 'assets/sample.csv']);
    assert.equal(cat.code, 0, cat.stderr);
    assert.equal(cat.stdout, readFileSync(join(EXAMPLES, 'csv-data-cleaning/assets/sample.csv'), 'utf8'));
    const skillMdText = await runCli(['cat', server.url, 'csv-data-cleaning']);
    assert.equal(skillMdText.stdout, readFileSync(join(EXAMPLES, 'csv-data-cleaning/SKILL.md'), 'utf8'));
    for (const [args, message] of [
      [['cat', server.url, 'csv-data-cleaning', '../../etc/passwd'], /not a valid path inside a skill/],
      [['cat', server.url, 'csv-data-cleaning', 'references/none.md'], /is not a file of skill 'csv-data-cleaning'/],
      [['cat', server.url, 'nope'], /no skill 'nope'/],
      [['ls', 'http://127.0.0.1:1/mcp'], /cannot connect to http:\/\/127\.0\.0\.1:1\/mcp/],
      [['ls', 'ftp://x'], /not a server: use an http\(s\):\/\/ URL or stdio:COMMAND ARGS/],
      [['ls', 'stdio:'], /names no command/],
    ] as const) {
      const result = await runCli([...args]);
      assert.equal(result.code, 1, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.equal(result.stdout, '');
    }
  });

  test('cat from a tampered server refuses the file and exits 1', async () => {
    proxy.tamper = (method, params, result) => {
      if (method !== 'resources/read' || !String(params['uri']).endsWith('sample.csv')) return result;
      const contents = (result['contents'] as Array<Record<string, unknown>>).map((content) => ({
        ...content,
        text: String(content['text']).replace('Ana', 'Eve'),
      }));
      return { ...result, contents };
    };
    try {
      const result = await runCli(['cat', proxy.url, 'csv-data-cleaning', 'assets/sample.csv']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /skill:\/\/csv-data-cleaning\/assets\/sample\.csv failed verification \(digest\): refused/);
      assert.equal(result.stdout, '');
    } finally {
      proxy.tamper = undefined;
    }
  });

  test('install writes verified skills and a lockfile; --frozen installs the pinned set and fails on drift', async () => {
    const source = makeTree({ 'alpha/SKILL.md': skillMd('alpha'), 'alpha/references/a.md': 'A\n', 'beta/SKILL.md': skillMd('beta') });
    const live = await startHttp([source]);
    try {
      // Installs run in a project folder: the lockfile is its skillport-lock.json.
      const project = makeTree({});
      const cli = (args: string[]) => runCli(args, {}, undefined, project);
      const lockPath = join(project, 'skillport-lock.json');
      const target = join(project, '.agents/skills');
      const first = await cli(['install', live.url, '--to', target]);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /^added alpha sha256:\S+ \(2 files\) → \.agents\/skills\/alpha$/m);
      assert.equal(readFileSync(join(target, 'alpha/references/a.md'), 'utf8'), 'A\n');
      assert.equal(readFileSync(join(target, 'beta/SKILL.md'), 'utf8'), skillMd('beta'));
      const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as {
        skills: Record<string, { uri: string; packageDigest: string; files: Record<string, string> }>;
      };
      assert.deepEqual(Object.keys(lock.skills), ['alpha', 'beta']);
      assert.equal(lock.skills['alpha']!.files['references/a.md'], sha256Digest('A\n'));
      assert.equal(lock.skills['alpha']!.uri, 'skill://alpha/SKILL.md');
      assert.deepEqual(readdirSync(target).sort(), ['alpha', 'beta'], 'no staging folders left behind');

      const frozen = await cli(['install', live.url, '--to', target, '--frozen', '--json']);
      assert.equal(frozen.code, 0, frozen.stderr);
      assert.deepEqual(
        (JSON.parse(frozen.stdout) as { results: Array<{ name: string; ok: boolean }> }).results.map((result) => [result.name, result.ok]),
        [
          ['alpha', true],
          ['beta', true],
        ],
      );

      // The server's copy changes: --frozen refuses it and keeps the installed copy; without --frozen it updates.
      writeFileSync(join(source, 'alpha/references/a.md'), 'changed\n');
      const drift = await (async () => {
        for (let attempt = 0; attempt < 100; attempt++) {
          const result = await cli(['install', live.url, 'alpha', '--to', target, '--frozen']);
          if (result.code !== 0) return result;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        throw new Error('the server never showed the change');
      })();
      assert.equal(drift.code, 1);
      assert.match(drift.stderr, /'alpha' drifted from the lockfile: references\/a\.md changed/);
      assert.equal(readFileSync(join(target, 'alpha/references/a.md'), 'utf8'), 'A\n');
      const update = await cli(['install', live.url, 'alpha', '--to', target]);
      assert.equal(update.code, 0, update.stderr);
      assert.match(update.stdout, /^alpha sha256:\S+ → sha256:\S+ \(\.agents\/skills\/alpha\)$/m);
      assert.equal(readFileSync(join(target, 'alpha/references/a.md'), 'utf8'), 'changed\n');
      const updated = JSON.parse(readFileSync(lockPath, 'utf8')) as typeof lock;
      assert.equal(updated.skills['alpha']!.files['references/a.md'], sha256Digest('changed\n'));
      assert.ok(updated.skills['beta'], 'other pins stay');

      const missing = await cli(['install', live.url, 'gamma', 'beta', '--to', target]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /gamma: no skill 'gamma'/);
      assert.match(missing.stdout, /^beta sha256:\S+ up to date$/m);
      const elsewhere = makeTree({});
      const noLock = await runCli(['install', live.url, '--to', join(elsewhere, 'x'), '--frozen'], {}, undefined, elsewhere);
      assert.equal(noLock.code, 1);
      assert.match(noLock.stderr, /--frozen needs a lockfile/);
      const usage = await runCli(['install', live.url], {}, undefined, elsewhere);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /give the folder to install into: --agent NAME .* or --to DIR/);
    } finally {
      await live.stop();
    }
  });

  test('install refuses a tampered file and leaves the earlier install untouched', async () => {
    const project = makeTree({});
    const target = join(project, 'skills');
    assert.equal((await runCli(['install', proxy.url, 'csv-data-cleaning', '--to', target], {}, undefined, project)).code, 0);
    const before = readFileSync(join(target, 'csv-data-cleaning/scripts/profile_csv.py'));
    proxy.tamper = (method, params, result) => {
      if (method !== 'resources/read' || !String(params['uri']).endsWith('profile_csv.py')) return result;
      const contents = (result['contents'] as Array<Record<string, unknown>>).map((content) => ({
        ...content,
        text: `import os; os.system("curl evil")\n${String(content['text'])}`,
      }));
      return { ...result, contents };
    };
    try {
      // --force: the installed copy is current, so only a forced install reads the files again.
      const result = await runCli(['install', proxy.url, 'csv-data-cleaning', '--to', target, '--force'], {}, undefined, project);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /csv-data-cleaning: skill:\/\/csv-data-cleaning\/scripts\/profile_csv\.py failed verification \(size\)/);
      assert.deepEqual(readFileSync(join(target, 'csv-data-cleaning/scripts/profile_csv.py')), before);
      assert.ok(!readdirSync(target).some((name) => name.startsWith('.skillport-')));
      assert.ok(existsSync(join(project, 'skillport-lock.json')));
    } finally {
      proxy.tamper = undefined;
    }
  });
});
