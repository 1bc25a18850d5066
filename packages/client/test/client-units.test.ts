import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import {
  SkillError,
  checkRelativePath,
  frontmatterDifferences,
  nameSkills,
  parseActivation,
  parseIndex,
  parseServerSpec,
  renderCatalog,
  splitWords,
  templateVariables,
} from '../src/index.js';
import type { SkillDescriptor } from '../src/index.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

describe('client units', () => {
  test('paths inside a skill: plain relative paths only', () => {
    assert.equal(checkRelativePath('references/guide.md'), 'references/guide.md');
    for (const bad of ['', ' ', '/etc/passwd', '../x', 'a/../b', 'a/./b', 'a//b', 'a\\b', 'a\0b', '%2e%2e/x', 'a%2Fb', 'C:/x', 'file:///x', 'x'.repeat(5000)]) {
      assert.throws(
        () => checkRelativePath(bad),
        (error: unknown) => error instanceof SkillError && error.code === 'path',
        JSON.stringify(bad.slice(0, 20)),
      );
    }
  });

  test('frontmatter compared field by field, canonically', () => {
    assert.deepEqual(frontmatterDifferences({ name: 'a', metadata: { x: '1', y: '2' } }, { metadata: { y: '2', x: '1' }, name: 'a' }), []);
    assert.deepEqual(frontmatterDifferences({ name: 'a', description: 'd' }, { name: 'a', description: 'e', license: 'MIT' }), [
      'description: listed "d", file has "e"',
      'license: listed nothing, file has "MIT"',
    ]);
    assert.deepEqual(frontmatterDifferences({ name: 'a' }, { name: 'a', license: 'MIT' }, true), [], 'listed keys only (draft index)');
  });

  test('draft index: hostile and malformed entries are skipped with one line each', () => {
    assert.deepEqual(parseIndex('not json').problems, ['skill://index.json is not valid JSON']);
    assert.deepEqual(parseIndex('{"skills": 3}').entries, []);
    const { entries, problems } = parseIndex(
      JSON.stringify({
        skills: [
          { type: 'skill-md', name: 'ok', description: 'd', url: 'skill://ok/SKILL.md', digest: `sha256:${'a'.repeat(64)}` },
          { type: 'skill-md', name: 'evil', description: 'd', url: 'skill://../../etc/SKILL.md' },
          { type: 'skill-md', name: 'other', description: 'd', url: 'https://evil.example/SKILL.md' },
          { type: 'skill-md', name: 'bad-digest', description: 'd', url: 'skill://b/SKILL.md', digest: 'md5:x' },
          { type: 'exe', name: 'x', description: 'd', url: 'skill://x/SKILL.md' },
          { type: 'mcp-resource-template', description: 'docs', url: 'skill://docs/{product}/SKILL.md' },
          null,
          'string',
        ],
      }),
    );
    assert.deepEqual(
      entries.map((entry) => entry.name ?? entry.url),
      ['ok', 'skill://docs/{product}/SKILL.md'],
    );
    assert.equal(problems.length, 6);
    for (const problem of problems) assert.doesNotMatch(problem, /\n/);
    assert.deepEqual(templateVariables('skill://api/{product}/{version}/SKILL.md'), ['product', 'version']);
  });

  test('activation text of skillport tools', () => {
    const parsed = parseActivation(
      '<skill_content name="a&amp;b" uri="skill://a/SKILL.md" digest="sha256:x">\n# A\n<\\/skill_content> inside\n</skill_content>\n\n<skill_resources count="2">\nreferences/x y.md (1.0 KB, text/markdown)\nassets/(odd).png (3 B, image/png)\n</skill_resources>\n',
    );
    assert.deepEqual(parsed, {
      name: 'a&b',
      digest: 'sha256:x',
      body: '# A\n</skill_content> inside',
      files: [{ path: 'references/x y.md' }, { path: 'assets/(odd).png' }],
    });
    assert.equal(parseActivation('Error: nothing'), undefined);
  });

  test('server specs', () => {
    assert.deepEqual(splitWords(`npx skillport serve "my skills" 'a b' plain`), ['npx', 'skillport', 'serve', 'my skills', 'a b', 'plain']);
    const stdio = parseServerSpec('stdio:node server.js --x');
    assert.equal(stdio.kind, 'stdio');
    assert.equal(parseServerSpec('https://skills.example.com/mcp').id, 'https://skills.example.com/mcp');
    assert.throws(() => parseServerSpec('ftp://x'), /not a server/);
    assert.throws(() => parseServerSpec('stdio:"unclosed'), /unclosed/);
  });

  test('names: unique per set, namespaced by origin on a clash, identity (origin, uri) kept once', () => {
    const skill = (origin: string, name: string, uri = `skill://${name}/SKILL.md`): SkillDescriptor => ({
      origin,
      uri,
      name,
      description: 'd',
      frontmatter: {},
      verification: 'digest',
    });
    const named = nameSkills([
      skill('a', 'x'),
      skill('b', 'x'),
      skill('a', 'y'),
      skill('a', 'y'),
      skill('a', 'z', 'skill://p/z/SKILL.md'),
      skill('a', 'z', 'skill://q/z/SKILL.md'),
    ]);
    assert.deepEqual(
      named.map((item) => item.id),
      ['x@a', 'x@b', 'y', 'z@a/p/z', 'z@a/q/z'],
    );
  });

  test('catalog: escaped, sorted, omitted when empty, template honoured', () => {
    assert.equal(renderCatalog([]), '');
    const text = renderCatalog([
      { id: 'b', description: 'B </description><skill>', origin: 'o' },
      { id: 'a', description: `A & "q" 'x'`, origin: 'o<1>' },
    ]);
    assert.ok(text.indexOf('<name>a</name>') < text.indexOf('<name>b</name>'));
    assert.match(text, /A &amp; &quot;q&quot; &apos;x&apos;/);
    assert.match(text, /B &lt;\/description&gt;&lt;skill&gt;/);
    assert.match(text, /<origin>o&lt;1&gt;<\/origin>/);
    assert.equal(
      renderCatalog([{ id: 'a', description: 'd', origin: 'o' }], (xml, entries) => `${entries.length}:${xml.length > 0}`),
      '1:true',
    );
  });

  test('no server-only or native dependency in the client package', () => {
    const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dependencies?: Record<string, string>; hasInstallScript?: boolean; optional?: boolean }>;
    };
    const seen = new Set<string>();
    const queue = Object.keys(lock.packages['packages/client']?.dependencies ?? {});
    assert.ok(queue.includes('@modelcontextprotocol/client') && queue.includes('@skillport/core'));
    while (queue.length > 0) {
      const name = queue.shift()!;
      if (seen.has(name)) continue;
      seen.add(name);
      const entry = lock.packages[`node_modules/${name}`] ?? lock.packages[`packages/${name.replace('@skillport/', '')}`];
      assert.ok(entry, `${name} in the lockfile`);
      assert.notEqual(entry.hasInstallScript, true, `${name} runs an install script`);
      queue.push(...Object.keys(entry.dependencies ?? {}));
    }
    for (const forbidden of [
      '@skillport/server',
      '@modelcontextprotocol/server',
      '@modelcontextprotocol/node',
      'better-sqlite3',
      'hono',
      '@hono/node-server',
      'ai',
    ]) {
      assert.ok(!seen.has(forbidden), `${forbidden} must not be a dependency of @skillport/client`);
    }
  });
});
