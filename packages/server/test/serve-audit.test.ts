import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Client } from '@modelcontextprotocol/client';
import { connectStdio, eventually, makeTree, removeTrees, skillMd, startHttp, tempFolder } from '@skillport/test-kit';

/**
 * What an outside audit with hostile skill folders found (each case failed before its fix): a listed file that a
 * tool would not read, terminal control characters from file and skill names copied raw onto stderr, skills deeper
 * than the discovery depth dropped without a word, and a SKILL.md that is a folder ignored without a word.
 */

// Every server is stopped in its own hooks; the folders go when the file is done.
after(removeTrees);

async function callText(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ text?: string }>; isError?: boolean };
  return { text: result.content.map((item) => item.text ?? '').join('\n'), isError: result.isError === true };
}

// Odd but legal POSIX file names: each is listed by skills/list, so each must be readable on every surface.
const ODD_NAMES = ['co:lon.md', 'c:run.md', '-leading-dash.md', '--help', '%2e%2e', 'sp ace.md', 'new\nline.md', 'é.md', `${'a'.repeat(246)}.md`];

describe('serve: every listed file is readable through every surface, whatever its name', () => {
  test('resources/read, read_skill_resource and get_skill_reference read each odd name (stdio)', async () => {
    const root = tempFolder('odd');
    const spec: Record<string, string> = { 'odd/SKILL.md': skillMd('odd') };
    for (const name of ODD_NAMES) spec[`odd/references/${name}`] = `file ${JSON.stringify(name)}\n`;
    spec['odd/notes:top.md'] = 'a colon at the top\n';
    makeTree(spec, root);
    const { client } = await connectStdio([root, '--tools', 'core,asm'], 'modern');
    try {
      const skills = new SkillsClient(client);
      const [skill] = (await skills.list()).skills;
      assert.ok(skill);
      const listed = (skill.resources as Array<{ uri: string }>).map((resource) => decodeURIComponent(resource.uri.slice('skill://odd/'.length))).sort();
      assert.deepEqual(listed, ['SKILL.md', 'notes:top.md', ...ODD_NAMES.map((name) => `references/${name}`)].sort());
      // A name at the top of the skill that reads like a URI scheme ("notes:") is still a file name.
      assert.deepEqual(await callText(client, 'read_skill_resource', { name: 'odd', path: 'notes:top.md' }), { text: 'a colon at the top\n', isError: false });
      for (const name of ODD_NAMES) {
        const expected = readFileSync(join(root, 'odd/references', name), 'utf8');
        const file = await skills.read(
          skill,
          (skill.resources as Array<{ uri: string }>).find((resource) => decodeURIComponent(resource.uri).endsWith(`/references/${name}`))!.uri,
        );
        assert.equal(file.verified, true, name);
        assert.equal(Buffer.from(file.bytes).toString('utf8'), expected, name);
        const tool = await callText(client, 'read_skill_resource', { name: 'odd', path: `references/${name}` });
        assert.deepEqual(tool, { text: expected, isError: false }, `read_skill_resource ${JSON.stringify(name)}`);
        const asm = await callText(client, 'get_skill_reference', { skill_id: 'odd', name });
        assert.deepEqual(asm, { text: expected, isError: false }, `get_skill_reference ${JSON.stringify(name)}`);
      }
      // URIs given as paths are still refused with a line that says so.
      for (const path of ['file:///etc/passwd', 'skill://odd/SKILL.md', 'https://example.com/x']) {
        const refused = await callText(client, 'read_skill_resource', { name: 'odd', path });
        assert.equal(refused.isError, true, path);
        assert.match(refused.text, /^Error: '.*' is not a relative path inside the skill folder\.$/, path);
      }
    } finally {
      await client.close();
    }
  });
});

describe('serve: what hostile names and trees print on stderr', () => {
  test('control and bidirectional characters in file and skill names are escaped: one line per problem, nothing forged', async () => {
    const root = tempFolder('controls');
    makeTree(
      {
        'good/SKILL.md': skillMd('good'),
        // A YAML double-quoted name may hold C1 controls: 8-bit escape sequences that would clear the terminal.
        'esc-name/SKILL.md': '---\nname: "esc\\x9b2J\\x9d0;pwned\\x9c"\ndescription: Escapes.\n---\n\n# x\n',
        // C0 controls (ESC, BEL) are refused with the frontmatter, named without printing them.
        'esc-c0/SKILL.md': '---\nname: "esc\\e[2J\\e]0;pwned\\a"\ndescription: Escapes.\n---\n\n# x\n',
        'rtl-name/SKILL.md': skillMd('\u202Eevil-txt'),
        'links/SKILL.md': skillMd('links'),
      },
      root,
    );
    // A dangling link whose name holds a line break and a forged line after it, and one with an escape sequence.
    symlinkSync('nowhere', join(root, 'links', 'x\nskillport: error: forged'));
    symlinkSync('nowhere', join(root, 'links', 'bell\u0007\u001b[31mred'));
    const server = await startHttp([root]);
    try {
      const stderr = server.stderr();
      assert.doesNotMatch(stderr, /[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/, 'no raw control or bidi character');
      assert.ok(!stderr.split('\n').some((line) => line.startsWith('skillport: error: forged')), 'no forged line');
      const lines = stderr.split('\n');
      assert.ok(
        lines.some((line) => line.includes('links/x\\nskillport: error: forged: broken symbolic link')),
        stderr,
      );
      assert.ok(
        lines.some((line) => line.includes('links/bell\\u0007\\u001b[31mred: broken symbolic link')),
        stderr,
      );
      assert.ok(
        lines.some((line) => /esc-name\/SKILL\.md: Skill name 'esc\\u009b2J\\u009d0;pwned\\u009c'/.test(line)),
        stderr,
      );
      assert.ok(
        lines.some((line) =>
          line.includes("esc-c0/SKILL.md: frontmatter 'name' at line 2 contains a control character (U+001B, written as an escape): remove it"),
        ),
        stderr,
      );
      assert.ok(
        lines.some((line) => /rtl-name\/SKILL\.md: Skill name '\\u202eevil-txt'/.test(line)),
        stderr,
      );
    } finally {
      await server.stop();
    }
  });

  test('a skill deeper than discovery searches is named in a warning, and a SKILL.md that is a folder is reported', async () => {
    const root = tempFolder('depth');
    const deep = Array.from({ length: 20 }, (_, index) => `level${index}`).join('/');
    makeTree({ 'good/SKILL.md': skillMd('good'), [`${deep}/deep-skill/SKILL.md`]: skillMd('deep-skill') }, root);
    mkdirSync(join(root, 'folder-manifest', 'SKILL.md'), { recursive: true });
    writeFileSync(join(root, 'folder-manifest', 'SKILL.md', 'notes.md'), '# not a manifest\n');
    const server = await startHttp([root]);
    try {
      const stderr = server.stderr();
      const cut = Array.from({ length: 16 }, (_, index) => `level${index}`).join('/');
      assert.match(stderr, new RegExp(`warning: .*${cut}: folders deeper than 16 levels are not searched for skills`), stderr);
      assert.match(stderr, /warning: .*folder-manifest\/SKILL\.md: SKILL\.md is a folder, not a file; not a skill/, stderr);
      assert.match(stderr, /serving 1 skill /, stderr);
    } finally {
      await server.stop();
    }
  });

  test('live edits of files, and a skill folder dropped in deep, are reported only for what is wrong', async () => {
    const root = tempFolder('live');
    makeTree({ 'good/SKILL.md': skillMd('good'), 'good/references/a.md': 'one\n', 'team/keep.md': 'not a skill\n' }, root);
    const server = await startHttp([root]);
    try {
      const reloads = () =>
        server
          .stderr()
          .split('\n')
          .filter((line) => line.includes('reloaded')).length;
      // An edited file is rescanned by its path: that path is a file, which is no reason for an error.
      writeFileSync(join(root, 'good/references/a.md'), 'two\n');
      await eventually(async () => (reloads() >= 1 ? true : undefined), 30_000, 'the edit to be picked up');
      // A folder tree added while serving is searched from where it was added, but its depth counts from the root.
      const deep = Array.from({ length: 18 }, (_, index) => `d${index}`).join('/');
      makeTree({ [`team/${deep}/late/SKILL.md`]: skillMd('late') }, root);
      await eventually(async () => (/folders deeper than 16 levels/.test(server.stderr()) ? true : undefined), 30_000, 'the depth warning');
      assert.doesNotMatch(server.stderr(), /error:/, server.stderr());
      const cut = ['team', ...Array.from({ length: 15 }, (_, index) => `d${index}`)].join('/');
      assert.match(server.stderr(), new RegExp(`warning: .*/${cut}: folders deeper than 16 levels are not searched for skills`), server.stderr());
    } finally {
      await server.stop();
    }
  });

  test('a link to / or to a folder above the served one is not followed (it would walk and watch the whole disk)', { timeout: 120_000 }, async () => {
    const root = tempFolder('uplinks');
    makeTree({ 'good/SKILL.md': skillMd('good'), 'team/other/SKILL.md': skillMd('other') }, root);
    symlinkSync('/', join(root, 'everything'));
    symlinkSync('..', join(root, 'team', 'up'));
    const server = await startHttp([root]);
    try {
      const stderr = server.stderr();
      assert.match(stderr, /warning: .*\/everything: symbolic link to \/, a folder that holds the served folder; not followed/, stderr);
      assert.match(stderr, /warning: .*\/team\/up: symbolic link to .*, a folder that holds the served folder; not followed/, stderr);
      assert.match(stderr, /serving 2 skills /, stderr);
      const health = (await (await fetch(server.url.replace(/\/mcp$/, '/healthz'))).json()) as { watching: { folders: number } };
      assert.ok(health.watching.folders < 10, `watching ${health.watching.folders} folders`);
      // A link made while serving is refused the same way.
      symlinkSync(join(root, '..'), join(root, 'team', 'later'));
      await eventually(async () => (/team\/later: symbolic link to/.test(server.stderr()) ? true : undefined), 30_000, 'the warning about the new link');
      const after = (await (await fetch(server.url.replace(/\/mcp$/, '/healthz'))).json()) as { skills: number; watching: { folders: number } };
      assert.equal(after.skills, 2);
      assert.ok(after.watching.folders < 10, `watching ${after.watching.folders} folders`);
    } finally {
      await server.stop();
    }
  });
});
