/**
 * skill:// URIs. A skill's URI is `skill://<skill-path>/SKILL.md`; its files are `skill://<skill-path>/<file-path>`.
 * Every segment is percent-encoded the way WHATWG URL serialises it, plus `%`, `/`, `\`, `?`, `#` and the dots
 * of `.` and `..`, so that each file name has exactly one canonical spelling and `new URL(uri).href === uri`.
 * Requests are normalised back to that spelling (see `canonicalSkillUri`), so `Q&A.md`, `Q%26A.md` and
 * `Q%26A.md#top` all name the same file, while anything that could step outside a skill is refused.
 */
export const SKILL_SCHEME = 'skill://';

const ENCODED_IN_SEGMENT = /[^\w!$&'()*+,.:;=@[\]|~-]/gu;

export function encodeSegment(segment: string): string {
  if (segment === '.' || segment === '..') return segment.replaceAll('.', '%2E');
  return segment.replace(ENCODED_IN_SEGMENT, (char) => encodeURIComponent(char));
}

const PLAIN_PATH = /^[\w!$&'()*+,:;=@[\]|~-][\w!$&'()*+,.:;=@[\]|~-]*(?:\/[\w!$&'()*+,:;=@[\]|~-][\w!$&'()*+,.:;=@[\]|~-]*)*$/;

/** A `/`-separated relative path, each segment encoded (the common all-plain path is returned as it is). */
export function encodePath(path: string): string {
  // PLAIN_PATH lets no segment start with a dot, so `.` and `..` always take the encoding branch.
  if (PLAIN_PATH.test(path)) return path;
  return path.split('/').map(encodeSegment).join('/');
}

/** A segment `encodeSegment` returns as it is and that is no `.` or `..` (no leading dot; never empty). */
const PLAIN_SEGMENT = /^[\w!$&'()*+,:;=@[\]|~-][\w!$&'()*+,.:;=@[\]|~-]*$/;

/** `skill://` + encoded segments joined by `/`. Segments are decoded names (folder and file names). */
export function joinSkillUri(segments: readonly string[]): string {
  // Most segments need no encoding (PLAIN_SEGMENT): checked once each instead of a replace per segment.
  if (segments.every((segment) => PLAIN_SEGMENT.test(segment))) return SKILL_SCHEME + segments.join('/');
  return SKILL_SCHEME + segments.map(encodeSegment).join('/');
}

/** Why a URI was refused; `undefined` from `canonicalSkillUri` means "not ours", never an error to throw. */
export type UriRefusal = 'scheme' | 'syntax' | 'traversal' | 'query';

export interface ParsedSkillUri {
  /** Decoded path segments (authority first). */
  segments: string[];
  /** Canonical spelling. */
  canonical: string;
}

/**
 * Parses a requested `skill://` URI into decoded segments and its canonical spelling, or says why it is refused.
 * Refused: other schemes, a query, malformed percent-encoding, and any segment that decodes to empty, `.`, `..`,
 * or holds `/`, `\` or NUL (the encoded path tricks). A fragment is ignored, as clients must ignore it too.
 */
export function parseSkillUri(uri: string): ParsedSkillUri | UriRefusal {
  if (typeof uri !== 'string' || !uri.startsWith(SKILL_SCHEME)) return 'scheme';
  let rest = uri.slice(SKILL_SCHEME.length);
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  if (rest.includes('?')) return 'query';
  if (rest === '' || rest.includes('\\')) return rest === '' ? 'syntax' : 'traversal';
  // The catalog's own URIs are plain (PLAIN_PATH: nothing to decode, no dot segment, nothing to encode): their
  // segments are the path's and the canonical spelling is the URI itself. A registry asks this of every served URI
  // at start (100,000 of them took seconds of decoding and encoding again).
  if (PLAIN_PATH.test(rest)) return { segments: rest.split('/'), canonical: SKILL_SCHEME + rest };
  const raw = rest.split('/');
  const segments: string[] = [];
  for (const part of raw) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      return 'syntax';
    }
    if (decoded === '' || decoded === '.' || decoded === '..' || /[/\\\0]/.test(decoded)) return 'traversal';
    // A lone UTF-16 surrogate (possible in a JSON string) names no file and cannot be percent-encoded.
    if (LONE_SURROGATE.test(decoded)) return 'syntax';
    segments.push(decoded);
  }
  return { segments, canonical: joinSkillUri(segments) };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const PLAIN_URI = new RegExp(`^skill://${PLAIN_PATH.source.slice(1)}`);

/**
 * Whether `uri` is a plain catalog URI (`skill://` and a PLAIN_PATH: nothing to decode, no dot segment, no fragment
 * or query): its own canonical spelling, never refused. Asked once per request on the hot path, without the split.
 */
export function isPlainSkillUri(uri: string): boolean {
  return typeof uri === 'string' && PLAIN_URI.test(uri);
}

/** The canonical spelling of a skill URI, or undefined when it is refused. */
export function canonicalSkillUri(uri: string): string | undefined {
  if (isPlainSkillUri(uri)) return uri;
  const parsed = parseSkillUri(uri);
  return typeof parsed === 'string' ? undefined : parsed.canonical;
}

/** Code-unit order: the one order for entries, directory children and cursors (the SDK's order too). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
