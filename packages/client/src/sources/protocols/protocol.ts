import type { Client } from '@modelcontextprotocol/client';
import type { Skill, SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { SkillCache } from '../../cache.js';
import type { ConnectOptions } from '../../connect.js';
import type { LoadedSkill, SkillDescriptor, SkillFileEntry, SkillTemplate, VerifiedFile } from '../../model.js';
import type { WarningHandler } from '../source.js';
import type { IndexEntry, ToolListedSkill } from '../wire-shapes.js';

/**
 * The protocols an MCP server may list skills with, one module each behind `ListingProtocol`:
 * `extension.ts` (the final Skills extension), `draft-index.ts` (the draft-era `skill://index.json`, also used when
 * a server lists nothing) and `tools.ts` (skillport's tools on tool-only servers). `McpSkillSource` (`../mcp.ts`)
 * keeps what they share: the connection, the listing's freshness and cache, ownership and path checks.
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

/**
 * What a listing holds; persisted in the cache so a warm start needs no request. One field per protocol (the shape
 * is kept as it was when one module held all three, so caches written by earlier versions still load).
 */
export interface Listing {
  mode: SourceMode;
  entries?: Skill[];
  index?: IndexEntry[];
  tools?: ToolListedSkill[];
  instructions?: string;
  serverName?: string;
}

/** A freshly fetched listing with what the server said about caching it. */
export interface Fetched {
  listing: Omit<Listing, 'instructions' | 'serverName'>;
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

export const DEFAULT_MAX_FILE = 16 * 1024 * 1024;

/** What a protocol module gets from its source. */
export interface ProtocolContext {
  readonly origin: string;
  readonly options: McpSourceOptions;
  readonly maxFileBytes: number;
  connection(): Promise<Client>;
  skillsClient(): Promise<SkillsClient>;
  /** Counts one request by method (diagnostics, and tests that prove what was not fetched). */
  count(method: string): void;
  /** Marks the listing stale: the next `list` asks the server again. */
  invalidate(): void;
  /** A file answered from the digest cache, or the listed entry to read (undefined when the source lists no files). */
  listedFile(skill: SkillDescriptor, path: string): VerifiedFile | SkillFileEntry | undefined;
  /** One resource's bytes (text or blob), refused over the size limit. */
  readResourceBytes(uri: string): Promise<Uint8Array>;
  file(uri: string, path: string, bytes: Uint8Array, verified: boolean, from: VerifiedFile['from'], mimeType?: string): VerifiedFile;
}

export interface ListingProtocol {
  /** The server's listing in this protocol, or undefined when it does not speak it and `required` is false. */
  fetch(client: Client, required: boolean): Promise<Fetched | undefined>;
  /** Called whenever a listing (fetched or cached) becomes the current one. */
  adopt?(listing: Listing): void;
  describe(listing: Listing): SkillDescriptor[];
  load(skill: SkillDescriptor): Promise<LoadedSkill>;
  /** One file of a skill, `path` already checked (relative, no tricks). */
  read(skill: SkillDescriptor, path: string): Promise<VerifiedFile>;
  /** A canonical `skill://` URI that no listed skill holds (`shown`: the caller's spelling, for messages). */
  readUnlisted(uri: string, segments: readonly string[], shown: string): Promise<VerifiedFile>;
  templates(listing: Listing): Promise<SkillTemplate[]>;
  /** The skill a template names once `uri` is filled in from `values`. */
  resolveTemplate(template: SkillTemplate, uri: string, values: Record<string, string>): Promise<SkillDescriptor>;
}

/** Whether a `listedFile` answer is a file already read (from the cache). */
export function isFile(found: VerifiedFile | SkillFileEntry | undefined): found is VerifiedFile {
  return found !== undefined && 'bytes' in found;
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

/** The folder URI of a skill (its SKILL.md URI without the file name). */
export function skillBase(skillUri: string): string {
  return skillUri.slice(0, skillUri.length - 'SKILL.md'.length);
}
