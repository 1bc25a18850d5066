import type { Client } from '@modelcontextprotocol/client';
import { encodePath } from '@skillport/core';
import { SkillError, VerificationError, describeError } from '../../errors.js';
import type { LoadedSkill, SkillDescriptor, SkillFileEntry, SkillTemplate, VerifiedFile } from '../../model.js';
import { checkBytes, printable } from '../../verify.js';
import { unpackSkillArchive } from '../archive.js';
import { listedHint } from '../folder.js';
import { finishLoad } from '../load.js';
import { parseIndex, templateVariables } from '../wire-shapes.js';
import type { IndexEntry } from '../wire-shapes.js';
import { isFile, skillBase } from './protocol.js';
import type { Fetched, Listing, ListingProtocol, ProtocolContext } from './protocol.js';

export const INDEX_URI = 'skill://index.json';

/**
 * The draft-era index `skill://index.json` (`skill-md`, `archive` and `mcp-resource-template` entries), read with
 * plain `resources/read`: SKILL.md checked against the index digest when it has one, archives checked against
 * theirs and unpacked in memory. Also what a server that lists nothing is read with (direct references only).
 */
export class DraftIndexProtocol implements ListingProtocol {
  /** Unpacked archives, by archive URI. */
  private readonly archives = new Map<string, { files: SkillFileEntry[]; bytes: Map<string, Uint8Array>; digest?: string }>();

  constructor(private readonly context: ProtocolContext) {}

  async fetch(client: Client, required: boolean): Promise<Fetched | undefined> {
    if (!required && !client.getServerCapabilities()?.resources) return undefined;
    try {
      this.context.count('resources/read');
      const result = await client.readResource({ uri: INDEX_URI });
      const content = result.contents[0];
      const text = content && 'text' in content ? content.text : undefined;
      if (text === undefined) throw new SkillError('invalid', `${INDEX_URI} is not text`);
      const { entries, problems } = parseIndex(text);
      for (const problem of problems) this.context.options.onWarning?.(`${this.context.origin}: ${problem}`);
      return { listing: { mode: 'index', index: entries } };
    } catch (error) {
      if (required) throw new SkillError('unavailable', `${this.context.origin}: cannot read ${INDEX_URI}: ${describeError(error)}`);
      return undefined;
    }
  }

  describe(listing: Listing): SkillDescriptor[] {
    return (listing.index ?? []).flatMap((entry) => this.describeEntry(entry));
  }

  /** What a draft index says of a skill: its name and description, and where to load it. */
  private describeEntry(entry: IndexEntry): SkillDescriptor[] {
    if (!entry.name || (entry.type !== 'archive' && entry.type !== 'skill-md')) return [];
    const base = {
      origin: this.context.origin,
      uri: entry.url,
      name: entry.name,
      description: entry.description,
      frontmatter: { name: entry.name, description: entry.description },
    };
    if (entry.type === 'archive') {
      return [{ ...base, verification: entry.digest ? 'digest' : 'none', archive: { uri: entry.url, ...(entry.digest ? { digest: entry.digest } : {}) } }];
    }
    const files: SkillFileEntry[] | undefined = entry.digest ? [{ path: 'SKILL.md', uri: entry.url, digest: entry.digest }] : undefined;
    return [{ ...base, ...(files ? { files } : {}), verification: entry.digest ? 'skill-md' : 'none' }];
  }

  async load(skill: SkillDescriptor): Promise<LoadedSkill> {
    if (skill.archive) {
      const unpacked = await this.unpack(skill);
      return finishLoad(skill, await this.read(skill, 'SKILL.md'), unpacked.files);
    }
    return finishLoad(skill, await this.read(skill, 'SKILL.md'));
  }

  async read(skill: SkillDescriptor, path: string): Promise<VerifiedFile> {
    if (skill.archive) {
      const unpacked = await this.unpack(skill);
      const listed = unpacked.files.find((file) => file.path === path);
      const bytes = unpacked.bytes.get(path);
      if (!listed || !bytes)
        throw new VerificationError(
          'unlisted',
          skill.uri,
          `'${printable(path)}' is not a file of skill '${skill.name}'${listedHint({ ...skill, files: unpacked.files })}`,
        );
      checkBytes(listed, bytes);
      return this.context.file(listed.uri, path, bytes, skill.archive.digest !== undefined, 'cache', listed.mimeType);
    }
    const found = this.context.listedFile(skill, path);
    if (isFile(found)) return found;
    const uri = found?.uri ?? skillBase(skill.uri) + encodePath(path);
    const bytes = await this.context.readResourceBytes(uri);
    if (found) checkBytes(found, bytes);
    if (found?.digest) this.context.options.cache?.putBlob(found.digest, bytes);
    return this.context.file(uri, path, bytes, found?.digest !== undefined, 'network', found?.mimeType);
  }

  /** One blob, checked against the index digest (then cached by it), unpacked in memory. */
  private async unpack(skill: SkillDescriptor): Promise<{ files: SkillFileEntry[]; bytes: Map<string, Uint8Array> }> {
    const archive = skill.archive!;
    const known = this.archives.get(archive.uri);
    if (known && known.digest === archive.digest) return known;
    let blob = archive.digest ? this.context.options.cache?.getBlob(archive.digest) : undefined;
    if (!blob) {
      blob = await this.context.readResourceBytes(archive.uri);
      if (archive.digest) {
        checkBytes({ uri: archive.uri, digest: archive.digest }, blob);
        this.context.options.cache?.putBlob(archive.digest, blob);
      }
    }
    const result = { ...(await unpackSkillArchive(archive.uri, blob)), ...(archive.digest ? { digest: archive.digest } : {}) };
    this.archives.set(archive.uri, result);
    return result;
  }

  /** A plain resource read: nothing to verify it against. */
  async readUnlisted(uri: string, segments: readonly string[]): Promise<VerifiedFile> {
    const bytes = await this.context.readResourceBytes(uri);
    return this.context.file(uri, segments.at(-1) ?? '', bytes, false, 'network');
  }

  async templates(listing: Listing): Promise<SkillTemplate[]> {
    return (listing.index ?? [])
      .filter((entry) => entry.type === 'mcp-resource-template')
      .map((entry) => ({ origin: this.context.origin, uriTemplate: entry.url, description: entry.description, variables: templateVariables(entry.url) }))
      .filter((template) => template.variables.length > 0);
  }

  /** The resolved SKILL.md is read as a plain resource (no digest to check it against). */
  async resolveTemplate(template: SkillTemplate, uri: string, values: Record<string, string>): Promise<SkillDescriptor> {
    const name = values[template.variables.at(-1)!]!;
    return { origin: this.context.origin, uri, name, description: template.description, frontmatter: { name }, verification: 'none' };
  }
}
