import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { EXAMPLES, connectHttp, makeTree, skillMd, startHttp } from '@skillport/test-kit';
import type { TreeSpec } from '@skillport/test-kit';

describe('template skills resolved through completion', () => {
  test('one variable and two variables, completion with prefixes, context and the 100-value cap', async () => {
    const spec: TreeSpec = {
      'docs/widgets/SKILL.md': skillMd('widgets'),
      'docs/gadgets/SKILL.md': skillMd('gadgets'),
      'docs/gizmo/SKILL.md': skillMd('gizmo'),
      'docs/gizmo/references/faq.md': 'faq\n',
      'api/widgets/v1/SKILL.md': skillMd('v1'),
      'api/widgets/v2/SKILL.md': skillMd('v2'),
      'api/gadgets/v3/SKILL.md': skillMd('v3'),
    };
    for (let i = 0; i < 150; i++) spec[`many/p${String(i).padStart(3, '0')}/SKILL.md`] = skillMd(`p${String(i).padStart(3, '0')}`);
    const dir = makeTree(spec);
    const server = await startHttp([
      '--template',
      `skill://docs/{product}/SKILL.md=${dir}/docs`,
      '--template',
      `skill://api/{product}/{version}/SKILL.md=${dir}/api`,
      '--template',
      `skill://many/{item}/SKILL.md=${dir}/many`,
    ]);
    try {
      for (const era of ['legacy', 'modern'] as const) {
        const client = await connectHttp(server.url, era);
        const templates = (await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate);
        assert.ok(templates.includes('skill://docs/{product}/SKILL.md'));
        assert.ok(templates.includes('skill://api/{product}/{version}/SKILL.md'));

        const complete = (uri: string, name: string, value: string, context?: Record<string, string>) =>
          client.complete({ ref: { type: 'ref/resource', uri }, argument: { name, value }, ...(context ? { context: { arguments: context } } : {}) });
        assert.deepEqual((await complete('skill://docs/{product}/SKILL.md', 'product', 'g')).completion.values, ['gadgets', 'gizmo']);
        assert.deepEqual((await complete('skill://docs/{product}/SKILL.md', 'product', '')).completion.values, ['gadgets', 'gizmo', 'widgets']);
        assert.deepEqual((await complete('skill://api/{product}/{version}/SKILL.md', 'version', '', { product: 'widgets' })).completion.values, ['v1', 'v2']);
        assert.deepEqual((await complete('skill://api/{product}/{version}/SKILL.md', 'version', '', { product: 'gadgets' })).completion.values, ['v3']);
        const many = await complete('skill://many/{item}/SKILL.md', 'item', 'p');
        assert.equal(many.completion.values.length, 100);
        assert.equal(many.completion.total, 150);
        assert.equal(many.completion.hasMore, true);

        // The resolved URI is an ordinary served skill: verified like every other.
        const skills = new SkillsClient(client);
        const { skill } = await skills.get('skill://docs/gizmo/SKILL.md');
        assert.equal((await skills.read(skill, 'references/faq.md')).verified, true);

        const index = JSON.parse(((await client.readResource({ uri: 'skill://index.json' })).contents[0] as { text: string }).text) as {
          skills: Array<{ type: string; url: string }>;
        };
        assert.ok(index.skills.some((entry) => entry.type === 'mcp-resource-template' && entry.url === 'skill://api/{product}/{version}/SKILL.md'));
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });

  test('--template takes one URI=DIR: a folder written after it is served as a source, not taken as a template', async () => {
    const dir = makeTree({ 'docs/gizmo/SKILL.md': skillMd('gizmo') });
    const server = await startHttp(['--template', `skill://docs/{product}/SKILL.md=${dir}/docs`, EXAMPLES]);
    try {
      const client = await connectHttp(server.url, 'legacy');
      const names = (await new SkillsClient(client).list()).skills.map((skill) => skill.frontmatter.name);
      assert.ok(names.includes('gizmo'), names.join(', '));
      assert.ok(names.includes('csv-data-cleaning'), names.join(', '));
      await client.close();
    } finally {
      await server.stop();
    }
  });
});
