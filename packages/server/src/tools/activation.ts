import { entryMetaOf } from '../catalog/catalog-skill.js';
import { parseSkillMarkdown } from '@skillport/core';
import type { CatalogSkill } from '../catalog/model.js';
import type { SkillsService } from '../mcp/skills-service.js';
import { escapeXml, formatSize } from './catalog-text.js';
import { scanSentence, scanText } from './review-notes.js';
import { META_PROVENANCE, pendingOf, versionOf } from './versions.js';

/**
 * What a model receives when a skill is activated (by the tool, a prompt, or the single-skill fast path): the
 * SKILL.md instructions wrapped in `<skill_content>` with the skill's identity and package digest, then the list of
 * its other files (paths and sizes, never contents) and how to read them. The bytes come through the verifying
 * reader, so what the model sees is exactly what the digest names.
 */
export async function skillBody(service: SkillsService, skill: CatalogSkill): Promise<string> {
  const content = await service.readFile(skill.uri);
  if (content === undefined || !('text' in content)) throw new Error(`${skill.uri} is not readable as text`);
  try {
    return parseSkillMarkdown(content.text).body;
  } catch {
    return content.text;
  }
}

export function wrapSkill(skill: CatalogSkill, body: string, fileScan?: string): string {
  // A body must not be able to close its own wrapper and speak outside it.
  const safe = body.replace(/<\/skill_content/gi, '<\\/skill_content').trim();
  const version = versionOf(skill);
  const versionAttr = version !== undefined ? ` version="${escapeXml(version)}"` : '';
  const provenance = provenanceText(skill);
  const scan = scanText(skill) ?? fileScan;
  // A version held for review reaches only its publisher and reviewers: the model is told it is not approved.
  const pending = pendingOf(skill);
  return `<skill_content name="${escapeXml(skill.name)}" uri="${escapeXml(skill.uri)}" digest="${skill.packageDigest}"${versionAttr}>\n${safe}\n</skill_content>${pending ? `\n<skill_review status="pending">${escapeXml(pending)}</skill_review>` : ''}${provenance ? `\n<skill_provenance>${escapeXml(provenance)}</skill_provenance>` : ''}${scan ? `\n<skill_scan>${escapeXml(scan)}</skill_scan>` : ''}`;
}

/** Scans of skills served from folders and git, by package digest (the bytes they name never change). */
const fileScans = new Map<string, Promise<string | undefined>>();
const FILE_SCANS_KEPT = 2000;
/** A skill larger than this is not scanned at activation (`serve` and `skillport scan` still report it). */
const FILE_SCAN_MAX_BYTES = 8 * 1024 * 1024;

/**
 * For a skill that carries no registry scan (served from a folder or a git source): the scanner's findings of
 * medium severity or worse over its files, in the words a registry version's `<skill_scan>` uses. Scanned once per
 * package digest, through the verifying reader; a skill that cannot be read whole, or is too large, gets none (the
 * activation never fails for it). The scanner is loaded on the first activation, not at start.
 */
export async function fileScanText(service: SkillsService, skill: CatalogSkill): Promise<string | undefined> {
  if (service.options.scan === false) return undefined;
  const meta = entryMetaOf(skill);
  const provenance = meta?.[META_PROVENANCE] as Record<string, unknown> | undefined;
  // A registry version was scanned at publish (or reviewed by a person): its own record speaks for it.
  if (provenance !== undefined && provenance !== null && ('scan' in provenance || 'review' in provenance)) return undefined;
  if (skill.totalBytes > FILE_SCAN_MAX_BYTES) return undefined;
  let found = fileScans.get(skill.packageDigest);
  if (found === undefined) {
    found = scanFiles(service, skill);
    fileScans.set(skill.packageDigest, found);
    if (fileScans.size > FILE_SCANS_KEPT) fileScans.delete(fileScans.keys().next().value!);
    // A read that failed (a file changed under its digest) is tried again next time.
    void found.then((text) => {
      if (text === FAILED) fileScans.delete(skill.packageDigest);
    });
  }
  const text = await found;
  return text === FAILED ? undefined : text;
}

const FAILED = '\u0000failed';

async function scanFiles(service: SkillsService, skill: CatalogSkill): Promise<string | undefined> {
  try {
    const { scanSkill, summarize } = await import('@skillport/scan');
    const files: Array<{ path: string; bytes: Uint8Array }> = [];
    for (const file of skill.files) {
      const read = await service.readFileBytes(file.uri);
      if (read === undefined) return FAILED;
      files.push({ path: file.path, bytes: read.bytes });
    }
    const rules = summarize(scanSkill(files).findings).rules.filter((rule) => rule.severity !== 'low');
    return scanSentence('No person has reviewed this skill. An automated scan of its files found', rules);
  } catch {
    return FAILED;
  }
}

/** One line from a provider's provenance `_meta` (registry versions): who published, signatures, source, review. */
export function provenanceText(skill: CatalogSkill): string | undefined {
  const meta = entryMetaOf(skill);
  const provenance = meta?.[META_PROVENANCE];
  if (provenance === null || typeof provenance !== 'object') return undefined;
  const p = provenance as Record<string, unknown>;
  const parts: string[] = [];
  if (typeof p['publishedAt'] === 'string') parts.push(`published ${p['publishedAt']}${typeof p['publisher'] === 'string' ? ` by ${p['publisher']}` : ''}`);
  // Registry versions carry signatures (none: unsigned); a git source's skills carry a ref and a commit instead.
  if (Array.isArray(p['signatures'])) {
    const signatures = p['signatures'] as Array<Record<string, unknown>>;
    parts.push(
      signatures.length === 0
        ? 'unsigned'
        : `signed by ${signatures.map((s) => `${String(s['keyId'])} (${s['trusted'] === true ? 'trusted' : 'not a trusted key'})`).join(', ')}`,
    );
  }
  if (typeof p['repository'] === 'string')
    parts.push(`source ${p['repository']}${typeof p['ref'] === 'string' ? ` ${p['ref']}` : ''}${typeof p['commit'] === 'string' ? ` at ${p['commit']}` : ''}`);
  if (typeof p['review'] === 'string') parts.push(`review: ${p['review']}`);
  if (typeof p['yankedAt'] === 'string') parts.push(`yanked ${p['yankedAt']} (kept readable for sessions pinned to it)`);
  return parts.join('; ');
}

export function resourceList(skill: CatalogSkill, readTool = 'read_skill_resource'): string {
  const others = skill.files.filter((file) => file.uri !== skill.uri);
  if (others.length === 0) return 'This skill has no other files.';
  const lines = others.map((file) => `${file.path} (${formatSize(file.size)}, ${file.mimeType})`);
  return [
    `<skill_resources count="${others.length}">`,
    ...lines,
    '</skill_resources>',
    `Read a file only when the instructions call for it: ${readTool} {"uri": "${skill.uri}", "path": "<path above>"}.`,
  ].join('\n');
}

export async function activatedContent(service: SkillsService, skill: CatalogSkill, readTool?: string): Promise<string> {
  const [body, scan] = await Promise.all([skillBody(service, skill), fileScanText(service, skill)]);
  return `${wrapSkill(skill, body, scan)}\n\n${resourceList(skill, readTool)}`;
}
