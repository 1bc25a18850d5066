import { escapeXml, sha256Digest } from '@skillport/core';
import type { CatalogSkill, LoadedSkill, VerifiedFile } from '../model.js';
import { SkillError } from '../errors.js';

/**
 * What the model reads: the `<skill_content>` wrapper of an activated skill and the `<skill_resource>` wrapper of a
 * file (text in parts with offsets, binaries as a base64 envelope). Closing tags inside content are defused so a
 * skill cannot end its wrapper and speak outside it. `mark` adds the `[Origin: X]` marker (references.ts).
 */
export type Marker = (origin: string, text: string) => string;

export interface ReadLimits {
  /** Largest text one read returns (default 256 KiB). */
  maxTextBytes?: number;
  /** Largest binary inlined as base64 (default 64 KiB). */
  maxBinaryBytes?: number;
}

export function skillContent(
  skill: CatalogSkill,
  loaded: LoadedSkill,
  approvedTools: readonly string[] | undefined,
  mark: Marker,
  packageDigest?: string,
): string {
  const digest = packageDigest ? ` digest="${packageDigest}"` : '';
  const verified = loaded.file.verified ? '' : ' verified="false"';
  const body = loaded.body.replace(/<\/skill_content/gi, '<\\/skill_content').trim();
  const lines = [
    `<skill_content name="${escapeXml(skill.id)}" origin="${escapeXml(skill.origin)}" uri="${escapeXml(skill.uri)}"${digest}${verified}>`,
    mark(skill.origin, body),
    '</skill_content>',
  ];
  // A skillport server marks a version held for review, and one no person reviewed whose scan found something:
  // the model is told, as the server's own activate_skill tells it.
  const pending = metaText(skill.meta, 'dev.skillport/pending');
  if (pending) lines.push(`<skill_review status="pending">${escapeXml(pending)}</skill_review>`);
  const scan = metaText(skill.meta, 'dev.skillport/scan');
  if (scan) lines.push(`<skill_scan>${escapeXml(scan)}</skill_scan>`);
  if (approvedTools) lines.push(`Pre-approved tools for this skill: ${approvedTools.join(' ')}`);
  const resources = loaded.resources;
  if (resources.length > 0) {
    lines.push(
      '',
      `<skill_resources count="${resources.length}">`,
      ...resources.map((file) => `${file.path}${file.size !== undefined ? ` (${file.size} bytes)` : ''}`),
      '</skill_resources>',
      `Read a file only when the instructions call for it: read_skill_resource {"name": "${skill.id}", "path": "<path above>"}.`,
    );
  }
  return lines.join('\n');
}

/** One file for the model: by skill and path when `skillId` is given, by URI otherwise (direct references). */
export function fileContent(origin: string, skillId: string | undefined, file: VerifiedFile, offset: number, limits: ReadLimits, mark: Marker): string {
  const attrs = `${skillId ? ` skill="${escapeXml(skillId)}"` : ''} origin="${escapeXml(origin)}" ${skillId ? `path="${escapeXml(file.path)}"` : `uri="${escapeXml(file.uri)}"`}${file.verified ? '' : ' verified="false"'}`;
  if (file.text === undefined) {
    const max = limits.maxBinaryBytes ?? 64 * 1024;
    const envelope: Record<string, unknown> = {
      path: file.path,
      mediaType: file.mimeType ?? 'application/octet-stream',
      size: file.bytes.byteLength,
      digest: sha256Digest(file.bytes),
    };
    if (file.bytes.byteLength <= max) Object.assign(envelope, { encoding: 'base64', data: Buffer.from(file.bytes).toString('base64') });
    else envelope['note'] = `binary file over the ${max}-byte inline limit: not included`;
    return `<skill_resource${attrs}>\n${JSON.stringify(envelope)}\n</skill_resource>`;
  }
  const max = limits.maxTextBytes ?? 256 * 1024;
  const bytes = Buffer.from(file.text, 'utf8');
  let text = file.text;
  let note = '';
  if (offset > 0 || bytes.byteLength > max) {
    if (offset >= bytes.byteLength && bytes.byteLength > 0)
      throw new SkillError('invalid', `offset ${offset} is past the end of '${file.path}' (${bytes.byteLength} bytes)`);
    // Cut on UTF-8 character boundaries: back up over continuation bytes at both ends.
    let start = offset;
    while (start > 0 && (bytes[start]! & 0xc0) === 0x80) start--;
    let end = Math.min(bytes.byteLength, start + max);
    while (end < bytes.byteLength && end > start && (bytes[end]! & 0xc0) === 0x80) end--;
    text = bytes.subarray(start, end).toString('utf8');
    note = `\n[bytes ${start}-${end} of ${bytes.byteLength}${end < bytes.byteLength ? `; read the rest with offset ${end}` : '; end of file'}]`;
  }
  const safe = text.replace(/<\/skill_resource/gi, '<\\/skill_resource');
  return `<skill_resource${attrs}>\n${mark(origin, safe)}${note}\n</skill_resource>`;
}

/** The frontmatter's `allowed-tools` (a space-separated string or a list). */
export function allowedTools(frontmatter: Record<string, unknown>): string[] {
  const value = frontmatter['allowed-tools'];
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}

/** A string member of an entry's `_meta`, cut to 2,000 characters (a server's note, not a place for a document). */
function metaText(meta: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = meta?.[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 2000) : undefined;
}
