import type { CatalogFile, CatalogSkill } from '../../catalog/model.js';
import type { SkillsService } from '../../mcp/skills-service.js';
import { formatSize } from '../catalog-text.js';
import { checkPath, fail, sniffImage, textResult } from '../read-resource.js';
import type { ReadOptions, ToolResult } from '../read-resource.js';
import { printable } from './ids.js';

/**
 * A skill's bundled files the way agentskills-mcp-server names them: by kind (`references/`, `scripts/`,
 * `assets/`) and by name inside the kind's folder. Files elsewhere in the skill (a LICENSE, `docs/…`) are listed
 * under `other` by their path, and every get_skill_* tool also takes a file's whole path, so nothing served is out
 * of reach. Only files in the skill's verified manifest are read, through SkillsService, so a name can never step
 * outside its skill (`../other-skill/…` is refused before anything is looked up).
 */
export type ResourceKind = 'references' | 'scripts' | 'assets';

export const KINDS: readonly ResourceKind[] = ['references', 'scripts', 'assets'];
const SINGULAR: Record<ResourceKind, string> = { references: 'reference', scripts: 'script', assets: 'asset' };

/** The listing, or why the skill's files cannot be listed (a static host that published only its SKILL.md). */
export function listResources(skill: CatalogSkill): Record<string, unknown> {
  if (skill.filesUnlisted !== undefined) {
    return {
      supported: false,
      note: `The files of this skill cannot be listed: ${skill.filesUnlisted}. Take resource names from the skill's instructions instead.`,
    };
  }
  const listing: Record<string, string[]> = { references: [], scripts: [], assets: [] };
  const other: string[] = [];
  for (const file of skill.files) {
    if (file.uri === skill.uri) continue;
    const kind = KINDS.find((candidate) => file.path.startsWith(`${candidate}/`));
    if (kind === undefined) other.push(file.path);
    else listing[kind]!.push(file.path.slice(kind.length + 1));
  }
  for (const names of Object.values(listing)) names.sort();
  return other.length > 0 ? { ...listing, other: other.sort() } : listing;
}

/** The file `name` means for a kind: `<kind>/<name>` first, else `name` as a path inside the skill. */
export function findResource(skill: CatalogSkill, kind: ResourceKind, name: string): CatalogFile | { error: string } {
  const refused = checkPath(name);
  if (refused !== undefined) return { error: refused.replace("Give the file's path inside the skill folder", `Give the ${SINGULAR[kind]}'s name`) };
  const file = skill.files.find((candidate) => candidate.path === `${kind}/${name}`) ?? skill.files.find((candidate) => candidate.path === name);
  if (file !== undefined) return file;
  if (skill.filesUnlisted !== undefined) {
    return { error: `Error: Skill '${skill.name}' has no ${SINGULAR[kind]} '${printable(name)}' served here: ${skill.filesUnlisted}.` };
  }
  const names = skill.files.filter((candidate) => candidate.path.startsWith(`${kind}/`)).map((candidate) => candidate.path.slice(kind.length + 1));
  const shown = names.slice(0, 20).join(', ') + (names.length > 20 ? `, and ${names.length - 20} more` : '');
  return {
    error: `Error: Skill '${skill.name}' has no ${SINGULAR[kind]} '${printable(name)}'.${names.length > 0 ? ` Its ${kind}: ${shown}.` : ` It has no ${kind}.`} list_skill_resources lists every file it has.`,
  };
}

/**
 * A file's content: valid UTF-8 as it is (large text in parts, with offset and length); anything else as the JSON
 * envelope `{name, media_type, size_bytes, encoding, content}`, described rather than inlined past the ceiling.
 * With vision on, an image (recognised by its bytes) comes back as MCP image content where `images` allows it.
 */
export async function readResource(
  service: SkillsService,
  file: CatalogFile,
  name: string,
  args: { offset?: number | undefined; length?: number | undefined },
  options: ReadOptions,
  images: boolean,
): Promise<ToolResult> {
  const content = await service.readFile(file.uri);
  if (content === undefined) return fail(`Error: '${printable(name)}' is no longer served.`);
  if ('text' in content) return textResult(file, Buffer.from(content.text, 'utf8'), args, options);
  const bytes = Buffer.from(content.bytes);
  const image = sniffImage(bytes);
  if (images && options.vision && image !== undefined && bytes.byteLength <= options.binaryMax) {
    return { content: [{ type: 'image', data: bytes.toString('base64'), mimeType: image }] };
  }
  const envelope: Record<string, unknown> = { name, media_type: image ?? file.mimeType, size_bytes: bytes.byteLength };
  if (bytes.byteLength <= options.binaryMax) {
    envelope['encoding'] = 'base64';
    envelope['content'] = bytes.toString('base64');
  } else {
    envelope['encoding'] = 'none';
    envelope['note'] =
      `Binary content omitted: ${bytes.byteLength} bytes (${formatSize(bytes.byteLength)}) exceeds the ${options.binaryMax}-byte inline limit. An MCP client can read it with resources/read ${file.uri}.`;
  }
  envelope['digest'] = file.digest;
  return { content: [{ type: 'text', text: JSON.stringify(envelope) }] };
}
