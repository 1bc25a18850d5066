import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { EXAMPLES, connectHttp, connectStdio, makeTree, skillMd, startHttp } from '@skillport/test-kit';
import type { Era, RunningServer } from '@skillport/test-kit';

type Content = Array<{ type: string; text?: string; data?: string; mimeType?: string }>;

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; isError: boolean; content: Content; structured: unknown }> {
  const result = (await client.callTool({ name, arguments: args })) as { content: Content; isError?: boolean; structuredContent?: unknown };
  return {
    text: result.content.map((item) => item.text ?? '').join('\n'),
    isError: result.isError === true,
    content: result.content,
    structured: result.structuredContent,
  };
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

describe('tools, prompts and instructions over Streamable HTTP', () => {
  let server: RunningServer;
  let vision: RunningServer;
  before(async () => {
    [server, vision] = await Promise.all([
      startHttp([EXAMPLES, '--tools', 'full', '--text-max', '2KiB']),
      startHttp([EXAMPLES, '--vision', '--catalog-max', '3']),
    ]);
  });
  after(async () => {
    await Promise.all([server.stop(), vision.stop()]);
  });

  for (const era of ['legacy', 'modern'] as const satisfies readonly Era[]) {
    test(`activate_skill and read_skill_resource (${era})`, async () => {
      const client = await connectHttp(server.url, era);
      assert.deepEqual(await toolNames(client), ['activate_skill', 'get_skill_outline', 'get_skill_section', 'list_skills', 'read_skill_resource']);
      const listing = await new SkillsClient(client).list();
      const csv = listing.skills.find((skill) => skill.frontmatter.name === 'csv-data-cleaning')!;
      const packageDigest = (csv._meta as Record<string, string>)['dev.skillport/packageDigest']!;

      const activated = await call(client, 'activate_skill', { name: 'csv-data-cleaning' });
      assert.equal(activated.isError, false);
      assert.ok(
        activated.text.startsWith(`<skill_content name="csv-data-cleaning" uri="skill://csv-data-cleaning/SKILL.md" digest="${packageDigest}">`),
        activated.text.slice(0, 200),
      );
      const body = readFileSync(join(EXAMPLES, 'csv-data-cleaning/SKILL.md'), 'utf8').split('\n---\n').slice(1).join('\n---\n').trim();
      assert.ok(activated.text.includes(body.slice(0, 300)), 'the SKILL.md body is in the activation');
      assert.ok(!activated.text.includes('\nname: csv-data-cleaning'), 'frontmatter is not repeated in the body');
      assert.match(activated.text, /scripts\/profile_csv\.py \([\d.]+ KB, text\/x-python\)/);
      assert.ok(activated.text.includes('read_skill_resource'));

      const byUri = await call(client, 'activate_skill', { uri: 'skill://csv-data-cleaning/SKILL.md' });
      assert.equal(byUri.text, activated.text);

      const missing = await call(client, 'activate_skill', { name: 'csv-data-clean' });
      assert.equal(missing.isError, true);
      assert.equal(missing.text, "Error: Skill 'csv-data-clean' not found. Did you mean: csv-data-cleaning?");

      const script = await call(client, 'read_skill_resource', { name: 'csv-data-cleaning', path: 'assets/sample.csv', digest: packageDigest });
      assert.equal(script.isError, false);
      assert.equal(script.text, readFileSync(join(EXAMPLES, 'csv-data-cleaning/assets/sample.csv'), 'utf8'));

      for (const path of ['../release-notes/SKILL.md', '/etc/passwd', 'references/../SKILL.md', 'a\\b', './SKILL.md', 'file:///etc/passwd']) {
        const refused = await call(client, 'read_skill_resource', { name: 'csv-data-cleaning', path });
        assert.equal(refused.isError, true, path);
        assert.match(refused.text, /^Error: /, path);
      }
      const unlisted = await call(client, 'read_skill_resource', { name: 'csv-data-cleaning', path: 'references/nope.md' });
      assert.match(unlisted.text, /^Error: 'references\/nope\.md' is not a file of skill 'csv-data-cleaning'\. Its files: .*references\/pitfalls\.md/);
      const stale = await call(client, 'read_skill_resource', { name: 'csv-data-cleaning', path: 'assets/sample.csv', digest: `sha256:${'0'.repeat(64)}` });
      assert.equal(stale.isError, true);
      assert.match(stale.text, /has changed/);

      // Larger than --text-max: refused with the size and how to read parts; the parts rebuild the file.
      const whole = readFileSync(join(EXAMPLES, 'csv-data-cleaning/scripts/profile_csv.py'));
      const big = await call(client, 'read_skill_resource', { name: 'csv-data-cleaning', path: 'scripts/profile_csv.py' });
      assert.equal(big.isError, true);
      assert.ok(big.text.includes(`(${whole.byteLength} bytes)`) && big.text.includes('offset'), big.text);
      let rebuilt = '';
      let offset = 0;
      for (let guard = 0; guard < 100 && offset < whole.byteLength; guard++) {
        const part = await call(client, 'read_skill_resource', { name: 'csv-data-cleaning', path: 'scripts/profile_csv.py', offset, length: 2048 });
        const match = /\n\[scripts\/profile_csv\.py: bytes (\d+)-(\d+) of \d+[^\]]*\]$/.exec(part.text)!;
        rebuilt += part.text.slice(0, match.index);
        offset = Number(match[2]);
      }
      assert.equal(rebuilt, whole.toString('utf8'));

      // A binary file: a JSON envelope with the bytes in base64.
      const logo = await call(client, 'read_skill_resource', { name: 'release-notes', path: 'assets/logo.png' });
      const envelope = JSON.parse(logo.text) as { mediaType: string; size: number; encoding: string; data: string };
      assert.equal(envelope.mediaType, 'image/png');
      assert.equal(Buffer.compare(Buffer.from(envelope.data, 'base64'), readFileSync(join(EXAMPLES, 'release-notes/assets/logo.png'))), 0);
      await client.close();
    });
  }

  test('list_skills: the catalog in pages, and ranked search', async () => {
    const client = await connectHttp(server.url, 'modern');
    const all = (await call(client, 'list_skills', {})).structured as { skills: Array<{ name: string; uri: string; digest: string }>; total: number };
    assert.equal(all.total, 6);
    assert.equal(all.skills.length, 6);
    assert.ok(all.skills.every((skill) => skill.digest.startsWith('sha256:')));
    const first = (await call(client, 'list_skills', { limit: 4 })).structured as { skills: unknown[]; nextCursor: string };
    assert.equal(first.skills.length, 4);
    const second = (await call(client, 'list_skills', { limit: 4, cursor: first.nextCursor })).structured as { skills: unknown[]; nextCursor?: string };
    assert.equal(second.skills.length, 2);
    assert.equal(second.nextCursor, undefined);
    const bad = await call(client, 'list_skills', { cursor: 'garbage' });
    assert.equal(bad.isError, true);

    const cases: Array<[string, string]> = [
      ['my spreadsheet export has duplicate rows and weird date formats', 'csv-data-cleaning'],
      ['this postgres query takes forever', 'sql-query-optimization'],
      ["write up what went wrong in last night's outage", 'incident-postmortem'],
      ['help me word my commit', 'git-commit-messages'],
      // Words found only in the opening of a SKILL.md body (the index reads bodies when it is built).
      ['how many blanks before the bigquery load', 'csv-data-cleaning'],
    ];
    for (const [query, expected] of cases) {
      const found = (await call(client, 'list_skills', { query })).structured as { skills: Array<{ name: string }> };
      assert.equal(found.skills[0]?.name, expected, `${query}: ${JSON.stringify(found.skills.map((skill) => skill.name))}`);
    }
    const nothing = await call(client, 'list_skills', { query: 'the of and' });
    assert.equal(nothing.isError, false);
    await client.close();
  });

  test('list_skills search: each result says why it matched, and weak matches are cut', async () => {
    const client = await connectHttp(server.url, 'modern');
    type Found = { skills: Array<{ name: string; score: number; reason: string }> };
    // `commit` is a word of the catalog that this skill does not hold: the reason names it as not matched.
    const found = (await call(client, 'list_skills', { query: 'slow postgres query plan commit' })).structured as Found;
    const top = found.skills[0]!;
    assert.equal(top.name, 'sql-query-optimization');
    assert.match(top.reason, /\bquery in [a-z+]*description/);
    assert.match(top.reason, /not matched: .*commit/);
    // A task no skill serves gets no result, and the text says so (the tool's promise: few or no results means no fit).
    const none = await call(client, 'list_skills', { query: 'bake sourdough bread with a crispy crust' });
    assert.deepEqual((none.structured as Found).skills, []);
    assert.match(none.text, /^No skill matches "bake sourdough bread with a crispy crust"\. Try other words/);
    // Every result scores at least a quarter of the first (the cut rule of packages/search/src/index/skill-index.ts).
    assert.ok(
      found.skills.every((skill) => skill.score >= 0.25 * top.score - 0.001),
      JSON.stringify(found.skills),
    );
    const tool = (await client.listTools()).tools.find((candidate) => candidate.name === 'list_skills')!;
    assert.match(tool.description ?? '', /user's own words plus the terms/);
    await client.close();
  });

  test("the catalog sits in activate_skill's description while it is small, and list_skills is named beyond", async () => {
    const small = await connectHttp(server.url, 'legacy');
    const activate = (await small.listTools()).tools.find((tool) => tool.name === 'activate_skill')!;
    assert.ok(activate.description!.includes('<available_skills>'));
    assert.ok(activate.description!.includes('<name>csv-data-cleaning</name>'));
    await small.close();
    const large = await connectHttp(vision.url, 'legacy');
    const limited = (await large.listTools()).tools.find((tool) => tool.name === 'activate_skill')!;
    assert.ok(!limited.description!.includes('<available_skills>'));
    assert.ok(limited.description!.includes('list_skills'));
    assert.deepEqual(await toolNames(large), ['activate_skill', 'list_skills', 'read_skill_resource']);
    await large.close();
  });

  test('--vision returns images, recognised by their bytes, as image content', async () => {
    const client = await connectHttp(vision.url, 'modern');
    const logo = await call(client, 'read_skill_resource', { name: 'release-notes', path: 'assets/logo.png' });
    assert.equal(logo.content[0]!.type, 'image');
    assert.equal(logo.content[0]!.mimeType, 'image/png');
    await client.close();
  });

  test('outline and sections (full)', async () => {
    const client = await connectHttp(server.url, 'modern');
    const outline = await call(client, 'get_skill_outline', { name: 'api-design-review' });
    assert.equal(outline.isError, false);
    const structured = outline.structured as { sections: Array<{ key: string; tokens: number }>; totalTokens: number };
    assert.ok(structured.sections.length >= 3);
    assert.ok(structured.sections.every((section) => section.tokens > 0));
    const key = structured.sections[1]!.key;
    const section = await call(client, 'get_skill_section', { name: 'api-design-review', key });
    assert.equal(section.isError, false);
    assert.ok(section.text.includes(`section="${key}"`));
    const wrong = await call(client, 'get_skill_section', { name: 'api-design-review', key: `${key}x` });
    assert.equal(wrong.isError, true);
    assert.match(wrong.text, /Did you mean/);
    await client.close();
  });

  test('prompts: each skill, activated', async () => {
    const client = await connectHttp(server.url, 'modern');
    const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name).sort();
    assert.deepEqual(prompts, [
      'api-design-review',
      'csv-data-cleaning',
      'git-commit-messages',
      'incident-postmortem',
      'release-notes',
      'sql-query-optimization',
    ]);
    const prompt = await client.getPrompt({ name: 'release-notes' });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    assert.ok(text.includes('<skill_content name="release-notes"'));
    await client.close();
  });

  test('instructions say how to use the server', async () => {
    const client = await connectHttp(server.url, 'legacy');
    const instructions = client.getInstructions() ?? '';
    assert.match(instructions, /6 Agent Skills/);
    assert.match(instructions, /activate_skill/);
    await client.close();
  });
});

describe('single-skill fast path and --tools none (stdio)', () => {
  test("one small skill is inlined in the instructions; the tool set stays the mode's", async () => {
    const dir = makeTree({
      'solo/SKILL.md': skillMd('solo', 'Solo things. Use for solo work.', '', '# Solo\n\nDo the solo steps.\n'),
      'solo/notes.md': 'solo notes\n',
    });
    const { client } = await connectStdio([dir], 'legacy');
    // The tool set never depends on the catalog or the caller (issue 10, item 9): every tool is listed and callable.
    assert.deepEqual((await toolNames(client)).sort(), ['activate_skill', 'list_skills', 'read_skill_resource']);
    const instructions = client.getInstructions() ?? '';
    assert.ok(instructions.includes('<skill_content name="solo"'));
    assert.ok(instructions.includes('Do the solo steps.'));
    const notes = await call(client, 'read_skill_resource', { path: 'notes.md' });
    assert.equal(notes.text, 'solo notes\n');
    await client.close();
  });

  test('--tools none registers no tools', async () => {
    const { client } = await connectStdio([EXAMPLES, '--tools', 'none'], 'modern');
    const caps = client.getServerCapabilities();
    assert.equal(caps?.tools, undefined);
    await client.close();
  });
});

describe("draft-era discovery index (a client like Agent Framework's MCP skills source)", () => {
  for (const era of ['legacy', 'modern'] as const satisfies readonly Era[]) {
    test(`reads skill://index.json, loads each skill by url, reads siblings by relative path (${era})`, async () => {
      const server = await startHttp([EXAMPLES]);
      try {
        const client = await connectHttp(server.url, era);
        const listed = (await client.listResources()).resources.map((resource) => resource.uri);
        assert.ok(listed.includes('skill://index.json'));
        const raw = await client.readResource({ uri: 'skill://index.json' });
        const index = JSON.parse((raw.contents[0] as { text: string }).text) as {
          $schema: string;
          skills: Array<{ name: string; type: string; description: string; url: string; digest: string }>;
        };
        assert.equal(index.$schema, 'https://schemas.agentskills.io/discovery/0.2.0/schema.json');
        assert.equal(index.skills.length, 6);
        for (const entry of index.skills) {
          assert.equal(entry.type, 'skill-md');
          assert.ok(entry.description.length > 0);
          const manifest = await client.readResource({ uri: entry.url });
          const text = (manifest.contents[0] as { text: string }).text;
          assert.equal(entry.digest, `sha256:${createHash('sha256').update(text).digest('hex')}`);
          // Relative links in SKILL.md resolve against its URL; every linked file of the examples is readable.
          const links = [...text.matchAll(/\]\(((?:references|scripts|assets)\/[^)#\s]+)\)/g)].map((match) => match[1]!);
          for (const link of links) {
            const sibling = await client.readResource({ uri: new URL(link, entry.url).href });
            assert.ok(sibling.contents.length === 1, link);
          }
        }
        await client.close();
      } finally {
        await server.stop();
      }
    });
  }
});
