import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { LineCounter as Lines } from 'yaml';
import { portabilityNotes } from './frontmatter-portability.js';
import { oneLine, printable } from './text.js';
import { yamlNestingOverflow } from './yaml-nesting.js';

/**
 * SKILL.md = YAML frontmatter between `---` lines, then markdown. A UTF-8 BOM and CRLF line ends are accepted.
 * The YAML is parsed as YAML 1.2 core schema (what the `yaml` package, the conformance suite and the SDK client
 * use), with duplicate keys refused, aliases capped and the frontmatter size bounded before parsing, so no file
 * can make the parser expand or recurse without bound.
 */
export interface ParsedSkillMarkdown {
  frontmatter: Record<string, unknown>;
  /** The markdown after the closing `---` line. */
  body: string;
  /** 1-based line of the first body line in the original file. */
  bodyLine: number;
}

export class FrontmatterError extends Error {
  override name = 'FrontmatterError';
}

const MAX_ALIASES = 100;

export function splitFrontmatter(text: string, maxBytes: number): { yaml: string; body: string; bodyLine: number; closedByDots?: true } {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  // Line-based, unlike a substring split: `---` inside a value does not end the block.
  const firstBreak = source.indexOf('\n');
  const firstLine = (firstBreak < 0 ? source : source.slice(0, firstBreak)).replace(/\r$/, '');
  if (firstLine.trimEnd() !== '---') throw new FrontmatterError('SKILL.md must start with YAML frontmatter (---)');
  let at = firstBreak + 1;
  let line = 2;
  while (firstBreak >= 0 && at <= source.length) {
    const next = source.indexOf('\n', at);
    const current = (next < 0 ? source.slice(at) : source.slice(at, next)).replace(/\r$/, '');
    if (current.trimEnd() === '---' || current === '...') {
      const yaml = source.slice(firstBreak + 1, at);
      if (Buffer.byteLength(yaml) > maxBytes) throw new FrontmatterError(`SKILL.md frontmatter exceeds ${maxBytes} bytes`);
      return { yaml, body: next < 0 ? '' : source.slice(next + 1), bodyLine: line + 1, ...(current === '...' ? { closedByDots: true as const } : {}) };
    }
    if (at - firstBreak > maxBytes * 4 + 1024) break; // far past any acceptable size: stop scanning
    if (next < 0) break;
    at = next + 1;
    line++;
  }
  if (source.length - firstBreak > maxBytes) throw new FrontmatterError(`SKILL.md frontmatter exceeds ${maxBytes} bytes (or is not closed with ---)`);
  throw new FrontmatterError('SKILL.md frontmatter not properly closed with ---');
}

/**
 * `firstLine` is the file line the YAML starts on (2: after the opening `---`), so that an error names the line
 * and column of SKILL.md itself.
 */
export interface FrontmatterReading {
  /** Keep values holding control characters instead of refusing them: for the scanner, which reads what is there. */
  keepControls?: boolean;
}

export function parseFrontmatterYaml(yaml: string, firstLine = 2, notes?: string[], reading: FrontmatterReading = {}): Record<string, unknown> {
  const deep = yamlNestingOverflow(yaml);
  if (deep !== undefined)
    throw new FrontmatterError(`Invalid YAML in frontmatter at line ${deep.line + firstLine - 1}, column ${deep.column}: nesting too deep`);
  let value: unknown;
  try {
    const lineCounter = new LineCounter();
    const doc = parseDocument(yaml, { version: '1.2', schema: 'core', uniqueKeys: true, prettyErrors: false, strict: true, lineCounter });
    const problem = doc.errors[0];
    if (problem !== undefined) {
      // The parser reports a stack overflow on pathological nesting as a parse error of its own.
      const message = /call stack/i.test(problem.message) ? 'nesting too deep' : oneLine(problem.message);
      const at = lineCounter.linePos(problem.pos[0]);
      throw new FrontmatterError(`Invalid YAML in frontmatter at line ${at.line + firstLine - 1}, column ${at.col}: ${message}`);
    }
    const control = reading.keepControls ? undefined : controlCharacter(doc.contents, '', yaml, lineCounter, firstLine);
    if (control !== undefined) throw new FrontmatterError(control);
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
    if (notes !== undefined) notes.push(...portabilityNotes(yaml, doc));
  } catch (error) {
    if (error instanceof FrontmatterError) throw error;
    // `yaml` throws for excessive aliases; a pathological document may also exhaust the stack.
    const message = error instanceof RangeError ? 'nesting too deep' : oneLine(error instanceof Error ? error.message : String(error));
    throw new FrontmatterError(`Invalid YAML in frontmatter: ${message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new FrontmatterError('SKILL.md frontmatter must be a YAML mapping');
  }
  const problem = jsonProblem(value, 0);
  if (problem !== undefined) throw new FrontmatterError(`Invalid YAML in frontmatter: ${problem}`);
  return value as Record<string, unknown>;
}

/** `notes`, when given, receives the YAML constructs simpler readers refuse (frontmatter-portability.ts). */
export function parseSkillMarkdown(text: string, maxFrontmatterBytes = 64 * 1024, notes?: string[], reading: FrontmatterReading = {}): ParsedSkillMarkdown {
  const { yaml, body, bodyLine, closedByDots } = splitFrontmatter(text, maxFrontmatterBytes);
  const frontmatter = parseFrontmatterYaml(yaml, 2, notes, reading);
  if (closedByDots && notes !== undefined) notes.push('a document end marker (...) instead of the closing ---');
  return { frontmatter, body, bodyLine };
}

/** C0 controls but tab and line feed: no value needs them, and served to an agent or a terminal they hide or forge text. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f]/;

/**
 * The first string (value or key, at any depth) that decodes to a control character, as a message naming its key and
 * line. Double-quoted escapes (`\0`, `\x1b`, `\u0000`) decode to them as well as raw bytes do, and a raw NUL is
 * already refused with the file (binary).
 */
function controlCharacter(node: unknown, path: string, yaml: string, lines: Lines, firstLine: number, isKey = false): string | undefined {
  if (isScalar(node)) {
    if (typeof node.value !== 'string') return undefined;
    const found = CONTROL.exec(node.value);
    if (found === null) return undefined;
    const char = found[0];
    const start = node.range?.[0] ?? 0;
    const raw = yaml.slice(start, node.range?.[1] ?? start).includes(char);
    const code = `U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    const line = lines.linePos(start).line + firstLine - 1;
    return `frontmatter ${isKey ? 'key ' : ''}'${printable(path, 100)}' at line ${line} contains a control character (${code}${raw ? '' : ', written as an escape'}): remove it`;
  }
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '?';
      const at = path === '' ? key : `${path}.${key}`;
      const problem = controlCharacter(pair.key, at, yaml, lines, firstLine, true) ?? controlCharacter(pair.value, at, yaml, lines, firstLine);
      if (problem !== undefined) return problem;
    }
  } else if (isSeq(node)) {
    for (const [index, item] of node.items.entries()) {
      const problem = controlCharacter(item, `${path}[${index}]`, yaml, lines, firstLine);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

/** Whether parsed frontmatter holds a string (value or key) that this parser now refuses for a control character. */
export function holdsControlCharacter(value: unknown): boolean {
  if (typeof value === 'string') return CONTROL.test(value);
  if (Array.isArray(value)) return value.some(holdsControlCharacter);
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([key, item]) => CONTROL.test(key) || holdsControlCharacter(item));
  return false;
}

const MAX_KEY_LENGTH = 1024;

/** Frontmatter travels as JSON in skill entries: it must survive JSON exactly (no NaN, Infinity, Map keys...). */
function jsonProblem(value: unknown, depth: number): string | undefined {
  if (depth > 64) return 'nesting too deep';
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${value} cannot be represented in JSON`;
  if (typeof value === 'bigint') return 'integer too large';
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = jsonProblem(item, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    // YAML limits a plain key to 1024 characters; an explicit `? key` has no limit, and every listing would carry it.
    for (const key of Object.keys(value)) if (key.length > MAX_KEY_LENGTH) return `a key longer than ${MAX_KEY_LENGTH} characters`;
    for (const item of Object.values(value)) {
      const problem = jsonProblem(item, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  return `unsupported value (${Object.prototype.toString.call(value)})`;
}
