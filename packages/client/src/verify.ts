import { decodeText, parseSkillMarkdown, printable, sha256Digest } from '@skillport/core';
import { SkillError, VerificationError } from './errors.js';
import type { SkillFileEntry, VerifiedFile } from './model.js';

/**
 * The checks a host owes every byte it reads (SEP-2640 "Integrity and verification"): size and digest against the
 * listing, and for SKILL.md the frontmatter field by field against the entry. Used on network reads that did not
 * go through the SDK's SkillsClient (draft-era and tool-only servers) and on every read from the disk cache.
 */
export function checkBytes(entry: Pick<SkillFileEntry, 'uri' | 'digest' | 'size'>, bytes: Uint8Array): void {
  if (entry.size !== undefined && bytes.byteLength !== entry.size) {
    throw new VerificationError(
      'size',
      entry.uri,
      `${entry.uri} is ${bytes.byteLength} bytes but was listed as ${entry.size}: refused (tampered or changed; list the skills again)`,
    );
  }
  if (entry.digest !== undefined) {
    const actual = sha256Digest(bytes);
    if (actual !== entry.digest) {
      throw new VerificationError(
        'digest',
        entry.uri,
        `${entry.uri} does not match its digest (${entry.digest.slice(0, 19)}… listed, ${actual.slice(0, 19)}… received): refused`,
      );
    }
  }
}

/** Bytes read from where a source keeps them, checked against the listing's size and digest, as a VerifiedFile. */
export function verifiedBytes(origin: string, entry: SkillFileEntry, path: string, bytes: Uint8Array, from: VerifiedFile['from']): VerifiedFile {
  checkBytes(entry, bytes);
  const text = decodeText(bytes);
  return {
    origin,
    uri: entry.uri,
    path,
    bytes,
    ...(text !== undefined ? { text } : {}),
    ...(entry.mimeType ? { mimeType: entry.mimeType } : {}),
    verified: true,
    from,
  };
}

/** SKILL.md bytes to frontmatter and body; a malformed file is a one-line error. */
export function parseSkillBytes(uri: string, bytes: Uint8Array): { text: string; frontmatter: Record<string, unknown>; body: string } {
  const text = decodeText(bytes);
  if (text === undefined) throw new SkillError('invalid', `${uri} is not valid UTF-8 text`);
  try {
    const parsed = parseSkillMarkdown(text);
    return { text, frontmatter: parsed.frontmatter, body: parsed.body };
  } catch (error) {
    throw new SkillError('invalid', `${uri}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Field-by-field comparison; one line per differing field (empty when equal). */
export function frontmatterDifferences(listed: Record<string, unknown>, actual: Record<string, unknown>, listedKeysOnly = false): string[] {
  const differences: string[] = [];
  // A draft-era index lists only name and description: then only those can be compared.
  const keys = listedKeysOnly ? Object.keys(listed) : [...new Set([...Object.keys(listed), ...Object.keys(actual)])];
  for (const key of keys) {
    if (canonicalJson(listed[key]) !== canonicalJson(actual[key])) {
      differences.push(`${key}: listed ${short(listed[key])}, file has ${short(actual[key])}`);
    }
  }
  return differences;
}

export function checkFrontmatter(uri: string, listed: Record<string, unknown>, actual: Record<string, unknown>, listedKeysOnly = false): void {
  const differences = frontmatterDifferences(listed, actual, listedKeysOnly);
  if (differences.length > 0) {
    throw new VerificationError('frontmatter', uri, `${uri} frontmatter differs from its listing (${differences.join('; ')}): skill refused`);
  }
}

function short(value: unknown): string {
  const json = value === undefined ? 'nothing' : JSON.stringify(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

function canonicalJson(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`)
    .join(',')}}`;
}

/**
 * A path inside a skill as a model or a user writes it. Refused: empty, absolute, `.`/`..` segments, backslashes,
 * NUL, percent-encoded tricks and URI schemes, unless `listed` (a skill's files) names it exactly. Returns the
 * normalised `/`-separated path.
 */
export function checkRelativePath(path: string, listed?: readonly { path: string }[]): string {
  // A path the listing names exactly is read by its listed URI, never resolved: a name that reads like a scheme or an
  // escape ("notes:v2.md", a file literally named "%2e%2e") is then just a file name.
  if (typeof path === 'string' && listed?.some((file) => file.path === path)) return path;
  const bad = (why: string) =>
    new SkillError('path', `'${printable(path)}' is not a valid path inside a skill (${why}); use a path as listed, e.g. references/guide.md`);
  if (typeof path !== 'string' || path.trim() === '') throw bad('empty');
  if (path.length > 4096) throw bad('too long');
  if (/[\\\0]/.test(path)) throw bad('backslash or NUL');
  if (path.startsWith('/') || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(path)) throw bad('absolute');
  if (/%2e|%2f|%5c|%00/i.test(path)) throw bad('encoded path characters');
  const segments = path.split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..') throw bad(segment === '' ? 'empty segment' : 'dot segment');
  }
  return segments.join('/');
}

export { printable };
