import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { CATEGORIES, isSeverity } from './model.js';
import type { Category, Severity } from './model.js';

/**
 * The rules are data (`rules/rules.yaml`, beside this loader): each names its category, severity, the words shown to
 * a reviewer, where it looks, how it detects (a `detect` kind: regular expressions, or one of the detectors in
 * detectors.ts, tuned by the rule's own parameters), what keeps it quiet (`unless`), what changes its severity (`adjust`), and
 * examples that must fire and benign look-alikes that must not (run by test/rules.test.ts). This module reads and
 * checks the file; a rule file that does not parse, names an unknown detector or holds a bad expression is refused
 * whole with the rule's id, never half-loaded.
 */
export const DETECTORS = ['pattern', 'flow', 'decoded', 'chars', 'mixed-script', 'blob', 'minified', 'allowed-tools', 'binary', 'commands'] as const;
export type Detector = (typeof DETECTORS)[number];

/** Which files a rule reads: every text file, Markdown, scripts, other text (`data`: configs, env files), SKILL.md alone, or the skill's name and description. */
export const SCOPES = ['text', 'markdown', 'script', 'data', 'skill-md', 'metadata', 'file-names'] as const;
export type Scope = (typeof SCOPES)[number];

export interface Lowering {
  to: Severity;
  /** Expressions tried on the match's line (and `window` lines before it). */
  when: RegExp[];
  window: number;
  note: string;
}

export interface Example {
  /** Text of the file (SKILL.md body by default). */
  text?: string;
  /** SKILL.md's body when `file` is another file. */
  body?: string;
  /** The file's bytes, base64 (binary examples). */
  base64?: string;
  /** Path of the file inside the example skill. Default SKILL.md (the text is its body). */
  file?: string;
  /** Frontmatter fields added to the example's SKILL.md. */
  frontmatter?: Record<string, unknown>;
  /** The severity the example must fire at (default: the rule's). */
  severity?: Severity;
}

export interface Rule {
  id: string;
  category: Category;
  severity: Severity;
  title: string;
  why: string;
  detect: Detector;
  in: Scope[];
  patterns: RegExp[];
  unless: RegExp[];
  /** Another severity when the text around matches (a known installer: lower; a decoder beside a blob: higher). */
  adjust: Lowering[];
  /** Lowered (to the rule set's `discussion.to`) when the text around says it is an example of an attack. */
  discussion: boolean;
  /** The secret in the match is masked in the excerpt. */
  mask: boolean;
  /** Detector parameters, checked by the detector. */
  params: Record<string, unknown>;
  examples: { fire: Example[]; quiet: Example[] };
}

/** Which encoded runs are decoded and read again by the rules (decode.ts). */
export interface DecodeSettings {
  /** Shortest base64 run decoded. */
  base64Min: number;
  /** Shortest hex run decoded (in characters). */
  hexMin: number;
  /** Fewest `\xNN` / `%NN` / character codes in a run. */
  escapesMin: number;
  /** Share of printable characters a decoded run must have. */
  printable: number;
  /** How many times a decoded layer is decoded again. */
  depth: number;
  /** At most this many layers per file. */
  maxLayers: number;
}

export interface RuleSet {
  version: number;
  rules: Rule[];
  /** The words that mark text as discussing attacks (a security guide quoting one), and how far back to look. */
  discussion: { when: RegExp[]; code: RegExp[]; paths: RegExp[]; window: number; to: Severity; note: string };
  /** Words that make a matched secret a placeholder (`sk-xxxx`, `YOUR_API_KEY`). */
  placeholders: RegExp[];
  /** Files larger than this are not scanned (reported as skipped). */
  maxFileBytes: number;
  /** Letters of other scripts that look like Latin ones, and the Latin letter each looks like. */
  confusables: ReadonlyMap<string, string>;
  /** Which encoded runs are decoded and read again by the rules (decode.ts). */
  decode: DecodeSettings;
}

export class RuleError extends Error {
  override name = 'RuleError';
}

let cached: RuleSet | undefined;

/** The rules shipped with this package (read once). */
export function defaultRules(): RuleSet {
  cached ??= parseRules(readFileSync(defaultRulesPath(), 'utf8'), 'rules.yaml');
  return cached;
}

/** Found through the package's own name, so the bundled CLI (its code moved into one file) still finds the file. */
export function defaultRulesPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@skillport/scan/package.json')), 'rules', 'rules.yaml');
}

export function parseRules(text: string, source = 'rules'): RuleSet {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    throw new RuleError(`${source}: not YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const root = record(doc, source);
  const discussion = record(root['discussion'], `${source}: discussion`);
  const lists = new Map<string, unknown[]>();
  for (const [name, list] of Object.entries(root['lists'] === undefined ? {} : record(root['lists'], `${source}: lists`))) {
    if (!Array.isArray(list)) throw new RuleError(`${source}: lists.${name} must be a list`);
    lists.set(name, list);
  }
  const rulesIn = root['rules'];
  if (!Array.isArray(rulesIn) || rulesIn.length === 0) throw new RuleError(`${source}: rules must be a non-empty list`);
  const confusables = confusableMap(root['confusables'] ?? {}, `${source}: confusables`);
  const fold = folder(confusables);
  const seen = new Set<string>();
  const rules = rulesIn.map((raw, index) => {
    const rule = parseRule(raw, `${source}: rules[${index}]`, lists, fold);
    if (seen.has(rule.id)) throw new RuleError(`${source}: rule id '${rule.id}' is used twice`);
    seen.add(rule.id);
    return rule;
  });
  const to = discussion['to'];
  if (!isSeverity(to)) throw new RuleError(`${source}: discussion.to must be low, medium or high`);
  return {
    version: Number(root['version'] ?? 1),
    rules,
    discussion: {
      when: regexList(discussion['when'], `${source}: discussion.when`),
      code: regexList(discussion['code'] ?? [], `${source}: discussion.code`),
      paths: regexList(discussion['paths'] ?? [], `${source}: discussion.paths`),
      window: nonNegative(discussion['window'] ?? 2, `${source}: discussion.window`),
      to,
      note: String(discussion['note'] ?? 'lowered: the text around discusses attacks'),
    },
    placeholders: regexList(root['placeholders'] ?? [], `${source}: placeholders`),
    maxFileBytes: nonNegative(root['max-file-bytes'] ?? 2 * 1024 * 1024, `${source}: max-file-bytes`),
    confusables,
    decode: decodeSettings(root['decode'] ?? {}, `${source}: decode`),
  };
}

function decodeSettings(value: unknown, where: string): DecodeSettings {
  const d = record(value, where);
  const share = d['printable'] ?? 0.9;
  if (typeof share !== 'number' || share < 0 || share > 1) throw new RuleError(`${where}.printable must be a number from 0 to 1`);
  return {
    base64Min: nonNegative(d['base64-min'] ?? 16, `${where}.base64-min`),
    hexMin: nonNegative(d['hex-min'] ?? 16, `${where}.hex-min`),
    escapesMin: Math.max(2, nonNegative(d['escapes-min'] ?? 6, `${where}.escapes-min`)),
    printable: share,
    depth: nonNegative(d['depth'] ?? 2, `${where}.depth`),
    maxLayers: nonNegative(d['max-layers'] ?? 200, `${where}.max-layers`),
  };
}

const RULE_KEYS = new Set([
  'id',
  'category',
  'severity',
  'title',
  'why',
  'detect',
  'in',
  'patterns',
  'unless',
  'adjust',
  'discussion',
  'mask',
  'params',
  'examples',
]);

/**
 * Patterns are folded as the text they run over is (NFKC, look-alike letters to Latin), so a rule written in Russian
 * or Greek still matches the folded text. Regular-expression syntax is ASCII and left as it is.
 */
function folder(confusables: ReadonlyMap<string, string>): (source: string) => string {
  const fold = (char: string): string => confusables.get(char) ?? char;
  return (source) => {
    if (!/[^\x00-\x7f]/.test(source)) return source;
    // Folding depends on case (Cyrillic Н becomes H, н stays): each letter matches both of its cases' folded forms.
    let out = '';
    let inClass = false;
    const chars = [...source.normalize('NFKC')];
    for (let i = 0; i < chars.length; i++) {
      const char = chars[i]!;
      if (char === '\\') {
        out += char + (chars[++i] ?? '');
        continue;
      }
      if (char === '[') inClass = true;
      else if (char === ']') inClass = false;
      if (char.charCodeAt(0) < 0x80) {
        out += char;
        continue;
      }
      const forms = [...new Set([fold(char), fold(char.toLowerCase()), fold(char.toUpperCase())])];
      out += forms.length === 1 ? forms[0] : inClass ? forms.join('') : `(?:${forms.join('|')})`;
    }
    return out;
  };
}

function foldAll(value: unknown, fold: (source: string) => string): unknown {
  if (typeof value === 'string') return fold(value);
  return Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? fold(item) : item)) : value;
}

function parseRule(raw: unknown, where: string, lists: ReadonlyMap<string, unknown[]>, fold: (source: string) => string): Rule {
  const r = record(raw, where);
  const id = r['id'];
  if (typeof id !== 'string' || !/^[a-z][a-z0-9-]{1,63}$/.test(id)) throw new RuleError(`${where}: id must be lowercase letters, digits and '-'`);
  const at = `${where} (${id})`;
  for (const key of Object.keys(r)) if (!RULE_KEYS.has(key)) throw new RuleError(`${at}: unknown key '${key}'`);
  const category = r['category'];
  if (!(CATEGORIES as readonly unknown[]).includes(category)) throw new RuleError(`${at}: category must be one of ${CATEGORIES.join(', ')}`);
  const severity = r['severity'];
  if (!isSeverity(severity)) throw new RuleError(`${at}: severity must be low, medium or high`);
  const detect = r['detect'] ?? 'pattern';
  if (!(DETECTORS as readonly unknown[]).includes(detect)) throw new RuleError(`${at}: detect must be one of ${DETECTORS.join(', ')}`);
  const scopes = r['in'] ?? ['text'];
  if (!Array.isArray(scopes) || scopes.some((scope) => !(SCOPES as readonly unknown[]).includes(scope)))
    throw new RuleError(`${at}: in must list some of ${SCOPES.join(', ')}`);
  for (const key of ['title', 'why'] as const) if (typeof r[key] !== 'string' || r[key] === '') throw new RuleError(`${at}: ${key} is required`);
  const flags = (r['params'] as Record<string, unknown> | undefined)?.['flags'];
  const patterns = regexList(foldAll(r['patterns'] ?? [], fold), `${at}: patterns`, typeof flags === 'string' ? flags : 'im');
  if (detect === 'pattern' && patterns.length === 0) throw new RuleError(`${at}: a pattern rule needs patterns`);
  const adjust = ((r['adjust'] ?? []) as unknown[]).map((entry, index) => {
    const l = record(entry, `${at}: adjust[${index}]`);
    if (!isSeverity(l['to'])) throw new RuleError(`${at}: adjust[${index}].to must be a severity`);
    return {
      to: l['to'],
      when: regexList(foldAll(expandLists(l['when'], lists, `${at}: adjust[${index}].when`), fold), `${at}: adjust[${index}].when`),
      window: nonNegative(l['window'] ?? 0, `${at}: adjust[${index}].window`),
      note: String(l['note'] ?? 'lowered'),
    };
  });
  const params = paramsWithLists(r['params'], lists, at);
  for (const key of ['sources', 'sinks']) if (params[key] !== undefined) params[key] = foldAll(params[key], fold);
  // A flow rule's expressions are compiled when a skill is scanned: they are checked here, so a bad one refuses the file.
  if (detect === 'flow')
    for (const key of ['sources', 'sinks']) {
      if (!Array.isArray(params[key]) || (params[key] as unknown[]).length === 0) throw new RuleError(`${at}: a flow rule needs params.${key}`);
      regexList(params[key], `${at}: params.${key}`);
    }
  const examples = record(r['examples'] ?? {}, `${at}: examples`);
  return {
    id,
    category: category as Category,
    severity,
    title: r['title'] as string,
    why: r['why'] as string,
    detect: detect as Detector,
    in: scopes as Scope[],
    patterns,
    unless: regexList(foldAll(expandLists(r['unless'] ?? [], lists, `${at}: unless`), fold), `${at}: unless`),
    adjust,
    discussion: r['discussion'] === true,
    mask: r['mask'] === true,
    params,
    examples: { fire: exampleList(examples['fire'], `${at}: examples.fire`), quiet: exampleList(examples['quiet'], `${at}: examples.quiet`) },
  };
}

/** A rule's parameters, each list's `@name` entries replaced by the named list (sources and sinks shared by rules). */
function paramsWithLists(value: unknown, lists: ReadonlyMap<string, unknown[]>, where: string): Record<string, unknown> {
  if (value === undefined) return {};
  const params = record(value, `${where}: params`);
  return Object.fromEntries(Object.entries(params).map(([key, item]) => [key, expandLists(item, lists, `${where}: params.${key}`)]));
}

/** `['@known-installers', 'x']` with the named list's expressions in place of `@known-installers`. */
function expandLists(value: unknown, lists: ReadonlyMap<string, unknown[]>, where: string): unknown {
  if (!Array.isArray(value)) return value;
  return value.flatMap((item) => {
    if (typeof item !== 'string' || !item.startsWith('@')) return [item];
    const list = lists.get(item.slice(1));
    if (list === undefined) throw new RuleError(`${where}: no list named '${item.slice(1)}'`);
    return list;
  });
}

function exampleList(value: unknown, where: string): Example[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new RuleError(`${where} must be a list`);
  return value.map((item, index) => {
    if (typeof item === 'string') return { text: item };
    const e = record(item, `${where}[${index}]`);
    if (e['severity'] !== undefined && !isSeverity(e['severity'])) throw new RuleError(`${where}[${index}].severity must be a severity`);
    return e as Example;
  });
}

function regexList(value: unknown, where: string, flags = 'i'): RegExp[] {
  if (value === undefined) return [];
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list)) throw new RuleError(`${where} must be a list of regular expressions`);
  return list.map((source, index) => {
    if (typeof source !== 'string') throw new RuleError(`${where}[${index}] must be a string`);
    try {
      return new RegExp(source, flags.includes('g') ? flags : `${flags}g`);
    } catch (error) {
      throw new RuleError(`${where}[${index}]: ${(error as Error).message}`);
    }
  });
}

/** `{a: "аɑα", o: "оο"}` (each Latin letter, then its look-alikes) to look-alike → Latin. */
function confusableMap(value: unknown, where: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const [latin, lookalikes] of Object.entries(record(value, where))) {
    if (typeof lookalikes !== 'string') throw new RuleError(`${where}.${latin} must be a string of look-alike letters`);
    for (const char of lookalikes) map.set(char, latin);
  }
  return map;
}

function record(value: unknown, where: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new RuleError(`${where} must be a mapping`);
  return value as Record<string, unknown>;
}

function nonNegative(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new RuleError(`${where} must be a whole number`);
  return value;
}
