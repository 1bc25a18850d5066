import type { McpServer } from '@modelcontextprotocol/server';
import { artifactAt } from '../catalog/artifacts.js';
import type { CatalogSkill } from '../catalog/model.js';
import type { SkillsService } from '../mcp/skills-service.js';
import type { TemplateFamily } from './templates.js';

/**
 * The draft-era discovery index, for clients built on the April-July 2026 drafts of the extension (Microsoft Agent
 * Framework's MCP skills source reads it): `skill://index.json` lists every skill as a `skill-md` entry whose `url`
 * is its SKILL.md URI (readable with resources/read) with the SKILL.md digest; sibling files resolve against that
 * URL by their relative paths, as the drafts say.
 *
 * A skill that came as an archive with its files at the root, in a format the drafts name (zip, tar.gz) and within
 * what draft clients accept (Agent Framework: 20 files, 1 MB), is listed as an `archive` entry instead: `url` is the
 * archive itself (a blob, byte for byte as published), `digest` its SHA-256, as the discovery format 0.2.0 defines.
 * Its files stay readable one by one as well. ADR 0010 says why; `archives: false` lists every skill as skill-md.
 */
export const INDEX_URI = 'skill://index.json';
export const DISCOVERY_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

export interface IndexEntry {
  name: string;
  type: 'skill-md' | 'mcp-resource-template' | 'archive';
  description: string;
  url: string;
  digest?: string;
}

/** What draft clients accept in an archive entry (Agent Framework's MCP skills source caps archives at these). */
export const DRAFT_ARCHIVE_MAX_FILES = 20;
export const DRAFT_ARCHIVE_MAX_BYTES = 1_000_000;

export interface IndexOptions {
  /** List skills that came as archives as `archive` entries (default true). */
  archives?: boolean;
}

export function discoveryIndex(
  service: SkillsService,
  templates: readonly TemplateFamily[] = [],
  options: IndexOptions = {},
): { $schema: string; skills: IndexEntry[] } {
  const snapshot = service.snapshot;
  const skills = snapshot.skills.map((skill) => {
    const artifact = skill.artifact;
    if (options.archives !== false && artifact !== undefined && fitsDraftArchive(skill) && artifactAt(snapshot, artifact.uri) !== undefined) {
      return { name: skill.name, type: 'archive', description: skill.description, url: artifact.uri, digest: artifact.digest } satisfies IndexEntry;
    }
    const manifest = skill.files.find((file) => file.uri === skill.uri);
    const entry: IndexEntry = { name: skill.name, type: 'skill-md', description: skill.description, url: skill.uri };
    if (manifest) entry.digest = manifest.digest;
    return entry;
  });
  for (const family of templates)
    skills.push({
      name: family.prefix.at(-1) ?? family.variables.join('-'),
      type: 'mcp-resource-template',
      description: family.description,
      url: family.uriTemplate,
    });
  return { $schema: DISCOVERY_SCHEMA, skills };
}

function fitsDraftArchive(skill: CatalogSkill): boolean {
  return (
    skill.files.length <= DRAFT_ARCHIVE_MAX_FILES &&
    skill.totalBytes <= DRAFT_ARCHIVE_MAX_BYTES &&
    (skill.artifact?.size ?? Infinity) <= DRAFT_ARCHIVE_MAX_BYTES
  );
}

export function registerIndex(server: McpServer, service: SkillsService, templates: readonly TemplateFamily[] = [], options: IndexOptions = {}): void {
  server.registerResource(
    'skills-index',
    INDEX_URI,
    {
      title: 'Skills index (draft discovery format)',
      description: 'Every skill on this server, in the draft Agent Skills discovery format.',
      mimeType: 'application/json',
    },
    async () => ({ contents: [{ uri: INDEX_URI, mimeType: 'application/json', text: JSON.stringify(discoveryIndex(service, templates, options)) }] }),
  );
}
