import type { McpServer } from '@modelcontextprotocol/server';
import type { SkillsService } from '../mcp/skills-service.js';
import type { TemplateFamily } from './templates.js';

/**
 * The draft-era discovery index, for clients built on the April-July 2026 drafts of the extension (Microsoft Agent
 * Framework's MCP skills source reads it): `skill://index.json` lists every skill as a `skill-md` entry whose `url`
 * is its SKILL.md URI (readable with resources/read) with the SKILL.md digest; sibling files resolve against that
 * URL by their relative paths, as the drafts say.
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

export function discoveryIndex(service: SkillsService, templates: readonly TemplateFamily[] = []): { $schema: string; skills: IndexEntry[] } {
  const skills = service.snapshot.skills.map((skill) => {
    const manifest = skill.files.find((file) => file.uri === skill.uri);
    const entry: IndexEntry = { name: skill.name, type: 'skill-md', description: skill.description, url: skill.uri };
    if (manifest) entry.digest = manifest.digest;
    return entry;
  });
  for (const family of templates) skills.push({ name: family.prefix.at(-1) ?? family.variables.join('-'), type: 'mcp-resource-template', description: family.description, url: family.uriTemplate });
  return { $schema: DISCOVERY_SCHEMA, skills };
}

export function registerIndex(server: McpServer, service: SkillsService, templates: readonly TemplateFamily[] = []): void {
  server.registerResource(
    'skills-index',
    INDEX_URI,
    { title: 'Skills index (draft discovery format)', description: 'Every skill on this server, in the draft Agent Skills discovery format.', mimeType: 'application/json' },
    async () => ({ contents: [{ uri: INDEX_URI, mimeType: 'application/json', text: JSON.stringify(discoveryIndex(service, templates)) }] }),
  );
}
