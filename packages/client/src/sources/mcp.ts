import { toolText } from './tool-protocol.js';
import type { Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { canonicalSkillUri, decodeText, encodePath, parseSkillUri } from '@skillport/core';
import { connectServer, defaultOrigin, parseServerSpec } from '../connect.js';
import type { ServerSpec } from '../connect.js';
import { SkillError, VerificationError, describeError } from '../errors.js';
import type { LoadedSkill, SkillDescriptor, SkillFileEntry, SkillTemplate, VerifiedFile } from '../model.js';
import { checkRelativePath, printable } from '../verify.js';
import { listedHint } from './folder.js';
import { DraftIndexProtocol } from './protocols/draft-index.js';
import { ExtensionProtocol } from './protocols/extension.js';
import { DEFAULT_MAX_FILE, pathInside, skillBase } from './protocols/protocol.js';
import type { Listing, ListingProtocol, McpSourceOptions, ProtocolContext, SourceMode } from './protocols/protocol.js';
import { ToolsProtocol } from './protocols/tools.js';
import type { SkillSource } from './source.js';

export { INDEX_URI } from './protocols/draft-index.js';
export { pathInside } from './protocols/protocol.js';
export type { McpSourceOptions, SourceMode } from './protocols/protocol.js';

/**
 * Skills from one MCP server, whatever it speaks, tried in this order (one module each under `protocols/`):
 * 1. the final Skills extension (`skills/list`, `skills/get`, `skill://` reads) through the SDK's `SkillsClient`,
 *    which verifies digest, size and frontmatter and refuses unlisted files on every network read;
 * 2. the draft-era index `skill://index.json` (`skill-md` and `mcp-resource-template` entries);
 * 3. skillport's tools (`list_skills`, `activate_skill`, `read_skill_resource`) on servers that offer only tools.
 *
 * The connection is opened on first need: a listing still fresh by the server's `ttlMs` and files whose digests
 * are in the cache are answered without any request, so a warm activation reads nothing from the network and
 * cached skills work offline. A read of a file the cache holds under its listed digest never goes to the network.
 */
export class McpSkillSource implements SkillSource {
  readonly origin: string;
  readonly id: string;
  /** Requests made, by method (diagnostics, and tests that prove what was not fetched). */
  readonly requests: Record<string, number> = {};
  private client: Promise<Client> | undefined;
  private skills: SkillsClient | undefined;
  private listing: Listing | undefined;
  private listedAt = 0;
  private ttlMs: number | undefined;
  private stale = false;
  private readonly extension: ExtensionProtocol;
  private readonly protocols: Record<SourceMode, ListingProtocol>;

  constructor(
    private readonly server: ServerSpec | string | { id: string; connect: () => Promise<Client> },
    private readonly options: McpSourceOptions = {},
  ) {
    if (typeof server === 'object' && 'connect' in server) {
      this.id = server.id;
      this.origin = options.origin ?? server.id;
    } else {
      const spec = typeof server === 'string' ? parseServerSpec(server) : server;
      this.server = spec;
      this.id = spec.id;
      this.origin = options.origin ?? defaultOrigin(spec);
    }
    const context = this.context();
    this.extension = new ExtensionProtocol(context);
    const index = new DraftIndexProtocol(context);
    // A server that lists nothing is still read for direct references, with plain resource reads.
    this.protocols = { extension: this.extension, index, tools: new ToolsProtocol(context), none: index };
  }

  /** Wraps an already connected SDK client. */
  static fromClient(client: Client, options: McpSourceOptions & { id?: string } = {}): McpSkillSource {
    const id = options.id ?? options.origin ?? client.getServerVersion()?.name ?? 'mcp';
    return new McpSkillSource({ id, connect: async () => client }, { ...options, origin: options.origin ?? id });
  }

  /** The protocol the server was found to speak (after `list`). */
  get mode(): SourceMode | undefined {
    return this.listing?.mode;
  }

  /** What the protocol modules share with this source. */
  private context(): ProtocolContext {
    const maxFileBytes = this.options.maxFileBytes ?? DEFAULT_MAX_FILE;
    return {
      origin: this.origin,
      options: this.options,
      maxFileBytes,
      connection: () => this.connection(),
      skillsClient: async () => {
        await this.connection();
        return this.skills!;
      },
      count: (method) => {
        this.requests[method] = (this.requests[method] ?? 0) + 1;
      },
      invalidate: () => this.invalidate(),
      listedFile: (skill, path) => this.listedFile(skill, path, maxFileBytes),
      readResourceBytes: (uri) => this.readResourceBytes(uri, maxFileBytes),
      file: (uri, path, bytes, verified, from, mimeType) => this.file(uri, path, bytes, verified, from, mimeType),
    };
  }

  private connection(): Promise<Client> {
    if (this.options.offline)
      return Promise.reject(new SkillError('unavailable', `${this.origin} is offline and the cache does not hold what was asked; connect once to fill it`));
    if (!this.client) {
      const server = this.server;
      const onResourcesChanged = () => {
        this.invalidate();
        this.options.onChange?.();
      };
      const pending =
        typeof server === 'object' && 'connect' in server
          ? server.connect()
          : connectServer(server as ServerSpec, { ...this.options.connect, ...(this.options.watch ? { onResourcesChanged } : {}) });
      this.client = pending.then((client) => {
        this.skills = new SkillsClient(client, { skipInvalid: true });
        return client;
      });
      this.client.catch(() => (this.client = undefined));
    }
    return this.client;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await (await client.catch(() => undefined))?.close().catch(() => undefined);
  }

  /** Lists the skills: from the cache while fresh, otherwise from the server (a stale cache serves when offline). */
  async list(): Promise<SkillDescriptor[]> {
    const listing = await this.currentListing();
    return this.protocols[listing.mode].describe(listing);
  }

  /**
   * The server's own ranking for a request, from its `list_skills` tool with a query (skillport's and any server
   * offering that tool): names, descriptions and URIs, best first. Undefined when the server has no such tool.
   */
  async search(query: string, limit = 10): Promise<Array<{ name: string; description: string; uri?: string }> | undefined> {
    const client = await this.connection();
    const tools = await client.listTools();
    if (!tools.tools.some((tool) => tool.name === 'list_skills')) return undefined;
    this.requests['tools/call'] = (this.requests['tools/call'] ?? 0) + 1;
    const result = await client.callTool({ name: 'list_skills', arguments: { query, limit } });
    if (result.isError) throw new SkillError('unavailable', `${this.origin}: list_skills failed: ${toolText(result).slice(0, 500)}`);
    const structured = result.structuredContent as { skills?: unknown } | undefined;
    let skills = structured?.skills;
    if (!Array.isArray(skills)) {
      try {
        skills = (JSON.parse(toolText(result)) as { skills?: unknown }).skills;
      } catch {
        skills = undefined;
      }
    }
    if (!Array.isArray(skills)) throw new SkillError('invalid', `${this.origin}: list_skills answered without a list of skills`);
    return skills
      .filter(
        (entry): entry is Record<string, unknown> => entry !== null && typeof entry === 'object' && typeof (entry as { name?: unknown }).name === 'string',
      )
      .map((entry) => ({
        name: entry['name'] as string,
        description: typeof entry['description'] === 'string' ? entry['description'] : '',
        ...(typeof entry['uri'] === 'string' ? { uri: entry['uri'] } : {}),
      }));
  }

  /** Forgets the listing so the next `list` asks the server. */
  invalidate(): void {
    this.stale = true;
  }

  private fresh(): boolean {
    return this.listing !== undefined && !this.stale && this.ttlMs !== undefined && Date.now() - this.listedAt < this.ttlMs;
  }

  private async currentListing(): Promise<Listing> {
    if (this.fresh()) return this.listing!;
    const cached = this.options.cache?.findListing<Listing>(this.id);
    if (cached && !this.stale && cached.ttlMs !== undefined && Date.now() - cached.fetchedAt < cached.ttlMs) {
      return this.adopt(cached.value, cached.fetchedAt, cached.ttlMs);
    }
    try {
      return await this.fetchListing();
    } catch (error) {
      const fallback = this.listing ?? cached?.value;
      if (fallback) {
        this.options.onWarning?.(
          `${this.origin}: ${describeError(error)}; using the skills cached at ${new Date(cached?.fetchedAt ?? this.listedAt).toISOString()}`,
        );
        return this.adopt(fallback, cached?.fetchedAt ?? this.listedAt, 0);
      }
      throw error instanceof SkillError ? error : new SkillError('unavailable', `${this.origin}: ${describeError(error)}`);
    }
  }

  private adopt(listing: Listing, at: number, ttlMs: number | undefined): Listing {
    this.listing = listing;
    this.listedAt = at;
    this.ttlMs = ttlMs;
    this.stale = false;
    this.protocols[listing.mode].adopt?.(listing);
    return listing;
  }

  /** Asks the server in the forced protocol, or in each in turn until one answers. */
  private async fetchListing(): Promise<Listing> {
    const client = await this.connection();
    const serverName = client.getServerVersion()?.name;
    const instructions = client.getInstructions();
    const base = { ...(instructions ? { instructions } : {}), ...(serverName ? { serverName } : {}) };
    const forced = this.options.mode;
    let fetched;
    for (const mode of ['extension', 'index', 'tools'] as const) {
      if (forced !== undefined && forced !== mode) continue;
      fetched = await this.protocols[mode].fetch(client, forced === mode);
      if (fetched) break;
    }
    const listing: Listing = { ...(fetched?.listing ?? { mode: 'none' }), ...base };
    const now = Date.now();
    const ttlMs = fetched?.ttlMs ?? this.options.defaultTtlMs ?? 30_000;
    this.adopt(listing, now, ttlMs);
    this.options.cache?.putListing(this.id, { fetchedAt: now, ttlMs, ...(fetched?.cacheScope ? { cacheScope: fetched.cacheScope } : {}), value: listing });
    return listing;
  }

  private async protocol(): Promise<ListingProtocol> {
    return this.protocols[this.listing?.mode ?? (await this.currentListing()).mode];
  }

  async load(skill: SkillDescriptor): Promise<LoadedSkill> {
    this.own(skill);
    return (await this.protocol()).load(skill);
  }

  async readFile(skill: SkillDescriptor, path: string): Promise<VerifiedFile> {
    this.own(skill);
    const clean = checkRelativePath(path, skill.files);
    return (await this.protocol()).read(skill, clean);
  }

  /**
   * The checks every listed read shares: an unlisted path is refused when the listing names every file, a listed
   * size over the limit is refused before any request, and bytes the cache holds under the listed digest are
   * answered from it. Returns the cached file, or the listed entry (if any) for the protocol to read.
   */
  private listedFile(skill: SkillDescriptor, path: string, maxBytes: number): VerifiedFile | SkillFileEntry | undefined {
    const entry = skill.files?.find((file) => file.path === path);
    if (skill.verification === 'digest' && !entry) {
      throw new VerificationError('unlisted', `${skill.uri}`, `'${printable(path)}' is not a file of skill '${skill.name}'${listedHint(skill)}`);
    }
    if (entry?.size !== undefined && entry.size > maxBytes) {
      throw new SkillError('too-large', `'${path}' of skill '${skill.name}' is ${entry.size} bytes, over the ${maxBytes}-byte limit: not read`);
    }
    if (entry?.digest) {
      const cached = this.options.cache?.getBlob(entry.digest, entry.size);
      if (cached) return this.file(entry.uri, path, cached, true, 'cache', entry.mimeType);
    }
    return entry;
  }

  private async readResourceBytes(uri: string, maxBytes: number): Promise<Uint8Array> {
    const client = await this.connection();
    this.requests['resources/read'] = (this.requests['resources/read'] ?? 0) + 1;
    let result;
    try {
      result = await client.readResource({ uri });
    } catch (error) {
      throw new SkillError('unavailable', `${this.origin}: cannot read ${uri}: ${describeError(error)}`);
    }
    const content = result.contents.find((item) => item.uri === uri) ?? result.contents[0];
    if (!content) throw new SkillError('invalid', `${this.origin} returned nothing for ${uri}`);
    const bytes = 'text' in content ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob, 'base64');
    if (bytes.byteLength > maxBytes) throw new SkillError('too-large', `${uri} is ${bytes.byteLength} bytes, over the ${maxBytes}-byte limit: refused`);
    return bytes;
  }

  /** A direct `skill://` reference, read on this server only. */
  async readUri(uri: string): Promise<VerifiedFile> {
    const parsed = parseSkillUri(uri);
    if (typeof parsed === 'string') throw new SkillError('path', `'${printable(uri)}' is not a readable skill:// URI (${parsed})`);
    const canonical = parsed.canonical;
    const listing = await this.currentListing();
    const protocol = this.protocols[listing.mode];
    for (const skill of protocol.describe(listing)) {
      const path = pathInside(skillBase(canonicalSkillUri(skill.uri)!), canonical);
      if (path !== undefined) return this.readFile(skill, path);
    }
    return protocol.readUnlisted(canonical, parsed.segments, printable(uri));
  }

  /** One skill by its SKILL.md URI through skills/get (listed or not). */
  getSkill(uri: string): Promise<SkillDescriptor> {
    return this.extension.getSkill(uri);
  }

  async instructions(): Promise<string | undefined> {
    return (await this.currentListing()).instructions;
  }

  async templates(): Promise<SkillTemplate[]> {
    const listing = await this.currentListing();
    return this.protocols[listing.mode].templates(listing);
  }

  async complete(
    template: SkillTemplate,
    variable: string,
    value: string,
    context: Record<string, string>,
  ): Promise<{ values: string[]; hasMore: boolean; total?: number }> {
    const client = await this.connection();
    this.requests['completion/complete'] = (this.requests['completion/complete'] ?? 0) + 1;
    try {
      const result = await client.complete({
        ref: { type: 'ref/resource', uri: template.uriTemplate },
        argument: { name: variable, value },
        ...(Object.keys(context).length > 0 ? { context: { arguments: context } } : {}),
      });
      const values = result.completion.values.filter((candidate) => typeof candidate === 'string').slice(0, 100);
      return {
        values,
        hasMore: result.completion.hasMore === true,
        ...(typeof result.completion.total === 'number' ? { total: result.completion.total } : {}),
      };
    } catch (error) {
      throw new SkillError('template', `${this.origin}: completion for {${variable}} of ${template.uriTemplate} failed: ${describeError(error)}`);
    }
  }

  async resolveTemplate(template: SkillTemplate, values: Record<string, string>): Promise<SkillDescriptor> {
    let uri = template.uriTemplate;
    for (const variable of template.variables) {
      const value = values[variable];
      if (value === undefined || value === '' || /[/\\\0]/.test(value) || value === '.' || value === '..') {
        throw new SkillError('template', `{${variable}} needs a plain value for ${template.uriTemplate} (got '${printable(value ?? '')}')`);
      }
      uri = uri.replace(`{${variable}}`, encodePath(value));
    }
    const listing = await this.currentListing();
    return this.protocols[listing.mode].resolveTemplate(template, uri, values);
  }

  private own(skill: SkillDescriptor): void {
    if (skill.origin !== this.origin) throw new SkillError('origin', `skill '${skill.name}' belongs to ${skill.origin}, not ${this.origin}: refused`);
  }

  private file(uri: string, path: string, bytes: Uint8Array, verified: boolean, from: VerifiedFile['from'], mimeType?: string): VerifiedFile {
    const text = decodeText(bytes);
    return { origin: this.origin, uri, path, bytes, ...(text !== undefined ? { text } : {}), ...(mimeType ? { mimeType } : {}), verified, from };
  }
}
