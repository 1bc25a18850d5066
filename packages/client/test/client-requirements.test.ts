import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CLI, makeTree, removeTrees, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { FolderSkillSource, McpSkillSource, SkillSet, availableFromOpenAITools, callSkillTool, skillTools } from '../src/index.js';
import { availableFromAiSdkTools } from '../src/adapters/ai-sdk.js';

/**
 * The client library and skill requirements, against a real skillport server over Streamable HTTP and stdio (and a
 * folder): the host says what it has, `<available_skills>` lists ready skills first and marks (or omits) unmet ones,
 * load_skill says what is missing before the instructions, providing the server makes the skill ready, and a
 * delegated agent's export carries readiness.
 */
after(removeTrees);

const tree = makeTree({
  'gmail-digest/SKILL.md':
    '---\nname: gmail-digest\ndescription: Send a weekly digest by email.\nrequires:\n  mcp: [rube]\n---\n# Digest\nCall the rube tools.\n',
  'notes/SKILL.md': '---\nname: notes\ndescription: Write meeting notes.\n---\n# Notes\n',
  'deploy/SKILL.md': '---\nname: deploy\ndescription: Deploy the service.\n---\n# Deploy\n',
  'deploy/agents/openai.yaml': 'dependencies:\n  tools:\n    - type: mcp\n      value: render\n',
});

describe('client catalogs and readiness', () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttp([tree]);
  });
  after(async () => {
    await server?.stop();
  });

  const sources = () => ({
    http: () => new McpSkillSource(server.url, { origin: 'team' }),
    stdio: () => new McpSkillSource(`stdio:${process.execPath} ${CLI} serve --no-cache ${tree}`, { origin: 'team' }),
    folder: () => new FolderSkillSource(tree, { origin: 'team' }),
  });

  for (const kind of ['http', 'stdio', 'folder'] as const) {
    test(`a host without the server: marked and listed last, load_skill says what is missing (${kind})`, async () => {
      const set = new SkillSet([sources()[kind]()]);
      try {
        // The host's own tools say which MCP servers it has (mcp__github__… is the github server).
        const available = availableFromOpenAITools([{ function: { name: 'mcp__github__create_issue' } }, { name: 'bash' }]);
        const session = set.session({ available });
        const text = await session.instructions();
        const order = [...text.matchAll(/<name>([^<]+)<\/name>/g)].map((match) => match[1]);
        assert.deepEqual(order, ['notes', 'deploy', 'gmail-digest'], text);
        assert.match(text, /<name>gmail-digest<\/name>[\s\S]*?<availability>needs MCP server &quot;rube&quot;<\/availability>/);
        assert.match(text, /<name>deploy<\/name>[\s\S]*?<availability>needs MCP server &quot;render&quot;<\/availability>/);

        const tools = await skillTools(session);
        const loaded = await callSkillTool(tools, 'load_skill', { name: 'gmail-digest' });
        assert.match(loaded, /^<skill_readiness name="gmail-digest" status="needs">Not ready: the MCP server "rube" must be connected to this host\./);
        assert.ok(loaded.includes('<skill_content'), 'the instructions follow');
        assert.deepEqual(session.export().skills[0]?.readiness, { status: 'needs', needs: { mcpServers: ['rube'] } });

        const omitting = await set.session({ available, unmet: 'omit' }).instructions();
        assert.ok(!omitting.includes('gmail-digest') && omitting.includes('<name>notes</name>'), omitting);

        // Providing the server makes it ready: no mark, no readiness block.
        const ready = set.session({ available: availableFromAiSdkTools({ mcp__rube__send: {}, mcp__render__deploy: {} }) });
        const readyText = await ready.instructions();
        assert.ok(!readyText.includes('<availability>'), readyText);
        const loadedReady = await callSkillTool(await skillTools(ready), 'load_skill', { name: 'gmail-digest' });
        assert.ok(loadedReady.startsWith('<skill_content'), loadedReady.slice(0, 120));
        assert.deepEqual(ready.export().skills[0]?.readiness, { status: 'ready' });
      } finally {
        await set.close();
      }
    });
  }

  test('over MCP the host hint reaches the server (skills/list _meta): its verdict comes back in the entries (HTTP, stdio)', async () => {
    for (const spec of [server.url, `stdio:${process.execPath} ${CLI} serve --no-cache ${tree}`]) {
      for (const [servers, status] of [
        [['github'], 'needs'],
        [['rube'], 'ready'],
      ] as const) {
        const source = new McpSkillSource(spec, { origin: 'team', connect: { available: { mcpServers: [...servers] } } });
        try {
          const skills = await source.list();
          const gmail = skills.find((skill) => skill.name === 'gmail-digest')!;
          assert.equal((gmail.meta?.['dev.skillport/availability'] as { status: string }).status, status, `${spec} ${servers}`);
        } finally {
          await source.close?.();
        }
      }
    }
  });

  test("a verdict the server gave for one host's hint is not kept for a host that lacks the server", async () => {
    const set = new SkillSet([new McpSkillSource(server.url, { origin: 'team', connect: { available: { mcpServers: ['rube'] } } })]);
    try {
      const lacking = set.session({ available: { mcpServers: ['github'] } });
      const skill = await lacking.find('gmail-digest');
      assert.equal((skill.meta?.['dev.skillport/availability'] as { status: string }).status, 'ready', 'the server judged for the hint');
      assert.deepEqual(lacking.availability(skill), { status: 'needs', needs: { mcpServers: ['rube'] } });
    } finally {
      await set.close();
    }
  });

  test('a host that says nothing: the skill is marked as possibly needing the server, never as ready', async () => {
    const set = new SkillSet([new McpSkillSource(server.url, { origin: 'team' })]);
    try {
      const text = await set.session().instructions();
      assert.match(text, /<availability>may need MCP server &quot;rube&quot; \(not reported by the host\)<\/availability>/);
    } finally {
      await set.close();
    }
  });
});
