import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import { basename, join, sep } from 'node:path';
import { packageDigest, sha256Digest } from './digest.js';
import type { DigestCache, ParsedFrontmatter } from './digest-cache.js';
import { holdsPath } from './holds-path.js';
import { FrontmatterError, holdsControlCharacter, parseSkillMarkdown } from './frontmatter.js';
import { UnreadableFileError, hashRegularFileSync, readRegularFileSync } from './fsread.js';
import { DEFAULT_LIMITS, formatBytes } from './limits.js';
import type { SkillLimits } from './limits.js';
import { decodeText, mimeTypeFor } from './mime.js';
import { markdownHeadings } from './markdown-headings.js';
import { collisionWarnings, reservedNameErrors } from './path-collisions.js';
import { CODEX_FILE, MAX_CODEX_FILE_BYTES, readRequirements } from './requirements.js';
import type { SkillRequirements } from './requirements.js';
import { checkFrontmatter } from './rules.js';
import type { Problem, RuleOptions } from './rules.js';

/**
 * Reads one skill folder into a verified manifest: every served file with its size and sha256 digest, the parsed
 * frontmatter, and every problem found. Serving rules (docs/architecture.md, "Serving rules"):
 *
 * - Only regular files are served. A symlink whose target (resolved fully) is a regular file inside the same skill
 *   folder is served at the link's path with the target's bytes; a symlink to a directory is not followed (no
 *   cycles, no double listing); a symlink that leads outside the folder, and FIFOs, sockets and devices, are left
 *   out, each with a warning. `.git` folders are not skill content and are skipped silently.
 * - File names holding a backslash or bytes that are not UTF-8 are left out (they cannot round-trip as a URI).
 * - Past the file-count or byte limit the skill is not served at all (error), and nothing is read or hashed.
 */
export interface SkillFileRecord {
  /** `/`-separated path inside the skill folder (`SKILL.md`, `references/guide.md`). */
  path: string;
  size: number;
  digest: string;
  mimeType: string;
  /** For an in-folder symlink: the absolute path of its (resolved) target. Otherwise the bytes are at `realDir/path`. */
  target?: string;
}

export interface FolderProblem extends Problem {
  /** The file or folder the problem is about. */
  path: string;
  /** What kind of problem, for decisions (a message's wording is for people and may change). */
  code?: FolderProblemCode;
}

/**
 * Problems that callers decide on: a source that is not there (`path-missing`), a file where a folder was wanted
 * (`not-a-directory`), a skill's SKILL.md given instead of its folder (`skill-md-file`), two skills at one URI
 * (`uri-conflict`), two archives holding skills at one URI (`archive-conflict`).
 */
export type FolderProblemCode = 'path-missing' | 'not-a-directory' | 'skill-md-file' | 'uri-conflict' | 'archive-conflict';

/** A skill's verified manifest, wherever its bytes live (a folder, an archive, a registry's blob store). */
export interface SkillManifest {
  name: string;
  description: string;
  frontmatter: Record<string, unknown>;
  /** The SKILL.md body's ATX headings (outside code fences), for search. */
  headings: string[];
  /** Sorted by path (code-unit order). SKILL.md included. */
  files: SkillFileRecord[];
  totalBytes: number;
  packageDigest: string;
  /** What the skill declares it needs (./requirements.ts); absent when it declares nothing. */
  requirements?: SkillRequirements;
}

/** A skill found in a folder on disk. */
export interface InspectedSkill extends SkillManifest {
  dir: string;
  /** `dir` with every link resolved: where the files are read from. */
  realDir: string;
  folderName: string;
}

export interface Inspection {
  /** Present when the skill can be served (no error-level problem). */
  skill?: InspectedSkill;
  problems: FolderProblem[];
}

export interface InspectOptions extends RuleOptions {
  limits?: SkillLimits;
  cache?: DigestCache;
  /**
   * The folder being served, when the skill sits below it: a link back to a folder between it and the link is
   * named a loop rather than a way out. Without it, only folders of the skill itself are.
   */
  servedRoot?: string;
}

const SKIPPED_DIRS = new Set(['.git']);
const LOOP_MESSAGE = 'symbolic link leads back to a folder that contains it (a loop); not followed';
/** Headings kept per skill for search: enough to describe it, bounded for hostile files. */
const MAX_HEADINGS = 100;

interface Candidate {
  path: string;
  source: string;
  stat: Stats;
}

export function inspectSkillFolder(dir: string, options: InspectOptions = {}): Inspection {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const problems: FolderProblem[] = [];
  const folderName = basename(dir);
  const fail = (message: string, path = dir, code?: FolderProblemCode): Inspection => {
    problems.push({ severity: 'error', message, path, ...(code !== undefined ? { code } : {}) });
    return { problems };
  };

  let realRoot: string;
  try {
    realRoot = realpathSync(dir);
    if (!statSync(realRoot).isDirectory()) return fail(`Not a directory: ${dir}`, dir, 'not-a-directory');
  } catch {
    return fail(`Path does not exist: ${dir}`, dir, 'path-missing');
  }

  // A link to a folder that holds the link (`self -> .`, `up -> ..`) loops back into what is being read: said so,
  // unless that folder is outside what is served (`/`, the home folder), where the link does lead out.
  let servedReal: string | undefined;
  const isLoop = (target: string, linkDir: string): boolean => {
    if (!holdsPath(target, linkDir)) return false;
    if (options.servedRoot !== undefined && servedReal === undefined) {
      try {
        servedReal = realpathSync(options.servedRoot);
      } catch {
        servedReal = realRoot;
      }
    }
    return holdsPath(servedReal ?? realRoot, target);
  };

  const candidates: Candidate[] = [];
  let totalBytes = 0;
  const stack: Array<{ rel: string; abs: string; depth: number }> = [{ rel: '', abs: realRoot, depth: 0 }];
  while (stack.length > 0) {
    const current = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(current.abs, { withFileTypes: true });
    } catch (error) {
      problems.push({ severity: 'warning', message: `folder could not be read (${errorText(error)}); its files are not served`, path: current.abs });
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const rel = current.rel === '' ? entry.name : `${current.rel}/${entry.name}`;
      const abs = join(current.abs, entry.name);
      if (entry.isDirectory() && SKIPPED_DIRS.has(entry.name)) continue;
      if (entry.name.includes('\\') || entry.name.includes('\uFFFD')) {
        problems.push({ severity: 'warning', message: 'file name holds a backslash or bytes that are not UTF-8; not served', path: abs });
        continue;
      }
      let stat: Stats;
      try {
        stat = lstatSync(abs);
      } catch {
        continue; // vanished while we looked
      }
      let source = abs;
      if (stat.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(abs);
          stat = statSync(target);
        } catch {
          problems.push({ severity: 'warning', message: 'broken symbolic link; not served', path: abs });
          continue;
        }
        if (isLoop(target, current.abs)) {
          problems.push({ severity: 'warning', message: LOOP_MESSAGE, path: abs });
          continue;
        }
        if (!target.startsWith(realRoot + sep)) {
          problems.push({ severity: 'warning', message: 'symbolic link leads outside the skill folder; not served', path: abs });
          continue;
        }
        if (stat.isDirectory()) {
          problems.push({ severity: 'warning', message: 'symbolic link to a folder is not followed; its files are not served', path: abs });
          continue;
        }
        source = target;
      }
      if (stat.isDirectory()) {
        if (current.depth + 1 > limits.maxDepth) {
          return fail(`folders nested deeper than ${limits.maxDepth} levels`, abs);
        }
        stack.push({ rel, abs, depth: current.depth + 1 });
      } else if (stat.isFile()) {
        candidates.push({ path: rel, source, stat });
        totalBytes += stat.size;
        if (candidates.length > limits.maxFiles) {
          return fail(`skill has more than ${limits.maxFiles} files (the limit); not served`);
        }
        if (totalBytes > limits.maxBytes) {
          return fail(`skill is larger than ${formatBytes(limits.maxBytes)} (the limit); not served`);
        }
      } else {
        problems.push({ severity: 'warning', message: 'not a regular file (FIFO, socket or device); not served', path: abs });
      }
    }
  }

  const paths = candidates.map((candidate) => candidate.path);
  for (const collision of collisionWarnings(paths))
    problems.push({ severity: 'warning', message: collision.message, path: collision.path === '' ? dir : join(realRoot, collision.path) });
  for (const reserved of reservedNameErrors(paths))
    problems.push({ severity: 'error', message: reserved.message, path: reserved.path === '' ? dir : join(realRoot, reserved.path) });
  let manifest = candidates.find((candidate) => candidate.path === 'SKILL.md');
  if (manifest === undefined) {
    // A lowercase skill.md (accepted by the reference validator) is served as the skill's SKILL.md.
    manifest = candidates.find((candidate) => candidate.path === 'skill.md');
    if (manifest === undefined) return fail('Missing required file: SKILL.md');
    problems.push({ severity: 'warning', message: 'the manifest is named skill.md; it is served as SKILL.md (rename it to SKILL.md)', path: manifest.source });
    manifest.path = 'SKILL.md';
  }

  const files: SkillFileRecord[] = [];
  let manifestBytes: Buffer | undefined;
  for (const candidate of candidates) {
    let digest = options.cache?.digestFor(candidate.source, candidate.stat);
    let size = candidate.stat.size;
    if (digest === undefined) {
      try {
        if (candidate === manifest) {
          // SKILL.md is needed whole anyway (to parse it); other files are hashed in chunks.
          manifestBytes = readRegularFileSync(candidate.source, limits.maxBytes);
          digest = sha256Digest(manifestBytes);
          size = manifestBytes.byteLength;
        } else {
          ({ digest, size } = hashRegularFileSync(candidate.source, candidate.stat.size));
        }
      } catch (error) {
        if (candidate === manifest) return fail(`SKILL.md could not be read: ${errorText(error)}`, candidate.source);
        problems.push({ severity: 'warning', message: `could not be read (${errorText(error)}); not served`, path: candidate.source });
        continue;
      }
      if (size === candidate.stat.size) options.cache?.remember(candidate.source, candidate.stat, digest);
    }
    const record: SkillFileRecord = { path: candidate.path, size, digest, mimeType: mimeTypeFor(candidate.path) };
    if (candidate.source !== join(realRoot, candidate.path)) record.target = candidate.source;
    files.push(record);
  }
  totalBytes = files.reduce((sum, file) => sum + file.size, 0);
  if (totalBytes > limits.maxBytes) return fail(`skill is larger than ${formatBytes(limits.maxBytes)} (the limit); not served`);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const manifestRecord = files.find((file) => file.path === 'SKILL.md')!;
  const parsed = parseManifest(manifestRecord, fileSource({ realDir: realRoot }, manifestRecord), manifestBytes, limits, options.cache);
  const manifestSource = fileSource({ realDir: realRoot }, manifestRecord);
  if ('error' in parsed) return fail(parsed.error, manifestSource);

  const verdict = checkFrontmatter(parsed.frontmatter, folderName, options);
  for (const problem of verdict.problems) problems.push({ ...problem, path: manifestSource });
  if (parsed.portability !== undefined)
    problems.push({
      severity: 'warning',
      message: `frontmatter uses ${parsed.portability.join(', ')}: valid YAML, but simpler readers (the MCP SDK's skills client) cannot read it; write the values out plainly`,
      path: manifestSource,
    });
  if (problems.some((problem) => problem.severity === 'error')) return { problems };

  const codex = files.find((file) => file.path === CODEX_FILE);
  const reading = readRequirements(parsed.frontmatter, codex && readCodexFile(codex, fileSource({ realDir: realRoot }, codex), problems));
  for (const problem of reading.problems) {
    problems.push({
      severity: problem.severity,
      message: problem.message,
      path: problem.file === CODEX_FILE ? fileSource({ realDir: realRoot }, codex!) : manifestSource,
    });
  }
  return { skill: { dir, realDir: realRoot, folderName, ...skillManifest(verdict, parsed, files, totalBytes, reading.requirements) }, problems };
}

/** The text of a skill's Codex sidecar, when it can be read whole and still matches its digest. */
function readCodexFile(record: SkillFileRecord, source: string, problems: FolderProblem[]): string | undefined {
  if (record.size > MAX_CODEX_FILE_BYTES) {
    problems.push({ severity: 'warning', message: `larger than ${MAX_CODEX_FILE_BYTES / 1024} KiB; its dependencies are not read`, path: source });
    return undefined;
  }
  try {
    const bytes = readRegularFileSync(source, MAX_CODEX_FILE_BYTES);
    // Changed since it was hashed: the watcher rescans the folder; never read requirements from other bytes.
    if (sha256Digest(bytes) !== record.digest) return undefined;
    const text = decodeText(bytes);
    if (text === undefined) problems.push({ severity: 'warning', message: 'not UTF-8 text; its dependencies are not read', path: source });
    return text;
  } catch {
    return undefined;
  }
}

/** The manifest of a skill that passed the rules: one place for folders and in-memory skills. */
export function skillManifest(
  verdict: { name?: string; description?: string },
  parsed: { frontmatter: Record<string, unknown>; headings?: string[] },
  files: SkillFileRecord[],
  totalBytes: number,
  requirements?: SkillRequirements,
): SkillManifest {
  const manifest: SkillManifest = {
    name: verdict.name!,
    description: verdict.description!,
    frontmatter: parsed.frontmatter,
    headings: parsed.headings ?? [],
    files,
    totalBytes,
    packageDigest: packageDigest(files),
  };
  if (requirements !== undefined) manifest.requirements = requirements;
  return manifest;
}

/** Where a file's bytes are read from. */
export function fileSource(skill: { realDir: string }, file: { path: string; target?: string }): string {
  return file.target ?? join(skill.realDir, ...file.path.split('/'));
}

function parseManifest(record: SkillFileRecord, source: string, bytes: Buffer | undefined, limits: SkillLimits, cache?: DigestCache): ParsedFrontmatter {
  const cached = cache?.frontmatterFor(record.digest);
  // A frontmatter cached by an older version may hold a control character parsing now refuses: parsed again.
  if (cached !== undefined && ('error' in cached || (cached.headings !== undefined && !holdsControlCharacter(cached.frontmatter)))) return cached;
  let data: Buffer;
  try {
    data = bytes ?? readRegularFileSync(source, limits.maxBytes);
  } catch (error) {
    if (error instanceof UnreadableFileError) return { error: `SKILL.md could not be read: ${error.message}` };
    throw error;
  }
  if (sha256Digest(data) !== record.digest) return { error: 'SKILL.md changed while it was being read' };
  const result = parseManifestBytes(data, limits);
  cache?.rememberFrontmatter(record.digest, result);
  return result;
}

/** Parses a SKILL.md's bytes: frontmatter, the line the body starts on, and the body's headings (for search). */
export function parseManifestBytes(data: Buffer, limits: SkillLimits): ParsedFrontmatter {
  const text = decodeText(data);
  if (text === undefined) {
    // decodeText refuses a NUL byte too: name that, since "not UTF-8" would send the author after the wrong fault.
    const nul = data.indexOf(0);
    if (looksUtf16(data)) return { error: 'SKILL.md is UTF-16 text: save it as UTF-8' };
    return { error: nul >= 0 ? `SKILL.md holds a NUL byte (at byte ${nul}): it is binary, not text` : 'SKILL.md is not valid UTF-8 text' };
  }
  try {
    const notes: string[] = [];
    const { frontmatter, bodyLine, body } = parseSkillMarkdown(text, limits.maxFrontmatterBytes, notes);
    // A JSON round trip flattens the parser's strings: V8 keeps sliced strings pointing into the whole SKILL.md
    // text, and holding those for every skill of a large catalog would keep every SKILL.md in memory.
    return {
      frontmatter: JSON.parse(JSON.stringify(frontmatter)) as Record<string, unknown>,
      bodyLine,
      headings: markdownHeadings(body)
        .slice(0, MAX_HEADINGS)
        .map((heading) => heading.slice(0, 200)),
      ...(notes.length > 0 ? { portability: notes } : {}),
    };
  } catch (error) {
    if (error instanceof FrontmatterError) return { error: error.message };
    throw error;
  }
}

/** A UTF-16 byte order mark, or ASCII text with every other byte NUL (`-\0-\0-\0`): an editor's "Unicode" save. */
function looksUtf16(data: Buffer): boolean {
  if (data.length >= 2 && ((data[0] === 0xff && data[1] === 0xfe) || (data[0] === 0xfe && data[1] === 0xff))) return true;
  const sample = data.subarray(0, 64);
  if (sample.length < 8) return false;
  let even = 0;
  let odd = 0;
  for (let at = 0; at < sample.length; at++) if (sample[at] === 0) at % 2 === 0 ? even++ : odd++;
  const half = sample.length / 2;
  return (odd >= half - 1 && even === 0) || (even >= half - 1 && odd === 0);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
