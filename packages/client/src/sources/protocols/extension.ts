import type { Client } from '@modelcontextprotocol/client';
import { SkillVerificationError } from '@modelcontextprotocol/client/ext/skills';
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import { DIGEST_PATTERN, encodePath } from '@skillport/core';
import { SkillError, VerificationError, describeError } from '../../errors.js';
import type { LoadedSkill, SkillDescriptor, SkillFileEntry, SkillTemplate, VerifiedFile } from '../../model.js';
import { finishLoad } from '../load.js';
import { templateVariables } from '../wire-shapes.js';
import { isFile, pathInside, skillBase } from './protocol.js';
import type { Fetched, Listing, ListingProtocol, ProtocolContext } from './protocol.js';

/**
 * The final Skills extension (`skills/list`, `skills/get`, `skill://` reads) through the SDK's `SkillsClient`, which
 * verifies digest, size and frontmatter and refuses unlisted files on every network read.
 */
export class ExtensionProtocol implements ListingProtocol {
  /** Raw extension entries by SKILL.md URI (listed ones and those reached by skills/get): the SDK reads through them. */
  private readonly rawEntries = new Map<string, Skill>();

  constructor(private readonly context: ProtocolContext) {}

  async fetch(_client: Client, required: boolean): Promise<Fetched | undefined> {
    const skills = await this.context.skillsClient();
    if (!required && !skills.supported) return undefined;
    this.context.count('skills/list');
    const result = await skills.list();
    for (const refused of result.invalid)
      this.context.options.onWarning?.(`${this.context.origin}: skipped skills/list entry ${refused.uri ?? `#${refused.index}`}: ${refused.reason}`);
    return {
      listing: { mode: 'extension', entries: result.skills },
      ...(result.ttlMs !== undefined ? { ttlMs: result.ttlMs } : {}),
      ...(result.cacheScope ? { cacheScope: result.cacheScope } : {}),
    };
  }

  adopt(listing: Listing): void {
    for (const entry of listing.entries ?? []) this.rawEntries.set(entry.uri, entry);
  }

  describe(listing: Listing): SkillDescriptor[] {
    return (listing.entries ?? []).flatMap((entry) => this.describeEntry(entry) ?? []);
  }

  private describeEntry(entry: Skill): SkillDescriptor | undefined {
    const frontmatter = entry.frontmatter as Record<string, unknown>;
    const name = typeof frontmatter['name'] === 'string' ? frontmatter['name'] : undefined;
    const description = typeof frontmatter['description'] === 'string' ? frontmatter['description'] : '';
    if (!name) return undefined;
    const meta = entry._meta !== null && typeof entry._meta === 'object' ? (entry._meta as Record<string, unknown>) : undefined;
    const descriptor: SkillDescriptor = {
      origin: this.context.origin,
      uri: entry.uri,
      name,
      description,
      frontmatter,
      verification: 'digest',
      ...(meta ? { meta } : {}),
    };
    if (entry.resources === 'dynamic') return { ...descriptor, verification: 'none' };
    const base = skillBase(entry.uri);
    const files: SkillFileEntry[] = [];
    for (const resource of entry.resources) {
      const path = pathInside(base, resource.uri);
      if (path === undefined) {
        this.context.options.onWarning?.(`${this.context.origin}: ${entry.uri} lists ${resource.uri}, which is outside the skill: ignored`);
        continue;
      }
      files.push({ path, uri: resource.uri, digest: resource.digest, size: resource.size });
    }
    const pkg = meta?.['dev.skillport/packageDigest'];
    return { ...descriptor, files, ...(typeof pkg === 'string' && DIGEST_PATTERN.test(pkg) ? { packageDigest: pkg } : {}) };
  }

  async load(skill: SkillDescriptor): Promise<LoadedSkill> {
    return finishLoad(skill, await this.read(skill, 'SKILL.md'));
  }

  async read(skill: SkillDescriptor, path: string): Promise<VerifiedFile> {
    const found = this.context.listedFile(skill, path);
    if (isFile(found)) return found;
    const raw = this.rawEntries.get(skill.uri);
    if (!raw) throw new SkillError('not-found', `skill '${skill.name}' is not known to ${this.context.origin}; list the skills again`);
    const skills = await this.context.skillsClient();
    this.context.count('resources/read');
    try {
      const file = await skills.read(raw, found?.uri ?? path);
      if (found?.digest) this.context.options.cache?.putBlob(found.digest, file.bytes);
      if (!file.verified && skill.verification === 'digest') throw new SkillError('invalid', `${file.uri} was not verified`);
      return this.context.file(file.uri, path, file.bytes, file.verified, 'network', file.mimeType);
    } catch (error) {
      if (error instanceof SkillVerificationError) {
        // The server's bytes no longer match what it listed: next time, ask it for a fresh listing.
        this.context.invalidate();
        throw new VerificationError(
          error.reason,
          error.uri,
          `${error.uri} failed verification (${error.reason}${error.differences.length ? `: ${error.differences.join('; ')}` : ''}): refused`,
        );
      }
      if (error instanceof SkillError) throw error;
      throw new SkillError('unavailable', `${this.context.origin}: reading ${path} of '${skill.name}' failed: ${describeError(error)}`);
    }
  }

  /** Not listed: skills/get answers for every skill the server serves; find the skill that holds the file. */
  async readUnlisted(uri: string, segments: readonly string[], shown: string): Promise<VerifiedFile> {
    const candidates: string[] = [];
    if (segments.at(-1) === 'SKILL.md') candidates.push(uri);
    for (let end = segments.length - 1; end >= 1 && candidates.length < 8; end--) {
      const candidate = `skill://${encodePath(segments.slice(0, end).join('/'))}/SKILL.md`;
      if (!candidates.includes(candidate)) candidates.push(candidate);
    }
    for (const candidate of candidates) {
      const skill = await this.getSkill(candidate).catch(() => undefined);
      if (!skill) continue;
      const path = pathInside(skillBase(candidate), uri);
      if (path !== undefined) return this.read(skill, path);
    }
    throw new SkillError('not-found', `${shown} is not a file of any skill on ${this.context.origin}`);
  }

  /** One skill by its SKILL.md URI through skills/get (listed or not). */
  async getSkill(uri: string): Promise<SkillDescriptor> {
    const skills = await this.context.skillsClient();
    this.context.count('skills/get');
    let result;
    try {
      result = await skills.get(uri);
    } catch (error) {
      throw new SkillError('not-found', `${this.context.origin} has no skill at ${uri}: ${describeError(error)}`);
    }
    this.rawEntries.set(result.skill.uri, result.skill);
    const descriptor = this.describeEntry(result.skill);
    if (!descriptor) throw new SkillError('invalid', `${this.context.origin}: the entry for ${uri} has no name`);
    return descriptor;
  }

  async templates(): Promise<SkillTemplate[]> {
    const client = await this.context.connection();
    if (!client.getServerCapabilities()?.resources) return [];
    this.context.count('resources/templates/list');
    const { resourceTemplates } = await client.listResourceTemplates();
    return resourceTemplates
      .filter((template) => /^skill:\/\/.+\/SKILL\.md$/.test(template.uriTemplate) && !template.uriTemplate.includes('{+'))
      .map((template) => ({
        origin: this.context.origin,
        uriTemplate: template.uriTemplate,
        description: template.description ?? template.name,
        variables: templateVariables(template.uriTemplate),
      }))
      .filter((template) => template.variables.length > 0);
  }

  resolveTemplate(_template: SkillTemplate, uri: string): Promise<SkillDescriptor> {
    return this.getSkill(uri);
  }
}
