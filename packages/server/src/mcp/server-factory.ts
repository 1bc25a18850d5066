import { McpServer } from '@modelcontextprotocol/server';
import { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { createSkillSource } from './skills-source.js';
import type { SkillsService } from './skills-service.js';
import { registerTools } from '../tools/tools.js';
import type { ToolOptions } from '../tools/tools.js';
import { registerPrompts } from '../tools/prompts.js';
import { registerIndex } from '../tools/index-json.js';
import { registerTemplates } from '../tools/templates.js';
import type { TemplateFamily } from '../tools/templates.js';

export interface ServerIdentity {
  name: string;
  version: string;
}

export interface CacheHint {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

export interface McpFactoryOptions {
  service: SkillsService;
  identity: ServerIdentity;
  cacheHint: CacheHint;
  /** The current server instructions (they follow the catalog, so they are read at each creation). */
  instructions: () => string;
  tools: ToolOptions;
  /** Serve every skill as an MCP prompt. */
  prompts: boolean;
  /** Serve the draft-era `skill://index.json`. */
  index: boolean;
  /** In it, list skills that came as archives as `archive` entries (default true; ADR 0010). */
  indexArchives?: boolean;
  /** Template skill families (tools/templates.ts). */
  templates: readonly TemplateFamily[];
  pageSize: number;
  onWarning?: (message: string) => void;
}

/**
 * Builds the MCP server instances the SDK serves: one per stdio connection, one per HTTP request (the SDK's
 * stateless model). The skills extension is built once and attached to each instance, so building an instance is
 * only registration work. Connected instances are tracked (weakly) so that catalog changes reach them as
 * `notifications/resources/list_changed`.
 */
export class McpFactory {
  readonly extension: SkillsExtension;
  readonly #live = new Set<WeakRef<McpServer>>();
  readonly #refreshTools = new WeakMap<McpServer, () => void>();

  constructor(readonly options: McpFactoryOptions) {
    this.extension = new SkillsExtension({
      source: createSkillSource(options.service),
      cacheHint: options.cacheHint,
      onWarning: (warning) => options.onWarning?.(`${warning.path}: ${warning.message}`),
    });
  }

  create = (): McpServer => {
    const instructions = this.options.instructions();
    const server = new McpServer(
      { name: this.options.identity.name, version: this.options.identity.version },
      {
        capabilities: { resources: { listChanged: true } },
        ...(instructions ? { instructions } : {}),
      },
    );
    this.extension.attach(server);
    if (this.options.index) registerIndex(server, this.options.service, this.options.templates, { archives: this.options.indexArchives !== false });
    if (this.options.templates.length > 0) registerTemplates(server, this.options.service, this.options.templates);
    this.#refreshTools.set(server, registerTools(server, this.options.service, this.options.tools));
    if (this.options.prompts) registerPrompts(server, this.options.service, this.options.pageSize);
    return server;
  };

  /** For long-lived connections (stdio): remember the instance so it hears about catalog changes. */
  track(server: McpServer): void {
    this.#live.add(new WeakRef(server));
  }

  notifyListChanged(): void {
    for (const ref of this.#live) {
      const server = ref.deref();
      if (server === undefined) {
        this.#live.delete(ref);
        continue;
      }
      if (!server.isConnected()) continue;
      server.sendResourceListChanged();
      // The tools carry the catalog in their descriptions, and prompts mirror the skills.
      this.#refreshTools.get(server)?.();
      if (this.options.tools.mode !== 'none') server.sendToolListChanged();
      if (this.options.prompts) void server.server.sendPromptListChanged().catch(() => {});
    }
  }
}
