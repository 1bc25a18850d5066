import type { Client } from '@modelcontextprotocol/client';
import { SkillVerificationError, SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import { DIGEST_PATTERN, canonicalSkillUri, decodeText, encodePath, parseSkillUri } from '@skillport/core';
import type { SkillCache } from '../cache.js';
import { connectServer, defaultOrigin, parseServerSpec } from '../connect.js';
import type { ConnectOptions, ServerSpec } from '../connect.js';
import { SkillError, VerificationError, describeError } from '../errors.js';
import type { LoadedSkill, SkillDescriptor, SkillFileEntry, SkillTemplate, VerifiedFile } from '../model.js';
import { checkBytes, checkRelativePath, printable } from '../verify.js';
import { listedHint } from './folder.js';
import { unpackSkillArchive } from './archive.js';
import { finishLoad } from './load.js';
import type { SkillSource, WarningHandler } from './source.js';
import { activateViaTool, listSkillsViaTools, readViaTool } from './tool-protocol.js';
import type { ToolCaller } from './tool-protocol.js';
import { parseIndex, templateVariables } from './wire-shapes.js';
import type { IndexEntry, ToolListedSkill } from './wire-shapes.js';

/**
 * Skills from one MCP server, whatever it speaks, tried in this order:
 * 1. the final Skills extension (`skills/list`, `skills/get`, `skill://` reads) through the SDK's `SkillsClient`,
 *    which verifies digest, size and frontmatter and refuses unlisted files on every network read;
 * 2. the draft-era index `skill://index.json` (`skill-md` and `mcp-resource-template` entries);
 * 3. skillport's tools (`list_skills`, `activate_skill`, `read_skill_resource`) on servers that offer only tools.
 *
 * The connection is opened on first need: a listing still fresh by the server's `ttlMs` and files whose digests
 * are in the cache are answered without any request, so a warm activation reads nothing from the network and
 * cached skills work offline. A read of a file the cache holds under its listed digest never goes to the network.
 */
export interface McpSourceOptions {
  /** Namespace shown to the model; default from the server spec (host:port, or the command's name). */
  origin?: string;
  cache?: SkillCache;
  /** Force one protocol instead of detecting it. */
  mode?: SourceMode;
  /** Largest file read (default 16 MiB, the extension's per-skill limit). */
  maxFileBytes?: number;
  /** How long a listing stays fresh when the server gives no `ttlMs` (2025-11-25 servers); default 30 s. */
  defaultTtlMs?: number;
  /**
   * Follow the server's `notifications/resources/list_changed`: the listing is marked stale (the next `list`, and
   * `SkillSet.refresh()`, ask again) and `onChange` is called. Default false.
   */
  watch?: boolean;
  onChange?: () => void;
  /** Never connect: answer from the cache only. */
  offline?: boolean;
  connect?: ConnectOptions;
  onWarning?: WarningHandler;
}

export type SourceMode = 'extension' | 'index' | 'tools' | 'none';

/** What a listing holds; persisted in the cache so a warm start needs no request. */
interface Listing {
  mode: SourceMode;
  entries?: Skill[];
  index?: IndexEntry[];
  tools?: ToolListedSkill[];
  instructions?: string;
  serverName?: string;
}

export const INDEX_URI = 'skill://index.json';
const DEFAULT_MAX_FILE = 16 * 1024 * 1024;

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
  /** Raw extension entries by SKILL.md URI (listed ones and those reached by skills/get). */
  private readonly rawEntries = new Map<string, Skill>();
  /** Unpacked draft-era archives, by archive URI. */
  private readonly archives = new Map<string, { files: SkillFileEntry[]; bytes: Map<string, Uint8Array>; digest?: string }>();
  /** Files reported by activate_skill on tool-only servers, by skill URI. */
  private readonly toolManifests = new Map<string, SkillFileEntry[]>();

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

  private count(method: string): void {
    this.requests[method] = (this.requests[method] ?? 0) + 1;
  }

  private connection(): Promise<Client> {
    if (this.options.offline) return Promise.reject(new SkillError('unavailable', `${this.origin} is offline and the cache does not hold what was asked; connect once to fill it`));
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

  private async skillsClient(): Promise<SkillsClient> {
    await this.connection();
    return this.skills!;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await (await client.catch(() => undefined))?.close().catch(() => undefined);
  }

  /** Lists the skills: from the cache while fresh, otherwise from the server (a stale cache serves when offline). */
  async list(): Promise<SkillDescriptor[]> {
    const listing = await this.currentListing();
    return this.describe(listing);
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
        this.options.onWarning?.(`${this.origin}: ${describeError(error)}; using the skills cached at ${new Date(cached?.fetchedAt ?? this.listedAt).toISOString()}`);
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
    for (const entry of listing.entries ?? []) this.rawEntries.set(entry.uri, entry);
    return listing;
  }

  private async fetchListing(): Promise<Listing> {
    const client = await this.connection();
    const skills = this.skills!;
    const serverName = client.getServerVersion()?.name;
    const instructions = client.getInstructions();
    const base = { ...(instructions ? { instructions } : {}), ...(serverName ? { serverName } : {}) };
    const mode = this.options.mode;
    let listing: Listing | undefined;
    let ttlMs: number | undefined;
    let cacheScope: 'public' | 'private' | undefined;
    if ((mode === undefined && skills.supported) || mode === 'extension') {
      this.count('skills/list');
      const result = await skills.list();
      for (const refused of result.invalid) this.options.onWarning?.(`${this.origin}: skipped skills/list entry ${refused.uri ?? `#${refused.index}`}: ${refused.reason}`);
      listing = { mode: 'extension', entries: result.skills, ...base };
      ttlMs = result.ttlMs;
      cacheScope = result.cacheScope;
    }
    if (!listing && (mode === undefined || mode === 'index')) {
      const index = await this.readIndex(client, mode === 'index');
      if (index) listing = { mode: 'index', index, ...base };
    }
    if (!listing && (mode === undefined || mode === 'tools')) {
      const tools = await listSkillsViaTools(this.caller(client), mode === 'tools');
      if (tools) listing = { mode: 'tools', tools, ...base };
    }
    listing ??= { mode: 'none', ...base };
    const now = Date.now();
    ttlMs ??= this.options.defaultTtlMs ?? 30_000;
    this.adopt(listing, now, ttlMs);
    this.options.cache?.putListing(this.id, { fetchedAt: now, ...(ttlMs !== undefined ? { ttlMs } : {}), ...(cacheScope ? { cacheScope } : {}), value: listing });
    return listing;
  }

  private async readIndex(client: Client, required: boolean): Promise<IndexEntry[] | undefined> {
    if (!required && !client.getServerCapabilities()?.resources) return undefined;
    try {
      this.count('resources/read');
      const result = await client.readResource({ uri: INDEX_URI });
      const content = result.contents[0];
      const text = content && 'text' in content ? content.text : undefined;
      if (text === undefined) throw new SkillError('invalid', `${INDEX_URI} is not text`);
      const { entries, problems } = parseIndex(text);
      for (const problem of problems) this.options.onWarning?.(`${this.origin}: ${problem}`);
      return entries;
    } catch (error) {
      if (required) throw new SkillError('unavailable', `${this.origin}: cannot read ${INDEX_URI}: ${describeError(error)}`);
      return undefined;
    }
  }

  private describe(listing: Listing): SkillDescriptor[] {
    if (listing.mode === 'extension') return (listing.entries ?? []).flatMap((entry) => this.describeEntry(entry) ?? []);
    if (listing.mode === 'index') {
      return (listing.index ?? []).flatMap((entry): SkillDescriptor[] => {
        if (!entry.name || (entry.type !== 'archive' && entry.type !== 'skill-md')) return [];
        // What a draft index says of a skill: its name and description, and where to load it.
        const base = { origin: this.origin, uri: entry.url, name: entry.name, description: entry.description, frontmatter: { name: entry.name, description: entry.description } };
        if (entry.type === 'archive') {
          return [{ ...base, verification: entry.digest ? 'digest' : 'none', archive: { uri: entry.url, ...(entry.digest ? { digest: entry.digest } : {}) } }];
        }
        const files: SkillFileEntry[] | undefined = entry.digest ? [{ path: 'SKILL.md', uri: entry.url, digest: entry.digest }] : undefined;
        return [{ ...base, ...(files ? { files } : {}), verification: entry.digest ? 'skill-md' : 'none' }];
      });
    }
    if (listing.mode === 'tools') {
      return (listing.tools ?? []).map((entry) => ({
        origin: this.origin,
        uri: entry.uri,
        name: entry.name,
        description: entry.description,
        frontmatter: { name: entry.name, description: entry.description },
        ...(entry.digest ? { packageDigest: entry.digest } : {}),
        verification: 'none',
      }));
    }
    return [];
  }

  private describeEntry(entry: Skill): SkillDescriptor | undefined {
    const frontmatter = entry.frontmatter as Record<string, unknown>;
    const name = typeof frontmatter['name'] === 'string' ? frontmatter['name'] : undefined;
    const description = typeof frontmatter['description'] === 'string' ? frontmatter['description'] : '';
    if (!name) return undefined;
    const meta = entry._meta !== null && typeof entry._meta === 'object' ? (entry._meta as Record<string, unknown>) : undefined;
    const descriptor: SkillDescriptor = { origin: this.origin, uri: entry.uri, name, description, frontmatter, verification: 'digest', ...(meta ? { meta } : {}) };
    if (entry.resources === 'dynamic') return { ...descriptor, verification: 'none' };
    const base = entry.uri.slice(0, entry.uri.length - 'SKILL.md'.length);
    const files: SkillFileEntry[] = [];
    for (const resource of entry.resources) {
      const path = pathInside(base, resource.uri);
      if (path === undefined) {
        this.options.onWarning?.(`${this.origin}: ${entry.uri} lists ${resource.uri}, which is outside the skill: ignored`);
        continue;
      }
      files.push({ path, uri: resource.uri, digest: resource.digest, size: resource.size });
    }
    const pkg = (entry._meta as Record<string, unknown> | undefined)?.['dev.skillport/packageDigest'];
    return { ...descriptor, files, ...(typeof pkg === 'string' && DIGEST_PATTERN.test(pkg) ? { packageDigest: pkg } : {}) };
  }

  async load(skill: SkillDescriptor): Promise<LoadedSkill> {
    this.own(skill);
    const mode = this.listing?.mode ?? (await this.currentListing()).mode;
    if (mode === 'tools') return this.loadViaTools(skill);
    if (skill.archive) {
      const unpacked = await this.unpack(skill);
      return finishLoad(skill, await this.readFile(skill, 'SKILL.md'), unpacked.files);
    }
    return finishLoad(skill, await this.readFile(skill, 'SKILL.md'));
  }

  /** A draft-era archive: one blob, checked against the index digest (then cached by it), unpacked in memory. */
  private async unpack(skill: SkillDescriptor): Promise<{ files: SkillFileEntry[]; bytes: Map<string, Uint8Array> }> {
    const archive = skill.archive!;
    const known = this.archives.get(archive.uri);
    if (known && known.digest === archive.digest) return known;
    let blob = archive.digest ? this.options.cache?.getBlob(archive.digest) : undefined;
    if (!blob) {
      blob = await this.readResourceBytes(archive.uri);
      if (archive.digest) {
        checkBytes({ uri: archive.uri, digest: archive.digest }, blob);
        this.options.cache?.putBlob(archive.digest, blob);
      }
    }
    const result = { ...(await unpackSkillArchive(archive.uri, blob)), ...(archive.digest ? { digest: archive.digest } : {}) };
    this.archives.set(archive.uri, result);
    return result;
  }

  async readFile(skill: SkillDescriptor, path: string): Promise<VerifiedFile> {
    this.own(skill);
    const clean = checkRelativePath(path);
    const mode = this.listing?.mode ?? (await this.currentListing()).mode;
    if (mode === 'tools') return this.readViaTools(skill, clean);
    if (skill.archive) {
      const unpacked = await this.unpack(skill);
      const listed = unpacked.files.find((file) => file.path === clean);
      const bytes = unpacked.bytes.get(clean);
      if (!listed || !bytes) throw new VerificationError('unlisted', skill.uri, `'${printable(path)}' is not a file of skill '${skill.name}'${listedHint({ ...skill, files: unpacked.files })}`);
      checkBytes(listed, bytes);
      return this.file(listed.uri, clean, bytes, skill.archive.digest !== undefined, 'cache', listed.mimeType);
    }
    const entry = skill.files?.find((file) => file.path === clean);
    if (skill.verification === 'digest' && !entry) {
      throw new VerificationError('unlisted', `${skill.uri}`, `'${printable(path)}' is not a file of skill '${skill.name}'${listedHint(skill)}`);
    }
    const maxBytes = this.options.maxFileBytes ?? DEFAULT_MAX_FILE;
    if (entry?.size !== undefined && entry.size > maxBytes) {
      throw new SkillError('too-large', `'${clean}' of skill '${skill.name}' is ${entry.size} bytes, over the ${maxBytes}-byte limit: not read`);
    }
    if (entry?.digest) {
      const cached = this.options.cache?.getBlob(entry.digest, entry.size);
      if (cached) return this.file(entry.uri, clean, cached, true, 'cache', entry.mimeType);
    }
    return mode === 'extension' ? this.readViaExtension(skill, clean, entry) : this.readViaResources(skill, clean, entry);
  }

  private async readViaExtension(skill: SkillDescriptor, path: string, entry: SkillFileEntry | undefined): Promise<VerifiedFile> {
    const raw = this.rawEntries.get(skill.uri);
    if (!raw) throw new SkillError('not-found', `skill '${skill.name}' is not known to ${this.origin}; list the skills again`);
    const skills = await this.skillsClient();
    this.count('resources/read');
    try {
      const file = await skills.read(raw, entry?.uri ?? path);
      if (entry?.digest) this.options.cache?.putBlob(entry.digest, file.bytes);
      if (!file.verified && skill.verification === 'digest') throw new SkillError('invalid', `${file.uri} was not verified`);
      return this.file(file.uri, path, file.bytes, file.verified, 'network', file.mimeType);
    } catch (error) {
      if (error instanceof SkillVerificationError) {
        // The server's bytes no longer match what it listed: next time, ask it for a fresh listing.
        this.invalidate();
        throw new VerificationError(error.reason, error.uri, `${error.uri} failed verification (${error.reason}${error.differences.length ? `: ${error.differences.join('; ')}` : ''}): refused`);
      }
      if (error instanceof SkillError) throw error;
      throw new SkillError('unavailable', `${this.origin}: reading ${path} of '${skill.name}' failed: ${describeError(error)}`);
    }
  }

  /** Draft-era servers: plain resources/read; SKILL.md checked against the index digest when it has one. */
  private async readViaResources(skill: SkillDescriptor, path: string, entry: SkillFileEntry | undefined): Promise<VerifiedFile> {
    const base = skill.uri.slice(0, skill.uri.length - 'SKILL.md'.length);
    const uri = entry?.uri ?? base + encodePath(path);
    const bytes = await this.readResourceBytes(uri);
    if (entry) checkBytes(entry, bytes);
    if (entry?.digest) this.options.cache?.putBlob(entry.digest, bytes);
    return this.file(uri, path, bytes, entry?.digest !== undefined, 'network', entry?.mimeType);
  }

  private async readResourceBytes(uri: string): Promise<Uint8Array> {
    const client = await this.connection();
    this.count('resources/read');
    let result;
    try {
      result = await client.readResource({ uri });
    } catch (error) {
      throw new SkillError('unavailable', `${this.origin}: cannot read ${uri}: ${describeError(error)}`);
    }
    const content = result.contents.find((item) => item.uri === uri) ?? result.contents[0];
    if (!content) throw new SkillError('invalid', `${this.origin} returned nothing for ${uri}`);
    const bytes = 'text' in content ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob, 'base64');
    const maxBytes = this.options.maxFileBytes ?? DEFAULT_MAX_FILE;
    if (bytes.byteLength > maxBytes) throw new SkillError('too-large', `${uri} is ${bytes.byteLength} bytes, over the ${maxBytes}-byte limit: refused`);
    return bytes;
  }

  private caller(client: Client): ToolCaller {
    return { client, origin: this.origin, maxBytes: this.options.maxFileBytes ?? DEFAULT_MAX_FILE, count: (method) => this.count(method) };
  }

  private async loadViaTools(skill: SkillDescriptor): Promise<LoadedSkill> {
    const activation = await activateViaTool(this.caller(await this.connection()), skill.uri);
    if (activation.name !== undefined && activation.name !== skill.name) {
      throw new VerificationError('frontmatter', skill.uri, `${skill.uri} activated as '${activation.name}' but was listed as '${skill.name}': refused`);
    }
    if (skill.packageDigest && activation.digest && activation.digest !== skill.packageDigest) {
      this.invalidate();
      throw new VerificationError('digest', skill.uri, `${skill.uri} changed since it was listed (${skill.packageDigest.slice(0, 19)}… listed, ${activation.digest.slice(0, 19)}… activated): list the skills again`);
    }
    const base = skill.uri.slice(0, skill.uri.length - 'SKILL.md'.length);
    const resources = activation.files.map((file) => ({ path: file.path, uri: base + encodePath(file.path) }));
    this.toolManifests.set(skill.uri, resources);
    const bytes = Buffer.from(activation.body, 'utf8');
    return {
      skill,
      body: activation.body,
      frontmatter: skill.frontmatter,
      resources,
      file: { origin: this.origin, uri: skill.uri, path: 'SKILL.md', bytes, text: activation.body, verified: false, from: 'network' },
    };
  }

  private async readViaTools(skill: SkillDescriptor, path: string): Promise<VerifiedFile> {
    if (!this.toolManifests.has(skill.uri)) await this.loadViaTools(skill);
    const listed = this.toolManifests.get(skill.uri) ?? [];
    const entry = listed.find((file) => file.path === path);
    if (!entry) throw new VerificationError('unlisted', skill.uri, `'${printable(path)}' is not a file of skill '${skill.name}'${listedHint({ ...skill, files: listed })}`);
    const bytes = await readViaTool(this.caller(await this.connection()), skill.uri, path, skill.packageDigest);
    return this.file(entry.uri, path, bytes, false, 'network');
  }

  /** A direct `skill://` reference, read on this server only. */
  async readUri(uri: string): Promise<VerifiedFile> {
    const parsed = parseSkillUri(uri);
    if (typeof parsed === 'string') throw new SkillError('path', `'${printable(uri)}' is not a readable skill:// URI (${parsed})`);
    const canonical = parsed.canonical;
    const listing = await this.currentListing();
    const known = this.describe(listing);
    for (const skill of known) {
      const base = skill.uri.slice(0, skill.uri.length - 'SKILL.md'.length);
      const path = pathInside(canonicalSkillUri(base + 'SKILL.md')!.slice(0, -'SKILL.md'.length), canonical);
      if (path !== undefined) return this.readFile(skill, path);
    }
    if (listing.mode === 'extension') {
      // Not listed: skills/get answers for every skill the server serves; find the skill that holds the file.
      const segments = parsed.segments;
      const candidates: string[] = [];
      if (segments.at(-1) === 'SKILL.md') candidates.push(canonical);
      for (let end = segments.length - 1; end >= 1 && candidates.length < 8; end--) {
        const candidate = `skill://${encodePath(segments.slice(0, end).join('/'))}/SKILL.md`;
        if (!candidates.includes(candidate)) candidates.push(candidate);
      }
      for (const candidate of candidates) {
        const skill = await this.getSkill(candidate).catch(() => undefined);
        if (!skill) continue;
        const path = pathInside(candidate.slice(0, -'SKILL.md'.length), canonical);
        if (path !== undefined) return this.readFile(skill, path);
      }
      throw new SkillError('not-found', `${printable(uri)} is not a file of any skill on ${this.origin}`);
    }
    const bytes = await this.readResourceBytes(canonical);
    return this.file(canonical, parsed.segments.at(-1) ?? '', bytes, false, 'network');
  }

  /** One skill by its SKILL.md URI through skills/get (listed or not). */
  async getSkill(uri: string): Promise<SkillDescriptor> {
    const skills = await this.skillsClient();
    this.count('skills/get');
    let result;
    try {
      result = await skills.get(uri);
    } catch (error) {
      throw new SkillError('not-found', `${this.origin} has no skill at ${uri}: ${describeError(error)}`);
    }
    this.rawEntries.set(result.skill.uri, result.skill);
    const descriptor = this.describeEntry(result.skill);
    if (!descriptor) throw new SkillError('invalid', `${this.origin}: the entry for ${uri} has no name`);
    return descriptor;
  }

  async instructions(): Promise<string | undefined> {
    return (await this.currentListing()).instructions;
  }

  async templates(): Promise<SkillTemplate[]> {
    const listing = await this.currentListing();
    if (listing.mode === 'index') {
      return (listing.index ?? [])
        .filter((entry) => entry.type === 'mcp-resource-template')
        .map((entry) => ({ origin: this.origin, uriTemplate: entry.url, description: entry.description, variables: templateVariables(entry.url) }))
        .filter((template) => template.variables.length > 0);
    }
    if (listing.mode !== 'extension') return [];
    const client = await this.connection();
    if (!client.getServerCapabilities()?.resources) return [];
    this.count('resources/templates/list');
    const { resourceTemplates } = await client.listResourceTemplates();
    return resourceTemplates
      .filter((template) => /^skill:\/\/.+\/SKILL\.md$/.test(template.uriTemplate) && !template.uriTemplate.includes('{+'))
      .map((template) => ({ origin: this.origin, uriTemplate: template.uriTemplate, description: template.description ?? template.name, variables: templateVariables(template.uriTemplate) }))
      .filter((template) => template.variables.length > 0);
  }

  async complete(template: SkillTemplate, variable: string, value: string, context: Record<string, string>): Promise<{ values: string[]; hasMore: boolean; total?: number }> {
    const client = await this.connection();
    this.count('completion/complete');
    try {
      const result = await client.complete({
        ref: { type: 'ref/resource', uri: template.uriTemplate },
        argument: { name: variable, value },
        ...(Object.keys(context).length > 0 ? { context: { arguments: context } } : {}),
      });
      const values = result.completion.values.filter((candidate) => typeof candidate === 'string').slice(0, 100);
      return { values, hasMore: result.completion.hasMore === true, ...(typeof result.completion.total === 'number' ? { total: result.completion.total } : {}) };
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
    if (listing.mode === 'extension') return this.getSkill(uri);
    // Draft-era: the resolved SKILL.md is read as a plain resource (no digest to check it against).
    const name = values[template.variables.at(-1)!]!;
    return { origin: this.origin, uri, name, description: template.description, frontmatter: { name }, verification: 'none' };
  }

  private own(skill: SkillDescriptor): void {
    if (skill.origin !== this.origin) throw new SkillError('origin', `skill '${skill.name}' belongs to ${skill.origin}, not ${this.origin}: refused`);
  }

  private file(uri: string, path: string, bytes: Uint8Array, verified: boolean, from: VerifiedFile['from'], mimeType?: string): VerifiedFile {
    const text = decodeText(bytes);
    return { origin: this.origin, uri, path, bytes, ...(text !== undefined ? { text } : {}), ...(mimeType ? { mimeType } : {}), verified, from };
  }
}

/** The decoded path of `uri` inside the folder URI `base` (ending in `/`), or undefined when it is outside. */
export function pathInside(base: string, uri: string): string | undefined {
  if (!uri.startsWith(base)) return undefined;
  const rest = uri.slice(base.length).replace(/#.*$/, '');
  if (rest === '' || rest.includes('?')) return undefined;
  const segments: string[] = [];
  for (const part of rest.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      return undefined;
    }
    if (decoded === '' || decoded === '.' || decoded === '..' || /[/\\\0]/.test(decoded)) return undefined;
    segments.push(decoded);
  }
  return segments.join('/');
}
