import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXAMPLES, REPO, makeTree, runCli, startHttp } from '@skillport/test-kit';

/**
 * The README a newcomer reads: short, and its registry in five commands runs as shown (in a scratch copy of the
 * examples, with `skillport` standing for the built CLI and the server on a free port instead of 3333). docs/cli.md
 * names every command and every flag the CLI has.
 */
const README = readFileSync(join(REPO, 'README.md'), 'utf8');

test('the README is at most ~150 lines and keeps the two commands', () => {
  assert.ok(README.split('\n').length <= 150, `${README.split('\n').length} lines`);
  assert.match(README, /npm install && npm start/);
  assert.match(README, /npm install && npm test/);
  assert.doesNotMatch(README, /npx -y skillport|SKILLPORT_PUBLISH_TOKEN/);
});

test('"A registry in five commands" runs as shown', async () => {
  const block = /## A registry in five commands\n\n```sh\n([\s\S]*?)```/.exec(README)?.[1];
  assert.ok(block, 'the section is there');
  const lines = block
    .trim()
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim());
  assert.equal(lines.length, 5);
  assert.match(lines[0]!, /^export SKILLPORT_TOKEN=/);
  const env = { SKILLPORT_TOKEN: 'readme-token', SKILLPORT_CONFIG_DIR: join(makeTree({}), 'config') };
  const clone = makeTree({});
  cpSync(EXAMPLES, join(clone, 'examples/skills'), { recursive: true });
  const serve = lines[1]!.replace(/\s*&$/, '').split(/\s+/);
  assert.deepEqual(serve.slice(0, 2), ['skillport', 'serve']);
  // startHttp adds --http --port 0: the rest of the line is the README's.
  const server = await startHttp(
    serve
      .slice(2)
      .filter((word) => word !== '--http')
      .map((word) => (word.startsWith('./') ? join(clone, word) : word)),
    env,
  );
  try {
    const base = server.url.replace(/\/mcp$/, '');
    for (const line of lines.slice(2)) {
      for (const command of line.split(';').map((part) => part.trim())) {
        const words = command.replace(/http:\/\/127\.0\.0\.1:3333/g, base).split(/\s+/);
        assert.equal(words[0], 'skillport', command);
        const run = await runCli(words.slice(1), env, undefined, clone);
        assert.equal(run.code, 0, `${command}: ${run.stderr}`);
      }
    }
    assert.ok(existsSync(join(clone, '.claude/skills/csv-data-cleaning/SKILL.md')));
    assert.ok(existsSync(join(clone, '.agents/skills/csv-data-cleaning/SKILL.md')));
  } finally {
    await server.stop();
  }
});

test('docs/cli.md names every command and every long flag', async () => {
  const doc = readFileSync(join(REPO, 'docs/cli.md'), 'utf8');
  const top = await runCli(['--help']);
  const commands = [...top.stdout.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
  assert.ok(commands.length > 20, top.stdout);
  const missing: string[] = [];
  for (const command of commands) {
    if (!new RegExp(`\\b${command}\\b`).test(doc)) missing.push(command);
    const help = await runCli([command, ...(command === 'serve' ? ['--help-all'] : ['--help'])]);
    for (const flag of new Set([...help.stdout.matchAll(/(--[a-z][a-z-]+)/g)].map((match) => match[1]!)))
      if (flag !== '--help' && !doc.includes(flag)) missing.push(`${command} ${flag}`);
  }
  assert.deepEqual(missing, [], 'named in docs/cli.md (node scripts/cli-help.mjs rewrites its options section)');
});
