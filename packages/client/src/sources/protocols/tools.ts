import type { Client } from '@modelcontextprotocol/client';
import { encodePath } from '@skillport/core';
import { VerificationError } from '../../errors.js';
import type { LoadedSkill, SkillDescriptor, SkillFileEntry, SkillTemplate, VerifiedFile } from '../../model.js';
import { printable } from '../../verify.js';
import { listedHint } from '../folder.js';
import { activateViaTool, listSkillsViaTools, readViaTool } from '../tool-protocol.js';
import type { ToolCaller } from '../tool-protocol.js';
import { skillBase } from './protocol.js';
import type { Fetched, Listing, ListingProtocol, ProtocolContext } from './protocol.js';

/**
 * skillport's tools (`list_skills`, `activate_skill`, `read_skill_resource`) on servers that offer only tools. Nothing
 * comes with a per-file digest, so reads are unverified; an activation whose package digest differs from the listed
 * one is refused (the skill changed since it was listed).
 */
export class ToolsProtocol implements ListingProtocol {
  /** Files reported by activate_skill, by skill URI. */
  private readonly manifests = new Map<string, SkillFileEntry[]>();

  constructor(private readonly context: ProtocolContext) {}

  async fetch(client: Client, required: boolean): Promise<Fetched | undefined> {
    const tools = await listSkillsViaTools(this.caller(client), required);
    return tools ? { listing: { mode: 'tools', tools } } : undefined;
  }

  describe(listing: Listing): SkillDescriptor[] {
    return (listing.tools ?? []).map((entry) => ({
      origin: this.context.origin,
      uri: entry.uri,
      name: entry.name,
      description: entry.description,
      frontmatter: { name: entry.name, description: entry.description },
      ...(entry.digest ? { packageDigest: entry.digest } : {}),
      verification: 'none',
    }));
  }

  private caller(client: Client): ToolCaller {
    return { client, origin: this.context.origin, maxBytes: this.context.maxFileBytes, count: (method) => this.context.count(method) };
  }

  async load(skill: SkillDescriptor): Promise<LoadedSkill> {
    const activation = await activateViaTool(this.caller(await this.context.connection()), skill.uri);
    if (activation.name !== undefined && activation.name !== skill.name) {
      throw new VerificationError('frontmatter', skill.uri, `${skill.uri} activated as '${activation.name}' but was listed as '${skill.name}': refused`);
    }
    if (skill.packageDigest && activation.digest && activation.digest !== skill.packageDigest) {
      this.context.invalidate();
      throw new VerificationError(
        'digest',
        skill.uri,
        `${skill.uri} changed since it was listed (${skill.packageDigest.slice(0, 19)}… listed, ${activation.digest.slice(0, 19)}… activated): list the skills again`,
      );
    }
    const base = skillBase(skill.uri);
    const resources = activation.files.map((file) => ({ path: file.path, uri: base + encodePath(file.path) }));
    this.manifests.set(skill.uri, resources);
    const bytes = Buffer.from(activation.body, 'utf8');
    return {
      skill,
      body: activation.body,
      frontmatter: skill.frontmatter,
      resources,
      file: { origin: this.context.origin, uri: skill.uri, path: 'SKILL.md', bytes, text: activation.body, verified: false, from: 'network' },
    };
  }

  async read(skill: SkillDescriptor, path: string): Promise<VerifiedFile> {
    if (!this.manifests.has(skill.uri)) await this.load(skill);
    const listed = this.manifests.get(skill.uri) ?? [];
    const entry = listed.find((file) => file.path === path);
    if (!entry)
      throw new VerificationError(
        'unlisted',
        skill.uri,
        `'${printable(path)}' is not a file of skill '${skill.name}'${listedHint({ ...skill, files: listed })}`,
      );
    const bytes = await readViaTool(this.caller(await this.context.connection()), skill.uri, path, skill.packageDigest);
    return this.context.file(entry.uri, path, bytes, false, 'network');
  }

  /** A plain resource read (tool-only servers may still serve resources): nothing to verify it against. */
  async readUnlisted(uri: string, segments: readonly string[]): Promise<VerifiedFile> {
    const bytes = await this.context.readResourceBytes(uri);
    return this.context.file(uri, segments.at(-1) ?? '', bytes, false, 'network');
  }

  async templates(): Promise<SkillTemplate[]> {
    return [];
  }

  async resolveTemplate(template: SkillTemplate, uri: string, values: Record<string, string>): Promise<SkillDescriptor> {
    // Tool-only servers list no templates; a caller that brings one gets the draft-era reading of it.
    const name = values[template.variables.at(-1)!]!;
    return { origin: this.context.origin, uri, name, description: template.description, frontmatter: { name }, verification: 'none' };
  }
}
