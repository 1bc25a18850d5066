import { parseDocument } from 'yaml';
import { CODEX_FILE, CODEX_MCP_TYPES, MCP_TOOL_NAME, METADATA_KEY, REQUIRES_KEYS, TOKEN_KINDS } from './requirement-keys.js';
import type { RequirementKind } from './requirement-keys.js';
import type { Problem } from './rules.js';
import { oneLine } from './text.js';
import { yamlNestingOverflow } from './yaml-nesting.js';

/**
 * What a skill needs to work, read from everything skills already write (docs/architecture.md, "Requirements"):
 *
 * - `requires` (the corpus's convention: `requires: {mcp: [rube]}`; also `tools`, `scopes`, `agents`);
 * - Codex's `agents/openai.yaml` sidecar: `dependencies.tools` entries `{type: mcp, value, description?, transport?, url?}`;
 * - `allowed-tools`: pre-approved tools, kept as information; an `mcp__<server>__<tool>` entry needs that server;
 * - `compatibility` (free text, shown, never judged) and `agents` (the hosts it was written for);
 * - skillport's own form in the spec's `metadata` map: `"dev.skillport/requires": "mcp:github tool:Bash scope:billing"`.
 *
 * MCP servers, tools and scopes are judged against what is available (`judgeAvailability`); agents only when the
 * host names itself. A malformed declaration is a warning and is left out: the skill is still served.
 */
export interface McpServerRequirement {
  name: string;
  description?: string;
  transport?: string;
  url?: string;
}

export interface SkillRequirements {
  mcpServers: McpServerRequirement[];
  tools: string[];
  scopes: string[];
  agents: string[];
  /** `allowed-tools` as written (tool patterns the skill pre-approves): information, not judged. */
  allowedTools: string[];
  compatibility?: string;
  /** Where the declarations were read (`requires`, `agents/openai.yaml`, `allowed-tools`, `metadata`, `agents`, `compatibility`). */
  sources: string[];
}

export interface RequirementProblem extends Problem {
  /** The file the problem is in, inside the skill (`SKILL.md`, `agents/openai.yaml`). */
  file: string;
}

export interface RequirementsReading {
  /** Undefined when the skill declares nothing. */
  requirements?: SkillRequirements;
  problems: RequirementProblem[];
}

/** Per kind, at most this many entries are kept (a hostile file cannot make every listing large). */
export const MAX_REQUIREMENTS_PER_KIND = 64;
const MAX_NAME = 128;
const MAX_TEXT = 500;
/** Larger sidecars are not read (Codex's are a few hundred bytes). */
export const MAX_CODEX_FILE_BYTES = 64 * 1024;

const NAME = /^[^\s\p{Cc}\p{Cf}]+$/u;

export { CODEX_FILE, METADATA_KEY };
/** `mcp__<server>__<tool>`, Claude Code's names for an MCP server's tools: group 1 is the server. */
export const MCP_TOOL_PREFIX_PATTERN = MCP_TOOL_NAME;

/** Reads a skill's requirements from its frontmatter and, when present, the text of its `agents/openai.yaml`. */
export function readRequirements(frontmatter: Record<string, unknown>, codexYaml?: string): RequirementsReading {
  const problems: RequirementProblem[] = [];
  const warn = (message: string, file = 'SKILL.md') => problems.push({ severity: 'warning', message, file });
  const out: SkillRequirements = { mcpServers: [], tools: [], scopes: [], agents: [], allowedTools: [], sources: [] };
  const source = (name: string) => {
    if (!out.sources.includes(name)) out.sources.push(name);
  };

  const add = (kind: RequirementKind, raw: unknown, at: string, file = 'SKILL.md'): boolean => {
    if (kind === 'mcp') return addServer(out, raw, at, (message) => warn(message, file));
    const name = checkedName(raw, at, (message) => warn(message, file));
    if (name === undefined) return false;
    const list = kind === 'tool' ? out.tools : kind === 'scope' ? out.scopes : out.agents;
    return pushUnique(list, name, kind === 'tool');
  };

  const requires = frontmatter['requires'];
  if (requires !== undefined && requires !== null) {
    if (typeof requires !== 'object' || Array.isArray(requires)) {
      warn(`Field 'requires' must be a mapping such as {mcp: [server], tools: [tool], scopes: [scope]}; ignored`);
    } else {
      for (const [key, value] of Object.entries(requires as Record<string, unknown>)) {
        const kind = REQUIRES_KEYS[key];
        if (kind === undefined) {
          warn(`requires.${oneLine(key).slice(0, 60)} is not understood (known: mcp, tools, scopes, agents); ignored`);
          continue;
        }
        if (value === null || (typeof value !== 'string' && !Array.isArray(value) && !(kind === 'mcp' && isMapping(value)))) {
          warn(`requires.${key} must be a name or a list of names; ignored`);
          continue;
        }
        let added = false;
        for (const [index, item] of listOf(value).entries()) added = add(kind, item, `requires.${key}[${index}]`) || added;
        if (added) source('requires');
      }
    }
  }

  const agents = frontmatter['agents'];
  if (agents !== undefined && agents !== null) {
    if (typeof agents !== 'string' && !Array.isArray(agents)) warn(`Field 'agents' must be a list of agent names; ignored`);
    else {
      let added = false;
      for (const [index, item] of listOf(agents).entries()) added = add('agent', item, `agents[${index}]`) || added;
      if (added) source('agents');
    }
  }

  const metadata = frontmatter['metadata'];
  if (isMapping(metadata) && METADATA_KEY in metadata) {
    const value = metadata[METADATA_KEY];
    if (typeof value !== 'string') warn(`metadata["${METADATA_KEY}"] must be a string such as "mcp:github tool:Bash scope:billing"; ignored`);
    else {
      let added = false;
      for (const token of value.split(/[\s,]+/).filter((part) => part !== '')) {
        const colon = token.indexOf(':');
        const kind = colon > 0 ? TOKEN_KINDS[token.slice(0, colon)] : undefined;
        if (kind === undefined) {
          warn(`metadata["${METADATA_KEY}"]: "${oneLine(token).slice(0, 60)}" is not kind:name (kinds: mcp, tool, scope, agent); ignored`);
          continue;
        }
        added = add(kind, token.slice(colon + 1), `metadata["${METADATA_KEY}"]`) || added;
      }
      if (added) source('metadata');
    }
  }

  const allowed = frontmatter['allowed-tools'];
  if (typeof allowed === 'string' || Array.isArray(allowed)) {
    const entries = typeof allowed === 'string' ? splitToolList(allowed) : allowed.filter((item): item is string => typeof item === 'string');
    for (const entry of entries) {
      if (out.allowedTools.length >= MAX_REQUIREMENTS_PER_KIND) break;
      const tool = entry.trim().slice(0, MAX_NAME);
      if (tool === '' || !NAME.test(tool.replace(/\s/g, '_'))) continue;
      pushUnique(out.allowedTools, tool, true);
      const server = MCP_TOOL_NAME.exec(tool.replace(/\(.*$/s, ''))?.[1];
      if (server !== undefined) addServer(out, server, 'allowed-tools', () => {});
    }
    if (out.allowedTools.length > 0) source('allowed-tools');
  }

  const compatibility = frontmatter['compatibility'];
  if (typeof compatibility === 'string' && compatibility.trim() !== '') {
    out.compatibility = oneLine(compatibility).slice(0, MAX_TEXT);
    source('compatibility');
  }

  if (codexYaml !== undefined) {
    const before = out.mcpServers.length;
    readCodexDependencies(
      codexYaml,
      (message) => warn(message, CODEX_FILE),
      (raw, at) => add('mcp', raw, at, CODEX_FILE),
    );
    if (out.mcpServers.length > before) source(CODEX_FILE);
  }

  const empty = out.mcpServers.length + out.tools.length + out.scopes.length + out.agents.length + out.allowedTools.length === 0;
  return empty && out.compatibility === undefined ? { problems } : { requirements: out, problems };
}

/** True when some requirement is judged against what is available (MCP servers, tools, scopes, agents). */
export function hasJudgedRequirements(requirements: SkillRequirements | undefined): boolean {
  return requirements !== undefined && requirements.mcpServers.length + requirements.tools.length + requirements.scopes.length + requirements.agents.length > 0;
}

function readCodexDependencies(text: string, warn: (message: string) => void, addServerEntry: (raw: unknown, at: string) => boolean): void {
  if (Buffer.byteLength(text) > MAX_CODEX_FILE_BYTES) return void warn(`larger than ${MAX_CODEX_FILE_BYTES / 1024} KiB; its dependencies are not read`);
  const deep = yamlNestingOverflow(text);
  if (deep !== undefined) return void warn(`nested too deeply at line ${deep.line}, column ${deep.column}; its dependencies are not read`);
  let data: unknown;
  try {
    const doc = parseDocument(text, { version: '1.2', schema: 'core', uniqueKeys: true, prettyErrors: false });
    const error = doc.errors[0];
    if (error !== undefined) return void warn(`not valid YAML (${oneLine(error.message).slice(0, 200)}); its dependencies are not read`);
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return void warn(`not valid YAML (${oneLine(error instanceof Error ? error.message : String(error)).slice(0, 200)}); its dependencies are not read`);
  }
  if (data === null || data === undefined) return;
  if (!isMapping(data)) return void warn('must be a YAML mapping (interface, policy, dependencies); its dependencies are not read');
  const dependencies = data['dependencies'];
  if (dependencies === undefined || dependencies === null) return;
  if (!isMapping(dependencies)) return void warn('dependencies must be a mapping with a tools list; ignored');
  const tools = dependencies['tools'];
  if (tools === undefined || tools === null) return;
  if (!Array.isArray(tools)) return void warn('dependencies.tools must be a list of {type: mcp, value: <server>} entries; ignored');
  tools.slice(0, MAX_REQUIREMENTS_PER_KIND).forEach((entry: unknown, index) => {
    const at = `dependencies.tools[${index}]`;
    if (!isMapping(entry)) return void warn(`${at} must be a mapping {type: mcp, value: <server>}; ignored`);
    const type = entry['type'];
    if (typeof type !== 'string' || !CODEX_MCP_TYPES.includes(type)) {
      return void warn(`${at}: type ${JSON.stringify(type ?? null).slice(0, 40)} is not understood (only "mcp" is); ignored`);
    }
    addServerEntry({ name: entry['value'], description: entry['description'], transport: entry['transport'], url: entry['url'] }, at);
  });
}

function addServer(out: SkillRequirements, raw: unknown, at: string, warn: (message: string) => void): boolean {
  if (isMapping(raw)) {
    const name = checkedName(raw['name'] ?? raw['value'], `${at}.name`, warn);
    if (name === undefined) return false;
    const server: McpServerRequirement = { name };
    for (const field of ['description', 'transport', 'url'] as const) {
      const value = raw[field];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string') warn(`${at}.${field} must be a string; ignored`);
      else if (value.trim() !== '') server[field] = oneLine(value).slice(0, MAX_TEXT);
    }
    if (server.url !== undefined && !/^https?:\/\//i.test(server.url)) {
      warn(`${at}.url "${server.url.slice(0, 80)}" is not an http(s) URL; ignored`);
      delete server.url;
    }
    return mergeServer(out.mcpServers, server);
  }
  const name = checkedName(raw, at, warn);
  return name !== undefined && mergeServer(out.mcpServers, { name });
}

/** One entry per server (names compared without case); a later declaration fills what an earlier one left out. */
function mergeServer(list: McpServerRequirement[], server: McpServerRequirement): boolean {
  const key = server.name.toLowerCase();
  const existing = list.find((item) => item.name.toLowerCase() === key);
  if (existing !== undefined) {
    for (const field of ['description', 'transport', 'url'] as const)
      if (existing[field] === undefined && server[field] !== undefined) existing[field] = server[field];
    return true;
  }
  if (list.length >= MAX_REQUIREMENTS_PER_KIND) return false;
  list.push(server);
  return true;
}

function checkedName(raw: unknown, at: string, warn: (message: string) => void): string | undefined {
  if (typeof raw !== 'string' || raw.trim() === '') {
    warn(`${at} must be a non-empty name; ignored`);
    return undefined;
  }
  const name = raw.trim();
  if (name.length > MAX_NAME || !NAME.test(name)) {
    warn(`${at}: "${oneLine(name).slice(0, 60)}" is not a name (no spaces or control characters, at most ${MAX_NAME} characters); ignored`);
    return undefined;
  }
  return name;
}

function pushUnique(list: string[], name: string, caseSensitive: boolean): boolean {
  const key = caseSensitive ? name : name.toLowerCase();
  if (list.some((item) => (caseSensitive ? item : item.toLowerCase()) === key)) return true;
  if (list.length >= MAX_REQUIREMENTS_PER_KIND) return false;
  list.push(name);
  return true;
}

function listOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.slice(0, MAX_REQUIREMENTS_PER_KIND);
  if (typeof value === 'string') return [value];
  if (isMapping(value)) return [value];
  return [];
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * `allowed-tools` is space-separated in the spec, comma-separated in many skills, and patterns carry arguments in
 * parentheses that hold spaces and commas (`Bash(npx expo *)`): split on both, outside parentheses.
 */
export function splitToolList(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text.slice(0, 16 * 1024)) {
    if (char === '(') depth++;
    else if (char === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === ',' || /\s/.test(char))) {
      if (current !== '') out.push(current);
      current = '';
    } else current += char;
  }
  if (current !== '') out.push(current);
  return out;
}

// ---- availability ---------------------------------------------------------------------------------------------

/**
 * What a caller has. A kind left undefined is not known (the host did not say, the policy declares none): a skill
 * needing it is `unknown`, not `needs`. Names compare without case (MCP servers, scopes, agents) or exactly (tools).
 */
export interface AvailableCapabilities {
  mcpServers?: readonly string[];
  tools?: readonly string[];
  scopes?: readonly string[];
  /** The host's own name (`claude-code`, `codex`): judged against a skill's `agents` list. */
  agent?: string;
}

export interface MissingRequirements {
  mcpServers?: string[];
  tools?: string[];
  scopes?: string[];
  agents?: string[];
}

export type Availability =
  | { status: 'ready' }
  | { status: 'needs'; needs: MissingRequirements }
  /** Some requirement could not be judged (nothing was said about that kind); `unknown` lists what. */
  | { status: 'unknown'; unknown: MissingRequirements };

export const READY: Availability = Object.freeze({ status: 'ready' }) as Availability;

/** Merges what several sides say is available (the host's hint and the policy's grants): a union per kind. */
export function mergeAvailable(...sides: ReadonlyArray<AvailableCapabilities | undefined>): AvailableCapabilities {
  const out: AvailableCapabilities = {};
  for (const side of sides) {
    if (side === undefined) continue;
    for (const kind of ['mcpServers', 'tools', 'scopes'] as const) {
      const values = side[kind];
      if (values !== undefined) out[kind] = [...new Set([...(out[kind] ?? []), ...values])];
    }
    if (side.agent !== undefined && out.agent === undefined) out.agent = side.agent;
  }
  return out;
}

export function judgeAvailability(requirements: SkillRequirements | undefined, available: AvailableCapabilities): Availability {
  if (!hasJudgedRequirements(requirements)) return READY;
  const req = requirements!;
  const needs: MissingRequirements = {};
  const unknown: MissingRequirements = {};
  const check = (kind: 'mcpServers' | 'tools' | 'scopes', wanted: readonly string[], exact: boolean) => {
    if (wanted.length === 0) return;
    const have = available[kind];
    if (have === undefined) {
      unknown[kind] = [...wanted];
      return;
    }
    const set = new Set(have.map((name) => (exact ? name : name.toLowerCase())));
    const missing = wanted.filter((name) => !set.has(exact ? name : name.toLowerCase()));
    if (missing.length > 0) needs[kind] = missing;
  };
  check(
    'mcpServers',
    req.mcpServers.map((server) => server.name),
    false,
  );
  check('tools', req.tools, true);
  check('scopes', req.scopes, false);
  if (req.agents.length > 0) {
    if (available.agent === undefined) unknown.agents = [...req.agents];
    else if (!req.agents.some((agent) => agent.toLowerCase() === available.agent!.toLowerCase())) needs.agents = [...req.agents];
  }
  if (Object.keys(needs).length > 0) return { status: 'needs', needs };
  if (Object.keys(unknown).length > 0) return { status: 'unknown', unknown };
  return READY;
}

/** Ranks for ordering catalogs: ready first, then unknown, then unmet. */
export function availabilityRank(availability: Availability): number {
  return availability.status === 'ready' ? 0 : availability.status === 'unknown' ? 1 : 2;
}

const join = (names: readonly string[]) => names.map((name) => `"${name}"`).join(', ');

/** A short line for catalogs: `ready`, `needs MCP server "rube"`, `unknown: MCP server "rube" not reported`. */
export function availabilitySummary(availability: Availability): string {
  if (availability.status === 'ready') return 'ready';
  const parts = (missing: MissingRequirements) =>
    [
      missing.mcpServers && `MCP server${missing.mcpServers.length > 1 ? 's' : ''} ${join(missing.mcpServers)}`,
      missing.tools && `tool${missing.tools.length > 1 ? 's' : ''} ${join(missing.tools)}`,
      missing.scopes && `scope${missing.scopes.length > 1 ? 's' : ''} ${join(missing.scopes)}`,
      missing.agents && `one of the agents ${join(missing.agents)}`,
    ]
      .filter(Boolean)
      .join(', ');
  return availability.status === 'needs' ? `needs ${parts(availability.needs)}` : `may need ${parts(availability.unknown)} (not reported by the host)`;
}

/**
 * What a model reads before a skill's instructions: whether it can follow them here, what is missing and what to do
 * about it. Undefined when there is nothing to say (no judged requirement).
 */
export function readinessText(requirements: SkillRequirements | undefined, availability: Availability): string | undefined {
  if (!hasJudgedRequirements(requirements)) return undefined;
  const req = requirements!;
  const serverWords = (names: readonly string[]) =>
    names
      .map((name) => {
        const server = req.mcpServers.find((item) => item.name.toLowerCase() === name.toLowerCase());
        const where = server?.url !== undefined ? ` (${server.url})` : '';
        return `"${name}"${where}`;
      })
      .join(', ');
  if (availability.status === 'ready') return `Ready: everything this skill needs is available (${requirementsSummary(req, false)}).`;
  const missing = availability.status === 'needs' ? availability.needs : availability.unknown;
  const steps: string[] = [];
  if (missing.mcpServers)
    steps.push(`the MCP server${missing.mcpServers.length > 1 ? 's' : ''} ${serverWords(missing.mcpServers)} must be connected to this host`);
  if (missing.tools) steps.push(`the tool${missing.tools.length > 1 ? 's' : ''} ${join(missing.tools)} must be available`);
  if (missing.scopes) steps.push(`the caller must be granted the scope${missing.scopes.length > 1 ? 's' : ''} ${join(missing.scopes)}`);
  if (missing.agents) steps.push(`it was written for ${join(missing.agents)}`);
  if (availability.status === 'needs') {
    return `Not ready: ${steps.join('; ')}. Do not start the steps that use what is missing: tell the user what to connect or enable (or pick another skill), and continue only once it is available.`;
  }
  return `Readiness unknown: ${steps.join('; ')}, and the host has not said whether it is. Check that your tools include it before relying on it; if not, tell the user what to connect.`;
}

/** One line for people: `MCP servers: rube; tools: Bash; agents: codex; compatibility: ...`. */
export function requirementsSummary(requirements: SkillRequirements, withInformation = true): string {
  const parts: string[] = [];
  if (requirements.mcpServers.length > 0)
    parts.push(`MCP server${requirements.mcpServers.length > 1 ? 's' : ''}: ${requirements.mcpServers.map((s) => s.name).join(', ')}`);
  if (requirements.tools.length > 0) parts.push(`tools: ${requirements.tools.join(', ')}`);
  if (requirements.scopes.length > 0) parts.push(`scopes: ${requirements.scopes.join(', ')}`);
  if (requirements.agents.length > 0) parts.push(`agents: ${requirements.agents.join(', ')}`);
  if (withInformation && requirements.allowedTools.length > 0) parts.push(`allowed tools: ${requirements.allowedTools.join(' ')}`);
  if (withInformation && requirements.compatibility !== undefined) parts.push(`compatibility: ${requirements.compatibility}`);
  return parts.join('; ');
}

/** Reads a `dev.skillport/requirements` value off the wire (another server's entry): undefined when malformed. */
export function requirementsFromWire(value: unknown): SkillRequirements | undefined {
  if (!isMapping(value)) return undefined;
  const strings = (raw: unknown) =>
    Array.isArray(raw) ? raw.filter((item): item is string => typeof item === 'string').slice(0, MAX_REQUIREMENTS_PER_KIND) : [];
  const servers = Array.isArray(value['mcpServers'])
    ? value['mcpServers']
        .filter((item): item is Record<string, unknown> => isMapping(item) && typeof item['name'] === 'string')
        .slice(0, MAX_REQUIREMENTS_PER_KIND)
        .map((item) => {
          const server: McpServerRequirement = { name: item['name'] as string };
          for (const field of ['description', 'transport', 'url'] as const) if (typeof item[field] === 'string') server[field] = item[field] as string;
          return server;
        })
    : [];
  const out: SkillRequirements = {
    mcpServers: servers,
    tools: strings(value['tools']),
    scopes: strings(value['scopes']),
    agents: strings(value['agents']),
    allowedTools: strings(value['allowedTools']),
    sources: strings(value['sources']),
  };
  if (typeof value['compatibility'] === 'string') out.compatibility = value['compatibility'];
  return out;
}
