/**
 * The words skills use to declare what they need (parsed by ./requirements.ts). Kept as data: a new spelling met in
 * the wild is a line here, not a change to the parser.
 *
 * - `REQUIRES_KEYS`: keys of the frontmatter `requires` mapping (the convention of the Composio/Rube skills,
 *   `requires: {mcp: [rube]}`), each to the kind it declares.
 * - `METADATA_KEY`: skillport's own form, a string under the spec's `metadata` map (string to string), namespaced
 *   like a `_meta` key: `metadata: {"dev.skillport/requires": "mcp:github tool:Bash scope:billing agent:codex"}`.
 * - `TOKEN_KINDS`: the `kind:` words of that string.
 * - `CODEX_FILE`: Codex's per-skill sidecar; its `dependencies.tools` entries of type `mcp` name MCP servers.
 */
export type RequirementKind = 'mcp' | 'tool' | 'scope' | 'agent';

export const REQUIRES_KEYS: Readonly<Record<string, RequirementKind>> = {
  mcp: 'mcp',
  'mcp-servers': 'mcp',
  mcp_servers: 'mcp',
  mcpServers: 'mcp',
  servers: 'mcp',
  tools: 'tool',
  tool: 'tool',
  scopes: 'scope',
  scope: 'scope',
  agents: 'agent',
  agent: 'agent',
};

export const METADATA_KEY = 'dev.skillport/requires';

export const TOKEN_KINDS: Readonly<Record<string, RequirementKind>> = {
  mcp: 'mcp',
  server: 'mcp',
  tool: 'tool',
  scope: 'scope',
  agent: 'agent',
};

export const CODEX_FILE = 'agents/openai.yaml';

/** Codex's `dependencies.tools[].type` values that name an MCP server (the only kind its documentation defines). */
export const CODEX_MCP_TYPES: readonly string[] = ['mcp'];

/** Claude Code names an MCP server's tools `mcp__<server>__<tool>`: such an `allowed-tools` entry needs that server. */
export const MCP_TOOL_NAME = /^mcp__([A-Za-z0-9][A-Za-z0-9._-]*?)__[A-Za-z0-9_.*-]+$/;
