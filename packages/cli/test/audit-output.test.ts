import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CLI, makeTree, removeTrees, runCli, skillMd, startHttp, startProxy } from '@skillport/test-kit';

/**
 * What an outside audit found in the CLI's output with hostile skill folders (each case failed before its fix):
 * control characters from names and descriptions reached the terminal raw, `validate` said nothing about folders
 * discovery could not search or a SKILL.md that is a folder, its `--json` had no summary, and a SKILL.md holding a
 * NUL byte was called "not valid UTF-8".
 */
after(removeTrees);

const RAW_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;
// C1 controls (8-bit CSI, OSC, ST) and a bidirectional override: C0 controls in frontmatter are refused (core frontmatter.ts).
const ESCAPING = '---\nname: esc-desc\ndescription: "Clears \\x9b2J\\x9d0;pwned\\x9c the \\u202Escreen. Use when asked."\n---\n\n# x\n';

describe('CLI output of hostile skill folders', () => {
  test('ls and show escape control and bidirectional characters of a description', async () => {
    const root = makeTree({ 'esc-desc/SKILL.md': ESCAPING });
    const [ls, show] = await Promise.all([runCli(['ls', root]), runCli(['show', root, 'esc-desc'])]);
    for (const run of [ls, show]) {
      assert.equal(run.code, 0, run.stderr);
      assert.doesNotMatch(run.stdout, RAW_CONTROLS);
      assert.ok(run.stdout.includes('Clears \\u009b2J\\u009d0;pwned\\u009c the \\u202escreen.'), run.stdout);
    }
    // --json stays the exact value.
    const json = await runCli(['ls', '--json', root]);
    assert.ok(json.stdout.includes('Clears \u009b2J\u009d0;pwned\u009c the \u202escreen.'), json.stdout);
  });

  test('validate escapes control characters in names and file names, one line per problem', async () => {
    const root = makeTree({
      'esc-name/SKILL.md': '---\nname: "esc\\x9b2J"\ndescription: Escapes.\n---\n\n# x\n',
      'esc-c0/SKILL.md': '---\nname: "esc\\e[2J"\ndescription: Escapes.\n---\n\n# x\n',
      'odd/SKILL.md': skillMd('odd'),
      'odd/back\\slash\u001b[31m.md': 'x\n',
    });
    const run = await runCli(['validate', root]);
    assert.equal(run.code, 1);
    assert.doesNotMatch(run.stderr, RAW_CONTROLS);
    assert.match(run.stderr, /Skill name 'esc\\u009b2J' must be lowercase/);
    assert.match(run.stderr, /esc-c0: frontmatter 'name' at line 2 contains a control character \(U\+001B, written as an escape\): remove it$/m);
    assert.match(run.stderr, /back\\slash\\u001b\[31m\.md: file name holds a backslash/);
  });

  test('validate reports a SKILL.md that is a folder and the folders too deep to search, beside the skills it found', async () => {
    const root = makeTree({ 'good/SKILL.md': skillMd('good') });
    mkdirSync(join(root, 'folder-manifest', 'SKILL.md'), { recursive: true });
    writeFileSync(join(root, 'folder-manifest', 'SKILL.md', 'notes.md'), '# notes\n');
    const deep = Array.from({ length: 18 }, (_, index) => `l${index}`);
    makeTree({ [`${deep.join('/')}/deep/SKILL.md`]: skillMd('deep') }, root);
    const cut = join(root, ...deep.slice(0, 16));

    // Warnings (the skills found are valid: exit 0), and the summary counts the folders passed over apart.
    const text = await runCli(['validate', root]);
    assert.equal(text.code, 0, text.stderr);
    assert.ok(text.stderr.includes(`warning: ${join(root, 'folder-manifest')}: SKILL.md is a folder, not a file; not a skill\n`), text.stderr);
    assert.ok(text.stderr.includes(`warning: ${cut}: folders deeper than 16 levels are not searched for skills\n`), text.stderr);
    assert.match(text.stderr, /^1 skill checked: valid; 2 folders passed over \(see above\)$/m);

    // A SKILL.md folder named alone: the same reason, not "Missing required file".
    const alone = await runCli(['validate', join(root, 'folder-manifest')]);
    assert.equal(alone.code, 1);
    assert.match(alone.stderr, /SKILL\.md is a folder, not a file; not a skill/);
    assert.doesNotMatch(alone.stderr, /Missing required file/);

    const json = JSON.parse((await runCli(['validate', '--json', root])).stdout) as {
      valid: boolean;
      summary: unknown;
      skills: Array<{ path: string; valid: boolean; servable: boolean; problems: Array<{ severity: string; message: string }> }>;
    };
    assert.equal(json.valid, true);
    assert.deepEqual(json.summary, { checked: 3, valid: 3, invalid: 0, warned: 2, servable: 1 });
    const byPath = new Map(json.skills.map((entry) => [entry.path, entry]));
    assert.deepEqual(byPath.get(join(root, 'folder-manifest'))?.problems, [{ severity: 'warning', message: 'SKILL.md is a folder, not a file; not a skill' }]);
    assert.deepEqual(byPath.get(cut)?.problems, [{ severity: 'warning', message: 'folders deeper than 16 levels are not searched for skills' }]);
  });

  test('validate --json has a summary of the skills checked', async () => {
    const root = makeTree({ 'good/SKILL.md': skillMd('good'), 'Upper/SKILL.md': skillMd('Upper'), 'renamed/SKILL.md': skillMd('other') });
    const run = await runCli(['validate', '--json', root]);
    assert.equal(run.code, 1);
    const report = JSON.parse(run.stdout) as { summary: unknown };
    // A name that is not the folder's is a warning (valid, served); an uppercase name is an error.
    assert.deepEqual(report.summary, { checked: 3, valid: 2, invalid: 1, warned: 1, servable: 2 });
  });

  test('a SKILL.md holding a NUL byte is called binary, not "not valid UTF-8"', async () => {
    const root = makeTree({ 'nul/SKILL.md': '---\nname: nul\ndescription: Has a \u0000 byte.\n---\n\n# x\n' });
    const run = await runCli(['validate', join(root, 'nul')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /SKILL\.md holds a NUL byte \(at byte 33\): it is binary, not text/);
  });

  test('cat reads a listed file whose name reads like a scheme or an escape, from a folder and from a server', async () => {
    const root = makeTree({ 'odd/SKILL.md': skillMd('odd'), 'odd/notes:v2.md': 'colon\n', 'odd/%2e%2e': 'literal\n' });
    for (const source of [root, `stdio:${process.execPath} ${CLI} serve --no-cache ${root}`]) {
      for (const [path, expected] of [
        ['notes:v2.md', 'colon\n'],
        ['%2e%2e', 'literal\n'],
      ]) {
        const run = await runCli(['cat', source, 'odd', path!]);
        assert.equal(run.code, 0, `${source} ${path}: ${run.stderr}`);
        assert.equal(run.stdout, expected);
      }
      // What is not listed is still refused before anything is read.
      for (const path of ['file:///etc/passwd', '%2e%2e/SKILL.md', '../odd/SKILL.md']) {
        const refused = await runCli(['cat', source, 'odd', path]);
        assert.equal(refused.code, 1, `${source} ${path}`);
        assert.match(refused.stderr, /is not a valid path inside a skill/);
      }
    }
  });

  test('the client commands escape control characters in the warnings about skipped skills', async () => {
    const root = makeTree({ 'good/SKILL.md': skillMd('good'), 'rtl/SKILL.md': skillMd('\u202Eevil-txt') });
    const run = await runCli(['ls', root]);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, RAW_CONTROLS);
    assert.match(run.stderr, /warning: skipped .*rtl: Skill name '\\u202eevil-txt'/);
  });

  test('validate does not follow a link to / (it walked the whole disk and never finished)', { timeout: 120_000 }, async () => {
    const root = makeTree({ 'good/SKILL.md': skillMd('good') });
    symlinkSync('/', join(root, 'everything'));
    const run = await runCli(['validate', root]);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(
      run.stderr.includes(`warning: ${join(root, 'everything')}: symbolic link to /, a folder that holds the served folder; not followed\n`),
      run.stderr,
    );
    assert.match(run.stderr, /^1 skill checked: valid; 1 folder passed over/m);
  });

  test('error lines escape control characters too (a usage error, a failed command)', async () => {
    const usage = await runCli(['init', 'esc\u001b[2J']);
    assert.equal(usage.code, 2);
    assert.doesNotMatch(usage.stderr, RAW_CONTROLS);
    assert.match(usage.stderr, /'esc\\u001b\[2J' is not a skill name/);
    const root = makeTree({ 'odd/SKILL.md': skillMd('odd') });
    const failed = await runCli(['cat', root, 'odd', 'nope\u202e.md']);
    assert.equal(failed.code, 1);
    assert.doesNotMatch(failed.stderr, RAW_CONTROLS);
    assert.match(failed.stderr, /^skillport: error: 'nope\\u202e\.md' is not a file of skill 'odd'/);
  });

  test('install writes a listed file whose name reads like a scheme or an escape (the whole skill was refused)', async () => {
    const root = makeTree({ 'odd/SKILL.md': skillMd('odd'), 'odd/notes:v2.md': 'colon\n', 'odd/refs/%2e%2e': 'literal\n' });
    const target = makeTree({});
    const run = await runCli(['install', `stdio:${process.execPath} ${CLI} serve --no-cache ${root}`, 'odd', '--to', target], {}, undefined, target);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(join(target, 'odd', 'notes:v2.md'), 'utf8'), 'colon\n');
    assert.equal(readFileSync(join(target, 'odd', 'refs', '%2e%2e'), 'utf8'), 'literal\n');
  });

  test('install writes nothing outside the skill folder when a server lists a path that climbs out (held before the fix too)', async () => {
    const root = makeTree({ 'odd/SKILL.md': skillMd('odd') });
    const server = await startHttp([root]);
    const proxy = await startProxy(server.url, (method, _params, result) => {
      if (method !== 'skills/list' && method !== 'skills/get') return result;
      const tampered = structuredClone(result) as { skills?: Array<{ resources: unknown[] }>; skill?: { resources: unknown[] } };
      for (const skill of tampered.skills ?? (tampered.skill ? [tampered.skill] : [])) {
        skill.resources.push({ uri: 'skill://odd/%2E%2E/%2E%2E/escaped.md', digest: `sha256:${'0'.repeat(64)}`, size: 1 });
      }
      return tampered as Record<string, unknown>;
    });
    try {
      const target = makeTree({});
      const run = await runCli(['install', proxy.url, 'odd', '--to', join(target, 'skills')], {}, undefined, target);
      // The entry is ignored with a warning; the skill's own files are installed, nothing outside it.
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /lists skill:\/\/odd\/%2E%2E\/%2E%2E\/escaped\.md, which is outside the skill: ignored/);
      assert.match(run.stdout, /^added odd sha256:\S+ \(1 file\) → /m);
      assert.equal(existsSync(join(target, 'escaped.md')), false);
      assert.equal(existsSync(join(target, 'skills', 'escaped.md')), false);
    } finally {
      await proxy.stop();
      await server.stop();
    }
  });
});
