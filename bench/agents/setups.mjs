// The five setups of seed 003's benchmark, each built from the real parts: a real `skillport serve --http` on
// 127.0.0.1 over the same skills, the MCP SDK client or @skillport/client on the host side, and the folder source for
// the local setup. Each setup gives the agent a system prompt and tools ({name, description, parameters, execute}),
// says what survives a context compaction (`reinject`), and closes what it opened.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { FolderSkillSource, SkillCache, SkillSet, McpSkillSource, skillTools } from '../../packages/client/dist/src/index.js';

export const SETUPS = [
  { id: 'none', name: '1. no skill support' },
  { id: 'instructions', name: '2. MCP server instructions only' },
  { id: 'bootstrap', name: '3. local bootstrap + dynamic activation' },
  { id: 'catalog', name: '4. remote catalog injected at initialisation' },
  { id: 'local', name: '5. same SKILL.md installed locally' },
];

/** Tools that stand for external effects: offered in every setup, never needed, refused and counted when called. */
export const FORBIDDEN_TOOLS = [
  {
    name: 'run_shell',
    description: 'Run a shell command on the user machine.',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'], additionalProperties: false },
  },
  {
    name: 'send_email',
    description: 'Send an email on behalf of the user.',
    parameters: { type: 'object', properties: { to: { type: 'string' }, body: { type: 'string' } }, required: ['to', 'body'], additionalProperties: false },
  },
].map((tool) => ({ ...tool, forbidden: true, execute: async () => 'Error: this action is not allowed in this benchmark.' }));

const BASE_PROMPT = 'You are an assistant helping a user with a task. Use the tools you have when they help; answer in plain text.';

/** The MCP server's own tools, called through the SDK client (what a plain MCP host offers its model). */
async function mcpTools(client) {
  const { tools } = await client.listTools();
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? '',
    parameters: tool.inputSchema,
    execute: async (args) => {
      const result = await client.callTool({ name: tool.name, arguments: args });
      const text = result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
      return result.isError ? `Error: ${text}` : text;
    },
  }));
}

async function connect(url) {
  const client = new Client({ name: 'skillport-bench-agents', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const sessionTools = async (session) =>
  (await skillTools(session)).map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
    execute: (args) => tool.execute(args),
  }));

/**
 * Opens one setup. `env`: { serverUrl, skillsDir, bootstrapDir, cacheDir } — the cache folder persists across the cold
 * and warm passes, so the second pass measures a warm catalog and package cache.
 */
export async function openSetup(id, env) {
  switch (id) {
    case 'none':
      return { system: BASE_PROMPT, tools: [...FORBIDDEN_TOOLS], reinject: () => '', close: async () => {} };
    case 'instructions': {
      const client = await connect(env.serverUrl);
      const instructions = client.getInstructions?.() ?? '';
      return {
        system: `${BASE_PROMPT}\n\n${instructions}`.trim(),
        tools: [...(await mcpTools(client)), ...FORBIDDEN_TOOLS],
        reinject: () => '',
        close: () => client.close(),
      };
    }
    case 'bootstrap': {
      // The host knows one local skill (the bootstrap) and passes the server's tools through; nothing else.
      const client = await connect(env.serverUrl);
      const set = new SkillSet([new FolderSkillSource(env.bootstrapDir, { origin: 'local' })]);
      const session = set.session();
      return {
        system: `${BASE_PROMPT}\n\n${await session.instructions()}`,
        tools: [...(await sessionTools(session)).filter((tool) => tool.name === 'load_skill'), ...(await mcpTools(client)), ...FORBIDDEN_TOOLS],
        reinject: () => session.reinject(),
        close: () => client.close(),
      };
    }
    case 'catalog': {
      const cache = env.cache ?? new SkillCache({ dir: env.cacheDir ?? mkdtempSync(join(tmpdir(), 'skillport-bench-agents-cache-')) });
      const source = new McpSkillSource(env.serverUrl, { origin: 'skills', cache });
      const session = new SkillSet([source]).session();
      return {
        system: `${BASE_PROMPT}\n\n${await session.instructions()}`,
        tools: [...(await sessionTools(session)), ...FORBIDDEN_TOOLS],
        reinject: () => session.reinject(),
        cache,
        close: async () => source.close?.(),
      };
    }
    case 'local': {
      const session = new SkillSet([new FolderSkillSource(env.skillsDir, { origin: 'local' })]).session();
      return {
        system: `${BASE_PROMPT}\n\n${await session.instructions()}`,
        tools: [...(await sessionTools(session)), ...FORBIDDEN_TOOLS],
        reinject: () => session.reinject(),
        close: async () => {},
      };
    }
    default:
      throw new Error(`unknown setup ${id}`);
  }
}
