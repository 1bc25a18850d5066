import { printable } from '@skillport/core';
import type { CatalogFile, CatalogSkill } from '../catalog/model.js';
import type { SkillsService } from '../mcp/skills-service.js';
import { formatSize } from './catalog-text.js';

/**
 * `read_skill_resource`: one listed file of a skill, for clients that only call tools. Paths are plain relative
 * paths inside the skill folder (not URI-encoded); anything that could step outside, or that is not in the
 * skill's manifest, is refused with one line the model can act on.
 */
export interface ReadOptions {
  /** Largest text returned by one call; larger files are read in parts with offset/length. */
  textMax: number;
  /** Largest binary inlined as base64 in the JSON envelope. */
  binaryMax: number;
  /** Return images (recognised by their bytes) as MCP image content. */
  vision: boolean;
}

export type ToolContent = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };
export interface ToolResult {
  content: ToolContent[];
  isError?: boolean;
  [key: string]: unknown;
}

export const fail = (text: string): ToolResult => ({ content: [{ type: 'text', text }], isError: true });

export function checkPath(path: string): string | undefined {
  if (path === '') return 'Error: Give the file\'s path inside the skill folder, e.g. "references/guide.md".';
  // A URI is refused by its "scheme://"; a bare colon is a legal file name character ("notes:v2.md", "c:run.sh").
  if (path.includes('\0') || path.includes('\\') || path.startsWith('/') || /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    return `Error: '${printable(path)}' is not a relative path inside the skill folder.`;
  }
  const segments = path.split('/');
  if (segments.some((segment) => segment === '..' || segment === '.' || segment === '')) {
    return `Error: '${printable(path)}' may not contain '.', '..' or empty segments; give the path as listed.`;
  }
  return undefined;
}

export async function readSkillResource(
  service: SkillsService,
  skill: CatalogSkill,
  args: { path: string; digest?: string | undefined; offset?: number | undefined; length?: number | undefined },
  options: ReadOptions,
): Promise<ToolResult> {
  const refused = checkPath(args.path);
  if (refused) return fail(refused);
  const file = skill.files.find((candidate) => candidate.path === args.path);
  if (file === undefined) {
    const listed = skill.files.filter((candidate) => candidate.uri !== skill.uri).map((candidate) => candidate.path);
    const shown = listed.slice(0, 20).join(', ') + (listed.length > 20 ? `, and ${listed.length - 20} more` : '');
    return fail(
      `Error: '${printable(args.path)}' is not a file of skill '${skill.name}'.${listed.length ? ` Its files: ${shown}.` : ' It has no other files.'}`,
    );
  }
  if (args.digest !== undefined && args.digest !== '' && args.digest !== skill.packageDigest && args.digest !== file.digest) {
    return fail(
      `Error: Skill '${skill.name}' has changed since ${args.digest.slice(0, 19)}…: it is now ${skill.packageDigest.slice(0, 19)}…; activate it again before reading its files.`,
    );
  }
  const content = await service.readFile(file.uri);
  if (content === undefined) return fail(`Error: '${args.path}' is no longer served; activate the skill again.`);
  if ('text' in content) return textResult(file, Buffer.from(content.text, 'utf8'), args, options);
  return binaryResult(file, Buffer.from(content.bytes), options);
}

export function textResult(
  file: CatalogFile,
  bytes: Buffer,
  args: { offset?: number | undefined; length?: number | undefined },
  options: ReadOptions,
): ToolResult {
  const partial = args.offset !== undefined || args.length !== undefined;
  if (!partial) {
    if (bytes.byteLength <= options.textMax) return { content: [{ type: 'text', text: bytes.toString('utf8') }] };
    return fail(
      `Error: '${file.path}' is ${formatSize(bytes.byteLength)} (${bytes.byteLength} bytes), more than the ${formatSize(options.textMax)} one call returns; read it in parts with offset and length in bytes, e.g. {"offset": 0, "length": ${options.textMax}}.`,
    );
  }
  const offset = Math.max(0, Math.floor(args.offset ?? 0));
  const length = Math.min(options.textMax, Math.max(1, Math.floor(args.length ?? options.textMax)));
  if (offset >= bytes.byteLength) return fail(`Error: offset ${offset} is past the end of '${file.path}' (${bytes.byteLength} bytes).`);
  // Move both ends back to character boundaries so no UTF-8 sequence is cut in half.
  const start = boundary(bytes, offset);
  const end = Math.min(bytes.byteLength, boundary(bytes, Math.min(bytes.byteLength, offset + length)) || bytes.byteLength);
  const text = bytes.subarray(start, end).toString('utf8');
  const note = `[${file.path}: bytes ${start}-${end} of ${bytes.byteLength}${end < bytes.byteLength ? `; next: {"offset": ${end}}` : '; end of file'}]`;
  return { content: [{ type: 'text', text: `${text}\n${note}` }] };
}

function boundary(bytes: Buffer, at: number): number {
  let position = at;
  while (position > 0 && position < bytes.byteLength && (bytes[position]! & 0xc0) === 0x80) position--;
  return position;
}

/** Image types recognised by their first bytes, never by the file name. */
export function sniffImage(bytes: Uint8Array): string | undefined {
  const starts = (...values: number[]) => values.every((value, index) => bytes[index] === value);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) return 'image/webp';
  return undefined;
}

function binaryResult(file: CatalogFile, bytes: Buffer, options: ReadOptions): ToolResult {
  const image = sniffImage(bytes);
  if (options.vision && image !== undefined && bytes.byteLength <= options.binaryMax) {
    return { content: [{ type: 'image', data: bytes.toString('base64'), mimeType: image }] };
  }
  const envelope: Record<string, unknown> = {
    name: file.path,
    mediaType: image ?? file.mimeType,
    size: bytes.byteLength,
    digest: file.digest,
    uri: file.uri,
  };
  if (bytes.byteLength <= options.binaryMax) {
    envelope['encoding'] = 'base64';
    envelope['data'] = bytes.toString('base64');
  } else {
    envelope['note'] =
      `Binary file of ${formatSize(bytes.byteLength)}, over the ${formatSize(options.binaryMax)} inline limit: not included. A client can fetch it with resources/read ${file.uri}.`;
  }
  return { content: [{ type: 'text', text: JSON.stringify(envelope) }] };
}
