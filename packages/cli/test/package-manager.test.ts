import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeTree, registryUrl, runCli, skillMd, startHttp, storeDir } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * The package manager's verbs against a real registry server: install into two agents' folders from one install,
 * publish of a newer version, outdated and update saying what changed, a range and a pinned version staying within
 * what was asked, --frozen reading its folders from the lockfile, uninstall, agents, search.
 */
const TOKEN = 'package-manager-test-token';

describe('install, outdated, update, uninstall against a registry', () => {
  let server: RunningServer;
  let base: string;
  let project: string;
  let home: string;
  const env = () => ({ SKILLPORT_TOKEN: TOKEN, HOME: home, SKILLPORT_CONFIG_DIR: join(home, '.config/skillport') });
  const cli = (args: string[], cwd = project) => runCli(args, env(), undefined, cwd);
  const release = async (name: string, version: string) => {
    const folder = makeTree({ [`${name}/SKILL.md`]: skillMd(name, undefined, `metadata:\n  version: ${version}\n`, `# ${name}\n\nRelease ${version}.\n`) });
    const run = await cli(['publish', join(folder, name), '--registry', base, '--quiet']);
    assert.equal(run.code, 0, run.stderr);
  };
  const lock = () =>
    JSON.parse(readFileSync(join(project, 'skillport-lock.json'), 'utf8')) as { version: number; skills: Record<string, Record<string, unknown>> };
  before(async () => {
    server = await startHttp(['--data', storeDir(), '--no-web'], { SKILLPORT_TOKEN: TOKEN });
    base = registryUrl(server.url);
    project = makeTree({});
    home = makeTree({});
    await release('pdf-tools', '0.2.0');
    await release('pinned', '1.0.0');
    for (const version of ['1.0.0', '1.1.0', '2.0.0']) await release('ranged', version);
  });
  after(async () => {
    await server.stop();
  });

  test('one install writes into two agents’ folders and records both; a second install is up to date', async () => {
    const first = await cli(['install', base, 'pdf-tools', '--agent', 'claude-code', '--agent', 'codex']);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, 'added pdf-tools 0.2.0 (1 file) → .claude/skills/pdf-tools, .agents/skills/pdf-tools\n');
    for (const folder of ['.claude/skills', '.agents/skills'])
      assert.match(readFileSync(join(project, folder, 'pdf-tools/SKILL.md'), 'utf8'), /Release 0\.2\.0/);
    const entry = lock().skills['pdf-tools']!;
    assert.equal(lock().version, 2);
    assert.deepEqual(entry['targets'], [
      { dir: '.claude/skills', agent: 'claude-code' },
      { dir: '.agents/skills', agent: 'codex' },
    ]);
    assert.equal(entry['wanted'], 'latest');
    assert.equal(entry['uri'], 'skill://0.2.0/pdf-tools/SKILL.md', 'locked at the exact version');
    const again = await cli(['install', base, 'pdf-tools']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, 'pdf-tools 0.2.0 up to date\n');
  });

  test('a pinned version and a range: install resolves the range to its newest match', async () => {
    const pinned = await cli(['install', base, 'pinned@1.0.0', '--agent', 'claude-code']);
    assert.equal(pinned.code, 0, pinned.stderr);
    const ranged = await cli(['install', base, 'ranged@^1.0.0', '--agent', 'claude-code']);
    assert.equal(ranged.code, 0, ranged.stderr);
    assert.equal(ranged.stdout, 'added ranged 1.1.0 (1 file) → .claude/skills/ranged\n');
    assert.equal(lock().skills['ranged']!['wanted'], '^1.0.0');
  });

  test('after newer versions are published, outdated lists them and update moves within what was asked', async () => {
    await release('pdf-tools', '0.3.0');
    await release('pinned', '1.1.0');
    await release('ranged', '1.2.0');
    const before = await cli(['outdated']);
    assert.equal(before.code, 1, 'outdated exits 1 when something is, as npm outdated does');
    const rows = before.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/));
    assert.deepEqual(rows, [
      ['SKILL', 'INSTALLED', 'WANTED', 'LATEST'],
      ['pdf-tools', '0.2.0', '0.3.0', '0.3.0'],
      ['pinned', '1.0.0', '1.0.0', '1.1.0'],
      ['ranged', '1.1.0', '1.2.0', '1.2.0'],
    ]);
    const update = await cli(['update']);
    assert.equal(update.code, 0, update.stderr);
    assert.equal(
      update.stdout,
      [
        'pdf-tools 0.2.0 → 0.3.0 (.claude/skills/pdf-tools, .agents/skills/pdf-tools)',
        'pinned 1.0.0 up to date',
        'ranged 1.1.0 → 1.2.0 (.claude/skills/ranged)',
        '',
      ].join('\n'),
    );
    for (const folder of ['.claude/skills', '.agents/skills'])
      assert.match(readFileSync(join(project, folder, 'pdf-tools/SKILL.md'), 'utf8'), /Release 0\.3\.0/);
    const after = await cli(['outdated', '--json']);
    const skills = (JSON.parse(after.stdout) as { skills: Array<{ name: string; outdated: boolean }> }).skills;
    assert.deepEqual(
      skills.filter((skill) => skill.outdated).map((skill) => skill.name),
      ['pinned'],
      'only the pinned one has a newer latest',
    );
  });

  test('install --frozen in a fresh clone reads the folders from the lockfile (no --to, no --agent, no server)', async () => {
    // A newer latest is published first: --frozen still installs the locked version.
    await release('pdf-tools', '0.4.0');
    const clone = makeTree({});
    cpSync(join(project, 'skillport-lock.json'), join(clone, 'skillport-lock.json'));
    const frozen = await cli(['install', '--frozen'], clone);
    assert.equal(frozen.code, 0, frozen.stderr);
    assert.match(frozen.stdout, /^added pdf-tools 0\.3\.0 \(1 file\) → \.claude\/skills\/pdf-tools, \.agents\/skills\/pdf-tools$/m);
    assert.ok(existsSync(join(clone, '.agents/skills/pdf-tools/SKILL.md')));
  });

  test('--scope user writes under the home folder, with its own lockfile in the user config folder', async () => {
    const run = await cli(['install', base, 'pdf-tools', '--agent', 'gemini', '--scope', 'user']);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(existsSync(join(home, '.gemini/skills/pdf-tools/SKILL.md')));
    const userLock = JSON.parse(readFileSync(join(home, '.config/skillport/skillport-lock.json'), 'utf8')) as { skills: Record<string, { targets: unknown }> };
    assert.deepEqual(userLock.skills['pdf-tools']!.targets, [{ dir: '~/.gemini/skills', agent: 'gemini' }]);
  });

  test('the digest cache may not live in a folder an agent reads skills from', async () => {
    const run = await cli(['install', base, 'pdf-tools', '--agent', 'claude-code', '--cache-dir', join(project, '.claude/skills/.cache')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /--cache-dir .* a folder agents read skills from: keep the cache elsewhere/);
  });

  test('uninstall removes the skill from every folder and from the lockfile', async () => {
    const run = await cli(['uninstall', 'pdf-tools']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'removed pdf-tools (.claude/skills/pdf-tools, .agents/skills/pdf-tools)\n');
    assert.ok(!existsSync(join(project, '.claude/skills/pdf-tools')) && !existsSync(join(project, '.agents/skills/pdf-tools')));
    assert.equal(lock().skills['pdf-tools'], undefined);
    const again = await cli(['uninstall', 'pdf-tools']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /'pdf-tools' is not installed/);
  });

  test('agents lists the known agents and their folders; search ranks with the server', async () => {
    const agents = await cli(['agents', '--json']);
    const list = (JSON.parse(agents.stdout) as { agents: Array<{ id: string; project: string; user: string }> }).agents;
    for (const id of ['claude-code', 'codex', 'cursor', 'copilot', 'gemini'])
      assert.ok(
        list.some((agent) => agent.id === id),
        id,
      );
    assert.deepEqual(
      list.find((agent) => agent.id === 'claude-code'),
      {
        id: 'claude-code',
        name: 'Claude Code',
        project: '.claude/skills',
        user: '.claude/skills',
        source: 'https://code.claude.com/docs/en/skills',
        projectPath: join(project, '.claude/skills'),
        userPath: join(home, '.claude/skills'),
      },
    );
    const search = await cli(['search', base, 'pdf', 'tools', '--json']);
    assert.equal(search.code, 0, search.stderr);
    assert.equal((JSON.parse(search.stdout) as { skills: Array<{ name: string }> }).skills[0]?.name, 'pdf-tools');
  });
});
