import type { Client } from '@modelcontextprotocol/client';
import { SkillError } from '../errors.js';
import { parseActivation, toolListingPage } from './wire-shapes.js';
import type { ToolListedSkill } from './wire-shapes.js';

/**
 * skillport's tool surface spoken as a client, for servers that offer only tools: `list_skills` (paged),
 * `activate_skill` and `read_skill_resource`. Every call's text is bounded before it is parsed; a tool error comes
 * back as a one-line SkillError naming the server.
 */
export interface ToolCaller {
  client: Client;
  origin: string;
  maxBytes: number;
  count(method: string): void;
}

/** The skills, or undefined when the server does not offer the tools (an error when `required`). */
export async function listSkillsViaTools(caller: ToolCaller, required: boolean): Promise<ToolListedSkill[] | undefined> {
  const { client, origin } = caller;
  if (!client.getServerCapabilities()?.tools) {
    if (required) throw new SkillError('unavailable', `${origin} offers no tools`);
    return undefined;
  }
  caller.count('tools/list');
  const names = new Set((await client.listTools()).tools.map((tool) => tool.name));
  if (!names.has('list_skills') || !names.has('activate_skill')) {
    if (required) throw new SkillError('unavailable', `${origin} does not offer list_skills and activate_skill`);
    return undefined;
  }
  const skills: ToolListedSkill[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const parsed = toolListingPage(await call(caller, 'list_skills', cursor ? { cursor, limit: 100 } : { limit: 100 }, 'the listing', true));
    if ('error' in parsed) throw new SkillError('invalid', `${origin}: list_skills: ${parsed.error}`);
    skills.push(...parsed.skills);
    cursor = parsed.nextCursor;
    if (!cursor) break;
  }
  return skills;
}

export async function activateViaTool(caller: ToolCaller, uri: string): Promise<NonNullable<ReturnType<typeof parseActivation>>> {
  const result = await call(caller, 'activate_skill', { uri }, uri);
  const activation = parseActivation(toolText(result));
  if (!activation) throw new SkillError('invalid', `${caller.origin}: activate_skill returned no <skill_content> for ${uri}`);
  return activation;
}

/** One file's bytes: text as UTF-8, or the bytes of skillport's base64 envelope for binaries. */
export async function readViaTool(caller: ToolCaller, uri: string, path: string, digest: string | undefined): Promise<Uint8Array> {
  const text = toolText(await call(caller, 'read_skill_resource', { uri, path, ...(digest ? { digest } : {}) }, `${uri} ${path}`));
  if (text.startsWith('{"name":')) {
    try {
      const envelope = JSON.parse(text) as { data?: string; encoding?: string };
      if (envelope.encoding === 'base64' && typeof envelope.data === 'string') return Buffer.from(envelope.data, 'base64');
    } catch {
      // plain text that happens to look like JSON
    }
  }
  return Buffer.from(text, 'utf8');
}

type ToolResult = Awaited<ReturnType<Client['callTool']>>;

async function call(caller: ToolCaller, name: string, args: Record<string, unknown>, what: string, rawErrors = false): Promise<ToolResult> {
  caller.count('tools/call');
  const result = await caller.client.callTool({ name, arguments: args });
  const text = toolText(result);
  // Tool results carry no size to check first: refuse one past the file limit rather than hand it on.
  if (Buffer.byteLength(text) > caller.maxBytes)
    throw new SkillError('too-large', `${caller.origin} returned more than ${caller.maxBytes} bytes for ${what}: refused`);
  if (result.isError && !rawErrors) throw new SkillError('unavailable', `${caller.origin}: ${text.replace(/^Error:\s*/, '')}`);
  return result;
}

export function toolText(result: { content?: unknown }): string {
  const content = Array.isArray(result.content) ? (result.content as Array<{ type?: string; text?: string }>) : [];
  return content
    .filter((item) => item.type === 'text' && typeof item.text === 'string')
    .map((item) => item.text!)
    .join('\n');
}
