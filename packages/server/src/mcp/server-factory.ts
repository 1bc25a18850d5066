import { McpServer } from '@modelcontextprotocol/server';
import { SKILLS_EXTENSION_ID } from '@modelcontextprotocol/server/ext/skills';
import type { SkillsService } from './skills-service.js';
import { registerTools } from '../tools/tools.js';
import type { ToolOptions } from '../tools/tools.js';
import { registerPrompts } from '../tools/prompts.js';
import { registerIndex } from '../tools/index-json.js';
import { registerTemplates } from '../tools/templates.js';
import { registerAsm } from '../tools/asm/register.js';
import type { TemplateFamily } from '../tools/templates.js';
import type { Principal } from '../access/principal.js';
import type { Scoped } from './scoped.js';
import type { CacheHint, ServerIdentity } from './identity.js';

export type { CacheHint, ServerIdentity } from './identity.js';

export interface McpFactoryOptions {
  /** What a principal is served through (its view, its service, its extension instance): mcp/scoped.ts. */
  scoped: (principal: Principal) => Scoped;
  /** The principal of connections that carry no identity of their own (stdio, HTTP with --auth none). */
  principal: Principal;
  identity: ServerIdentity;
  cacheHint: CacheHint;
  /** The server instructions for a principal's service (they follow its view of the catalog). */
  instructions: (service: SkillsService) => Promise<string>;
  tools: ToolOptions;
  /** With `tools.asm`: the lone skill of its single-skill fast path, decided once for the whole server (tools/asm/fast-path.ts). */
  asmFastPath?: () => Promise<{ uri: string } | undefined>;
  /** Serve every skill as an MCP prompt. */
  prompts: boolean;
  /** Serve the draft-era `skill://index.json`. */
  index: boolean;
  /** In it, list skills that came as archives as `archive` entries (default true; ADR 0010). */
  indexArchives?: boolean;
  /** Template skill families (tools/templates.ts). */
  templates: readonly TemplateFamily[];
  pageSize: number;
}

/**
 * Builds the MCP server instances the SDK serves: one per stdio connection, one per HTTP request (the SDK's
 * stateless model), each for one principal: everything registered on it answers from that principal's service,
 * so from its view of the catalog. The skills extension is built once per principal and attached to each
 * instance, so building an instance is only registration work. Connected instances are tracked (weakly) so that
 * changes to what their principal sees reach them as list_changed notifications.
 */
export class McpFactory {
  readonly #live = new Set<WeakRef<McpServer>>();
  readonly #refreshTools = new WeakMap<McpServer, () => void>();
  readonly #scopes = new WeakMap<McpServer, Scoped>();

  constructor(readonly options: McpFactoryOptions) {}

  create = async (principal: Principal = this.options.principal): Promise<McpServer> => {
    const scoped = this.options.scoped(principal);
    const service = scoped.service;
    const instructions = await this.options.instructions(service);
    const server = new McpServer(
      { name: this.options.identity.name, version: this.options.identity.version },
      {
        capabilities: { resources: { listChanged: true } },
        ...(instructions ? { instructions } : {}),
      },
    );
    scoped.extension.attach(server);
    addReadMeta(server, service);
    if (this.options.index) registerIndex(server, service, this.options.templates, { archives: this.options.indexArchives !== false });
    if (this.options.templates.length > 0) registerTemplates(server, service, this.options.templates);
    this.#refreshTools.set(server, registerTools(server, service, this.options.tools));
    if (this.options.tools.asm) {
      const fastPath = await this.options.asmFastPath?.();
      registerAsm(server, service, { ...this.options.tools, fastPath, shared: this.options.tools.mode === 'full' });
    }
    if (this.options.prompts) registerPrompts(server, service, this.options.pageSize);
    this.#scopes.set(server, scoped);
    return server;
  };

  /** For long-lived connections (stdio): remember the instance so it hears about catalog changes. */
  track(server: McpServer): void {
    this.#live.add(new WeakRef(server));
  }

  /** Tells connected instances that their lists changed: all of them, or those whose principal `affected` names. */
  notifyListChanged(affected?: (scoped: Scoped) => boolean): void {
    for (const ref of this.#live) {
      const server = ref.deref();
      if (server === undefined) {
        this.#live.delete(ref);
        continue;
      }
      if (!server.isConnected()) continue;
      const scoped = this.#scopes.get(server);
      if (affected !== undefined && (scoped === undefined || !affected(scoped))) continue;
      server.sendResourceListChanged();
      // The tools carry the catalog in their descriptions, and prompts mirror the skills.
      this.#refreshTools.get(server)?.();
      if (this.options.tools.mode !== 'none') server.sendToolListChanged();
      if (this.options.prompts) void server.server.sendPromptListChanged().catch(() => {});
    }
  }

  /** The live (tracked, connected) instances' principals. */
  liveScopes(): Scoped[] {
    const out = new Set<Scoped>();
    for (const ref of this.#live) {
      const server = ref.deref();
      const scoped = server === undefined ? undefined : this.#scopes.get(server);
      if (server?.isConnected() && scoped !== undefined) out.add(scoped);
    }
    return [...out];
  }
}

type ReadCallback = (uri: URL, variables: unknown, ctx: unknown) => Promise<{ contents: Array<Record<string, unknown>> }>;

/**
 * A SKILL.md read of a version pending review, or scanned with findings and not reviewed, carries what the model
 * must be told in its content item's `_meta` (the bytes stay verbatim). The extension's read callback has no way to
 * return it, so its registered template's callback is wrapped; the HTTP fast path adds the same member.
 */
function addReadMeta(server: McpServer, service: SkillsService): void {
  const templates = (server as unknown as { _registeredResourceTemplates?: Record<string, { readCallback: ReadCallback }> })._registeredResourceTemplates;
  const template = templates?.[SKILLS_EXTENSION_ID];
  if (template === undefined) throw new Error('the skills extension registered no resource template: cannot mark pending versions on read');
  const read = template.readCallback;
  template.readCallback = async (uri, variables, ctx) => {
    const result = await read(uri, variables, ctx);
    const meta = service.readMeta(uri.href);
    const first = result.contents[0];
    if (meta === undefined || first === undefined || result.contents.length !== 1) return result;
    return { ...result, contents: [{ ...first, _meta: meta }] };
  };
}
