import { sha256Digest } from './digest.js';
import { DEFAULT_LIMITS, formatBytes } from './limits.js';
import type { SkillLimits } from './limits.js';
import { decodeText, mimeTypeFor } from './mime.js';
import { collisionWarnings, reservedNameErrors } from './path-collisions.js';
import { CODEX_FILE, MAX_CODEX_FILE_BYTES, readRequirements } from './requirements.js';
import { checkFrontmatter } from './rules.js';
import type { Problem, RuleOptions } from './rules.js';
import { parseManifestBytes, skillManifest } from './skill-folder.js';
import type { SkillFileRecord, SkillManifest } from './skill-folder.js';

/**
 * Inspects a skill held in memory (unpacked from an archive, uploaded to a registry, fetched over HTTP) with the same
 * rules as a folder on disk (skill-folder.ts), plus the path checks a folder gets for free from the file system:
 * every path must be a plain relative `/`-separated path that cannot step outside the skill.
 */
export interface SkillFileEntry {
  /** `/`-separated path inside the skill. */
  path: string;
  bytes: Uint8Array;
}

export interface SkillFileProblem extends Problem {
  /** The path inside the skill the problem is about ('' for the skill as a whole). */
  path: string;
}

export interface InspectedFiles {
  /** Present when the skill can be served (no error-level problem). */
  skill?: SkillManifest & { folderName: string | undefined };
  problems: SkillFileProblem[];
}

export interface InspectFilesOptions extends RuleOptions {
  /** The name of the folder the skill came in (checked against the skill's name as the spec asks), if any. */
  folderName?: string;
  limits?: SkillLimits;
}

/**
 * Why a path inside a skill package is unsafe or unservable, or undefined when it is fine. Refused: empty paths,
 * absolute paths (`/x`, `C:x`, `\\\\x`), `.` and `..` segments, empty segments, backslashes, NUL and other control
 * characters, and paths that are not valid Unicode.
 */
export function unsafePathReason(path: string): string | undefined {
  if (path === '') return 'empty path';
  if (path.startsWith('/')) return 'absolute path';
  if (/^[A-Za-z]:/.test(path)) return 'drive-letter path';
  if (path.includes('\\')) return 'backslash in path';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'control character in path';
  if (LONE_SURROGATE.test(path)) return 'path is not valid Unicode';
  for (const segment of path.split('/')) {
    if (segment === '') return 'empty path segment';
    if (segment === '.' || segment === '..') return `'${segment}' segment in path`;
  }
  return undefined;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function inspectSkillFiles(entries: readonly SkillFileEntry[], options: InspectFilesOptions = {}): InspectedFiles {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const problems: SkillFileProblem[] = [];
  const fail = (message: string, path = ''): InspectedFiles => {
    problems.push({ severity: 'error', message, path });
    return { problems };
  };
  if (entries.length > limits.maxFiles) return fail(`skill has more than ${limits.maxFiles} files (the limit)`);
  let totalBytes = 0;
  const seen = new Set<string>();
  const files: SkillFileRecord[] = [];
  let manifest: SkillFileEntry | undefined;
  let lowercaseManifest: SkillFileEntry | undefined;
  for (const entry of entries) {
    const reason = unsafePathReason(entry.path);
    if (reason !== undefined) return fail(`unsafe file path ${JSON.stringify(entry.path.slice(0, 200))}: ${reason}`, entry.path);
    const segments = entry.path.split('/');
    if (segments.length - 1 > limits.maxDepth) return fail(`folders nested deeper than ${limits.maxDepth} levels`, entry.path);
    if (segments.includes('.git')) continue;
    if (seen.has(entry.path)) return fail(`file listed twice: ${entry.path}`, entry.path);
    seen.add(entry.path);
    totalBytes += entry.bytes.byteLength;
    if (totalBytes > limits.maxBytes) return fail(`skill is larger than ${formatBytes(limits.maxBytes)} (the limit)`);
    if (entry.path === 'SKILL.md') manifest = entry;
    else if (entry.path === 'skill.md') lowercaseManifest = entry;
    files.push({ path: entry.path, size: entry.bytes.byteLength, digest: sha256Digest(entry.bytes), mimeType: mimeTypeFor(entry.path) });
  }
  for (const file of files) {
    const parent = file.path.includes('/') ? file.path.slice(0, file.path.lastIndexOf('/')) : undefined;
    if (parent !== undefined && seen.has(parent)) return fail(`${parent} is both a file and a folder`, parent);
  }
  for (const collision of collisionWarnings(seen)) problems.push({ severity: 'warning', ...collision });
  for (const reserved of reservedNameErrors(seen)) problems.push({ severity: 'error', ...reserved });
  if (manifest === undefined && lowercaseManifest !== undefined) {
    problems.push({ severity: 'warning', message: 'the manifest is named skill.md; it is served as SKILL.md (rename it to SKILL.md)', path: 'skill.md' });
    manifest = lowercaseManifest;
    files.find((file) => file.path === 'skill.md')!.path = 'SKILL.md';
  }
  if (manifest === undefined) return fail('Missing required file: SKILL.md');
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const parsed = parseManifestBytes(Buffer.from(manifest.bytes.buffer, manifest.bytes.byteOffset, manifest.bytes.byteLength), limits);
  if ('error' in parsed) return fail(parsed.error, 'SKILL.md');
  const verdict = checkFrontmatter(parsed.frontmatter, options.folderName, options);
  for (const problem of verdict.problems) problems.push({ ...problem, path: 'SKILL.md' });
  if (problems.some((problem) => problem.severity === 'error')) return { problems };
  const codex = entries.find((entry) => entry.path === CODEX_FILE);
  let codexText: string | undefined;
  if (codex !== undefined) {
    if (codex.bytes.byteLength > MAX_CODEX_FILE_BYTES) {
      problems.push({ severity: 'warning', message: `larger than ${MAX_CODEX_FILE_BYTES / 1024} KiB; its dependencies are not read`, path: CODEX_FILE });
    } else {
      codexText = decodeText(Buffer.from(codex.bytes.buffer, codex.bytes.byteOffset, codex.bytes.byteLength));
      if (codexText === undefined) problems.push({ severity: 'warning', message: 'not UTF-8 text; its dependencies are not read', path: CODEX_FILE });
    }
  }
  const reading = readRequirements(parsed.frontmatter, codexText);
  for (const problem of reading.problems) problems.push({ severity: problem.severity, message: problem.message, path: problem.file });
  return { skill: { folderName: options.folderName, ...skillManifest(verdict, parsed, files, totalBytes, reading.requirements) }, problems };
}
