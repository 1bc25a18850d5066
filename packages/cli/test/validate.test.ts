import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CORPUS, makeTree, runCli, skillMd } from '@skillport/test-kit';

/**
 * `skillport validate`, run as a real process. Messages are the reference validator's (skills-ref) where it has
 * one; each problem is a cargo-style line `warning: <path>: <message>` or `error: …` (NO_COLOR: runCli sets it).
 * Below, a warning's message is written with the WARN suffix.
 */
const WARN = ' (warning)';
const ALLOWED_LIST = "['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name']";
const DESCRIPTION = 'Does things. Use when asked.';

type Run = Awaited<ReturnType<typeof runCli>>;

const fm = (lines: string[]) => `---\n${lines.join('\n')}\n---\n\n# Body\n`;

/** Invalid skills: folder name, SKILL.md text (undefined: no SKILL.md), the exact problem lines expected. */
const INVALID: Array<{ folder: string; text: string | undefined; expected: Array<string | RegExp> }> = [
  { folder: 'no-skill-md', text: undefined, expected: ['Missing required file: SKILL.md'] },
  { folder: 'no-frontmatter', text: '# Just markdown\n', expected: ['SKILL.md must start with YAML frontmatter (---)'] },
  { folder: 'unclosed', text: '---\nname: unclosed\ndescription: x\n', expected: ['SKILL.md frontmatter not properly closed with ---'] },
  {
    folder: 'bad-yaml',
    text: fm(['name: [bad-yaml', `description: ${DESCRIPTION}`]),
    expected: [/^Invalid YAML in frontmatter at line \d+, column \d+: \S.*$/],
  },
  {
    folder: 'duplicate-key',
    text: fm(['name: duplicate-key', 'name: duplicate-key', `description: ${DESCRIPTION}`]),
    // The second `name` is on line 3 of SKILL.md (line 1 is the opening ---).
    expected: [/^Invalid YAML in frontmatter at line 3, column 1: \S.*$/],
  },
  { folder: 'not-mapping', text: fm(['- name', '- description']), expected: ['SKILL.md frontmatter must be a YAML mapping'] },
  {
    folder: 'extra-fields',
    text: fm(['name: extra-fields', `description: ${DESCRIPTION}`, 'foo: 1', 'bar: 2']),
    expected: [`Unexpected fields in frontmatter: bar, foo. Only ${ALLOWED_LIST} are allowed.${WARN}`],
  },
  { folder: 'no-name', text: fm([`description: ${DESCRIPTION}`]), expected: ['Missing required field in frontmatter: name'] },
  { folder: 'number-name', text: fm(['name: 123', `description: ${DESCRIPTION}`]), expected: ["Field 'name' must be a non-empty string"] },
  { folder: 'empty-name', text: fm(['name: ""', `description: ${DESCRIPTION}`]), expected: ["Field 'name' must be a non-empty string"] },
  {
    folder: 'a'.repeat(65),
    text: fm([`name: ${'a'.repeat(65)}`, `description: ${DESCRIPTION}`]),
    expected: [`Skill name '${'a'.repeat(65)}' exceeds 64 character limit (65 chars)`],
  },
  { folder: 'Upper', text: fm(['name: Upper', `description: ${DESCRIPTION}`]), expected: ["Skill name 'Upper' must be lowercase"] },
  { folder: '-leading', text: fm(['name: -leading', `description: ${DESCRIPTION}`]), expected: ['Skill name cannot start or end with a hyphen'] },
  { folder: 'trailing-', text: fm(['name: trailing-', `description: ${DESCRIPTION}`]), expected: ['Skill name cannot start or end with a hyphen'] },
  { folder: 'double--hyphen', text: fm(['name: double--hyphen', `description: ${DESCRIPTION}`]), expected: ['Skill name cannot contain consecutive hyphens'] },
  {
    folder: 'under_score',
    text: fm(['name: under_score', `description: ${DESCRIPTION}`]),
    expected: ["Skill name 'under_score' contains invalid characters. Only letters, digits, and hyphens are allowed."],
  },
  {
    folder: 'folder-name',
    text: fm(['name: skill-name', `description: ${DESCRIPTION}`]),
    expected: [`Directory name 'folder-name' must match skill name 'skill-name'${WARN}`],
  },
  { folder: 'no-description', text: fm(['name: no-description']), expected: ['Missing required field in frontmatter: description'] },
  { folder: 'number-description', text: fm(['name: number-description', 'description: 5']), expected: ["Field 'description' must be a non-empty string"] },
  {
    folder: 'long-description',
    text: fm(['name: long-description', `description: ${'😀'.repeat(1025)}`]),
    expected: ['Description exceeds 1024 character limit (1025 chars)'],
  },
  {
    folder: 'number-compatibility',
    text: fm(['name: number-compatibility', `description: ${DESCRIPTION}`, 'compatibility: 3']),
    expected: ["Field 'compatibility' must be a string"],
  },
  {
    folder: 'long-compatibility',
    text: fm(['name: long-compatibility', `description: ${DESCRIPTION}`, `compatibility: ${'c'.repeat(501)}`]),
    expected: ['Compatibility exceeds 500 character limit (501 chars)'],
  },
  { folder: 'café', text: fm(['name: café', `description: ${DESCRIPTION}`]), expected: [/^Skill name 'café' .*non-ASCII/] },
  {
    folder: 'Many_Problems',
    text: fm(['name: Many_Problems', 'license: MIT', 'title: x']),
    expected: [
      `Unexpected fields in frontmatter: title. Only ${ALLOWED_LIST} are allowed.${WARN}`,
      "Skill name 'Many_Problems' must be lowercase",
      "Skill name 'Many_Problems' contains invalid characters. Only letters, digits, and hyphens are allowed.",
      'Missing required field in frontmatter: description',
    ],
  },
];

/** Groups stderr's problem lines by path (path -> messages in order, a warning's with the WARN suffix). */
function failureBlocks(stderr: string): Map<string, string[]> {
  const blocks = new Map<string, string[]>();
  for (const line of stderr.split('\n')) {
    const problem = /^(warning|error): (.*?): (.*)$/.exec(line);
    if (!problem) continue;
    const [, severity, path, message] = problem as unknown as [string, string, string, string];
    blocks.set(path, [...(blocks.get(path) ?? []), severity === 'warning' ? `${message}${WARN}` : message]);
  }
  return blocks;
}

/** Cases whose every problem is a warning: valid (served and published as they are). */
const WARNED = INVALID.filter((item) => item.expected.every((line) => typeof line === 'string' && line.endsWith(WARN)));
const NOTE = 'note: --strict treats warnings as errors; --allow-field NAME accepts a field\n';

function assertLines(actual: string[] | undefined, expected: Array<string | RegExp>, label: string): void {
  assert.ok(actual, `no failure block for ${label}`);
  assert.equal(actual.length, expected.length, `${label}: ${JSON.stringify(actual)}`);
  expected.forEach((want, i) => {
    if (typeof want === 'string') assert.equal(actual[i], want, label);
    else assert.match(actual[i]!, want, label);
  });
}

let base: string;
const dirOf = (folder: string) => join(base, 'cases', folder);

before(() => {
  const spec: Record<string, string> = {
    'valid/pdf/SKILL.md': skillMd('pdf'),
    'valid/pdf/references/guide.md': '# Guide\n',
    'valid/docx/SKILL.md': skillMd('docx', DESCRIPTION, 'license: MIT\ncompatibility: Python 3\nmetadata:\n  author: someone\nallowed-tools: Read Bash\n'),
    'tree/a/one/SKILL.md': skillMd('one'),
    'tree/a/one/examples/inner/SKILL.md': skillMd('inner'),
    'tree/b/c/two/SKILL.md': skillMd('two'),
    'tree/node_modules/skipped/SKILL.md': '# not a skill\n',
    'tree/.git/skipped/SKILL.md': '# not a skill\n',
    'tree/notes/readme.md': 'not a skill folder\n',
    'cases/no-skill-md/readme.md': 'no SKILL.md here\n',
  };
  for (const item of INVALID) if (item.text !== undefined) spec[`cases/${item.folder}/SKILL.md`] = item.text;
  base = makeTree(spec);
});

after(() => rmSync(base, { recursive: true, force: true }));

describe('skillport validate', { concurrency: true }, () => {
  test('a valid skill: exit 0 and one summary line', async () => {
    const dir = join(base, 'valid', 'pdf');
    const run = await runCli(['validate', dir]);
    assert.deepEqual(run, { code: 0, stdout: '', stderr: '1 skill checked: valid\n' });
  });

  describe('several paths in one run: every invalid case, a SKILL.md path and a nonexistent path', () => {
    let run: Run;
    let blocks: Map<string, string[]>;
    const missing = () => join(base, 'does-not-exist');
    const upperFile = () => join(dirOf('Upper'), 'SKILL.md');
    before(async () => {
      run = await runCli(['validate', join(base, 'valid', 'pdf'), ...INVALID.map((item) => dirOf(item.folder)), upperFile(), missing()]);
      blocks = failureBlocks(run.stderr);
    });

    test('exit 1; problem lines grouped by path, in order, and one summary line', () => {
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stdout, '');
      const keys = [...blocks.keys()];
      assert.deepEqual(
        keys.slice(0, INVALID.length),
        INVALID.map((item) => dirOf(item.folder)),
      );
      assert.equal(keys.length, INVALID.length + 2);
      // A SKILL.md path stands for its folder (reported under the path as given, or its folder).
      assert.ok([upperFile(), dirOf('Upper')].includes(keys[INVALID.length]!), keys[INVALID.length]);
      assert.equal(keys[INVALID.length + 1], missing());
      const total = INVALID.length + 3;
      const valid = 1 + WARNED.length;
      assert.ok(
        run.stderr.endsWith(`\n${total} skills checked: ${valid} valid (${WARNED.length} with warnings), ${total - valid} invalid\n${NOTE}`),
        run.stderr,
      );
    });

    for (const item of INVALID) {
      test(`${item.folder.length > 20 ? `${item.folder.slice(0, 20)}…` : item.folder}: ${String(item.expected[0]).slice(0, 60)}`, () => {
        assertLines(blocks.get(dirOf(item.folder)), item.expected, item.folder);
      });
    }

    test('a SKILL.md path is validated as its folder', () => {
      assertLines([...blocks.values()][INVALID.length], ["Skill name 'Upper' must be lowercase"], 'Upper/SKILL.md');
    });

    test('a nonexistent path: `Path does not exist: <path>`', () => {
      assertLines(blocks.get(missing()), [`Path does not exist: ${missing()}`], 'missing path');
    });
  });

  test('an error case alone exits 1, with exactly its block on stderr and nothing on stdout', async () => {
    const dir = dirOf('Upper');
    const run = await runCli(['validate', dir]);
    assert.deepEqual(run, { code: 1, stdout: '', stderr: `error: ${dir}: Skill name 'Upper' must be lowercase\n1 skill checked: invalid\n` });
  });

  test('a warning-only case exits 0; --strict makes its warnings errors (exit 1); --quiet drops the note', async () => {
    const dir = dirOf('folder-name');
    const message = `${dir}: Directory name 'folder-name' must match skill name 'skill-name'`;
    const [lenient, strict, quiet] = await Promise.all([
      runCli(['validate', dir]),
      runCli(['validate', '--strict', dir]),
      runCli(['validate', '--quiet', dir]),
    ]);
    assert.deepEqual(lenient, { code: 0, stdout: '', stderr: `warning: ${message}\n1 skill checked: valid, with warnings\n${NOTE}` });
    assert.deepEqual(strict, { code: 1, stdout: '', stderr: `error: ${message}\n1 skill checked: invalid\n` });
    assert.deepEqual(quiet, { code: 0, stdout: '', stderr: `warning: ${message}\n1 skill checked: valid, with warnings\n` });
  });

  test('unknown fields: a warning, silenced by --allow-field (repeatable) or allowFields in the user config', async () => {
    const dir = dirOf('extra-fields');
    const config = makeTree({ 'config.json': JSON.stringify({ allowFields: ['bar'] }) });
    const [flags, one, fromConfig] = await Promise.all([
      runCli(['validate', '--allow-field', 'foo', '--allow-field', 'bar', dir]),
      runCli(['validate', '--allow-field', 'foo', dir]),
      runCli(['validate', '--allow-field', 'foo', dir], { SKILLPORT_CONFIG_DIR: config }),
    ]);
    assert.deepEqual(flags, { code: 0, stdout: '', stderr: '1 skill checked: valid\n' });
    assert.match(one.stderr, /^warning: .*Unexpected fields in frontmatter: bar\. /);
    assert.deepEqual(fromConfig, { code: 0, stdout: '', stderr: '1 skill checked: valid\n' });
    rmSync(config, { recursive: true, force: true });
  });

  test('file names that collide on macOS and Windows (case, Unicode normalisation) are an error naming both (publishing refuses them)', async () => {
    const root = makeTree({
      'clash/SKILL.md': skillMd('clash'),
      'clash/Notes.md': 'one\n',
      'clash/notes.md': 'two\n',
      'clash/caf\u00e9.md': 'nfc\n',
      'clash/cafe\u0301.md': 'nfd\n',
    });
    const dir = join(root, 'clash');
    const run = await runCli(['validate', dir]);
    assert.deepEqual(run, {
      code: 1,
      stdout: '',
      stderr: [
        `error: ${join(dir, 'caf\u00e9.md')}: 'cafe\u0301.md' (NFD) and 'caf\u00e9.md' (NFC) are one name in two Unicode normalisations: one file on macOS (rename one)`,
        `error: ${join(dir, 'notes.md')}: 'Notes.md' and 'notes.md' differ only in case: one file on macOS and Windows (rename one)`,
        '1 skill checked: invalid',
        '',
      ].join('\n'),
    });
    rmSync(root, { recursive: true, force: true });
  });

  test('a nonexistent path alone exits 1 with a message', async () => {
    const path = join(base, 'nope', 'pdf');
    const run = await runCli(['validate', path]);
    assert.deepEqual(run, { code: 1, stdout: '', stderr: `error: ${path}: Path does not exist: ${path}\n1 skill checked: invalid\n` });
  });

  test('a folder of skills is validated recursively (nested skills too; node_modules and .git skipped)', async () => {
    const tree = join(base, 'tree');
    const run = await runCli(['validate', tree]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, '3 skills checked: 3 valid, 0 invalid\n');
    const json = JSON.parse((await runCli(['validate', '--json', tree])).stdout) as { skills: Array<{ path: string }> };
    assert.deepEqual(
      json.skills.map((skill) => skill.path),
      [join(tree, 'a', 'one'), join(tree, 'a', 'one', 'examples', 'inner'), join(tree, 'b', 'c', 'two')],
    );
  });

  test('a SKILL.md file path means its folder', async () => {
    const file = join(base, 'valid', 'pdf', 'SKILL.md');
    const run = await runCli(['validate', file]);
    assert.deepEqual(run, { code: 0, stdout: '', stderr: '1 skill checked: valid\n' });
  });

  test('--json: one parseable report {valid, strict, summary, skills: [{path, name?, valid, servable, problems}]}', async () => {
    const pdf = join(base, 'valid', 'pdf');
    const renamed = dirOf('folder-name');
    const upper = dirOf('Upper');
    const missing = join(base, 'nope');
    const run = await runCli(['validate', '--json', pdf, renamed, upper, missing]);
    assert.equal(run.code, 1);
    assert.equal(run.stderr, '');
    const report = JSON.parse(run.stdout) as unknown;
    assert.deepEqual(report, {
      valid: false,
      strict: false,
      summary: { checked: 4, valid: 2, invalid: 2, warned: 1, servable: 2 },
      skills: [
        { path: pdf, name: 'pdf', valid: true, servable: true, problems: [] },
        {
          path: renamed,
          name: 'skill-name',
          valid: true,
          servable: true,
          problems: [{ severity: 'warning', message: "Directory name 'folder-name' must match skill name 'skill-name'" }],
        },
        { path: upper, valid: false, servable: false, problems: [{ severity: 'error', message: "Skill name 'Upper' must be lowercase" }] },
        { path: missing, valid: false, servable: false, problems: [{ severity: 'error', message: `Path does not exist: ${missing}` }] },
      ],
    });
  });

  test('--help exits 0 for skillport, serve and validate', async () => {
    const [top, serve, validate] = await Promise.all([runCli(['--help']), runCli(['serve', '--help']), runCli(['validate', '--help'])]);
    assert.equal(top.code, 0, top.stderr);
    assert.match(top.stdout, /Usage: skillport /);
    assert.match(top.stdout, /\bvalidate\b/);
    assert.match(top.stdout, /\bserve\b/);
    assert.equal(serve.code, 0, serve.stderr);
    assert.match(serve.stdout, /Usage: skillport serve /);
    assert.equal(validate.code, 0, validate.stderr);
    assert.match(validate.stdout, /Usage: skillport validate /);
    assert.match(validate.stdout, /--json/);
  });

  test('usage errors exit 2: an unknown option, no path', async () => {
    const [unknown, noPath] = await Promise.all([runCli(['validate', '--no-such-option', join(base, 'valid', 'pdf')]), runCli(['validate'])]);
    for (const run of [unknown, noPath]) {
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, '');
    }
    assert.match(unknown.stderr, /unknown option '--no-such-option'/);
    assert.match(noPath.stderr, /missing required argument/);
  });

  test('the shared corpus: 725 skills, at least 700 valid', { skip: existsSync(CORPUS) ? false : `corpus not found at ${CORPUS}` }, async () => {
    const run = await runCli(['validate', '--json', CORPUS]);
    assert.equal(run.code, 1, 'the corpus holds invalid skills');
    const report = JSON.parse(run.stdout) as { valid: boolean; skills: Array<{ path: string; valid: boolean; servable: boolean; name?: string }> };
    assert.equal(report.valid, false);
    assert.equal(report.skills.length, 725);
    const valid = report.skills.filter((skill) => skill.valid).length;
    assert.ok(valid >= 700, `only ${valid} valid`);
    for (const skill of report.skills) {
      if (skill.valid) assert.ok(skill.servable && typeof skill.name === 'string', skill.path);
      assert.equal(skill.servable, typeof skill.name === 'string', skill.path);
    }
  });
});
