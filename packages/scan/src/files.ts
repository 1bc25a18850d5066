import type { Severity } from './model.js';
import { severityRank } from './model.js';
import type { Rule, RuleSet, Scope } from './rules.js';

/** One skill's files as the detectors read them: kind, text, the normalised text patterns run over, line starts. */
export interface SkillFile {
  /** `/`-separated path inside the skill. */
  path: string;
  bytes: Uint8Array;
}

export type FileKind = 'markdown' | 'script' | 'text' | 'binary';

/** One file as the detectors see it. */
export interface ScannedFile {
  path: string;
  kind: FileKind;
  bytes: Uint8Array;
  /** The text (empty for binaries). */
  text: string;
  /** The normalised text patterns run over: same lines as `text`. */
  normal: string;
  lineStarts: number[];
  isSkillMd: boolean;
}

export interface SkillContext {
  files: ScannedFile[];
  skillMd?: ScannedFile;
  frontmatter: Record<string, unknown>;
  rules: RuleSet;
}

const MARKDOWN = /\.(md|markdown|mdx|txt|rst)$/i;
const SCRIPT =
  /\.(sh|bash|zsh|fish|ksh|ps1|psm1|psd1|bat|cmd|vbs|py|pyw|js|mjs|cjs|ts|mts|cts|jsx|tsx|rb|pl|pm|php|lua|go|rs|java|kt|kts|swift|cs|r|jl|groovy|gradle|tcl|nu|awk|applescript|ahk|mk|make)$/i;
/** Build and task files are shell commands under another name: read as scripts. */
const SCRIPT_NAMES =
  /(^|\/)(Makefile|GNUmakefile|makefile|Dockerfile|Containerfile|[\w.-]+\.Dockerfile|Justfile|justfile|Rakefile|Vagrantfile|Brewfile|Procfile|Taskfile)$/;

export function readFile(file: SkillFile, rules: RuleSet): ScannedFile {
  const bytes = file.bytes;
  const isSkillMd = file.path === 'SKILL.md';
  const head = bytes.subarray(0, 8000);
  const binary = head.includes(0);
  const text = binary ? '' : new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  let kind: FileKind = 'text';
  if (binary) kind = 'binary';
  else if (MARKDOWN.test(file.path)) kind = 'markdown';
  else if (SCRIPT.test(file.path) || SCRIPT_NAMES.test(file.path) || text.startsWith('#!')) kind = 'script';
  const normal = binary ? '' : normalise(text, rules.confusables);
  return { path: file.path, kind, bytes, text, normal, lineStarts: lineStarts(normal), isSkillMd };
}

/** HTML's numeric character references (`&#105;`, `&#x69;`) read as the characters they stand for. */
function entities(line: string): string {
  if (!line.includes('&#')) return line;
  return line.replace(/&#(x[0-9a-f]{1,6}|\d{1,7});/gi, (all, code: string) => {
    const point = code[0] === 'x' || code[0] === 'X' ? parseInt(code.slice(1), 16) : Number(code);
    // A reference to a line break or a control character is left as written: lines must stay where they are.
    return point >= 0x20 && point <= 0x10ffff ? String.fromCodePoint(point) : all;
  });
}

/**
 * Shell words split to slip past patterns, joined again: quote splits (`c''ur""l`) and `${IFS}` for a space (string
 * literals glued with `+` are decode.ts's). Only the pattern text changes; lines stay where they are.
 */
function joinSplits(line: string): string {
  if (!/''|""|IFS/.test(line)) return line;
  return line.replace(/(?<=[A-Za-z])(''|"")(?=[A-Za-z])/g, '').replace(/\$\{IFS\}|\$IFS\b/g, ' ');
}

/** NFKC per line (so lines stay where they were), format characters removed, look-alike letters folded to Latin. */
export function normalise(text: string, confusables: ReadonlyMap<string, string>): string {
  return text
    .split('\n')
    .map((line) => {
      let out = entities(line)
        .normalize('NFKC')
        .replace(/[\p{Cf}\u{E0000}-\u{E007F}]/gu, '');
      if (confusables.size > 0) out = out.replace(/[^\x00-\x7f]/gu, (char) => confusables.get(char) ?? char);
      return joinSplits(out);
    })
    .join('\n');
}

export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line of an offset in the normalised text. */
export function lineOf(file: ScannedFile, offset: number): number {
  const starts = file.lineStarts;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Normalised lines `from`..`to` (1-based, inclusive), joined by newlines. */
export function linesText(file: ScannedFile, from: number, to: number): string {
  const start = file.lineStarts[from - 1] ?? 0;
  const next = file.lineStarts[to];
  return file.normal.slice(start, next === undefined ? undefined : next - 1);
}

/** The original line `line`, cut to about 160 characters around `column`, masked and escaped. */
export function excerptAt(file: ScannedFile, line: number, column: number, secret?: string): string {
  const original = file.text.split('\n', line)[line - 1] ?? '';
  let text = original.replace(/\r$/, '');
  if (secret !== undefined && secret.length > 0) text = text.split(secret).join(mask(secret));
  if (text.length > 160) {
    const start = Math.max(0, Math.min(column - 60, text.length - 160));
    text = `${start > 0 ? '…' : ''}${text.slice(start, start + 160)}${start + 160 < text.length ? '…' : ''}`;
  }
  return visible(text.trim());
}

export function mask(secret: string): string {
  return `${secret.slice(0, 4)}…(${secret.length} characters, masked)`;
}

/**
 * Text safe on a terminal and in a review: control, format (bidi, zero-width, BOM), line and paragraph separators
 * and tag characters shown as `\u{…}` escapes, so an excerpt shows what a reader of the raw file would not see.
 */
export function visible(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u{E0000}-\u{E007F}]/gu, (char) => {
    if (char === '\t') return '\\t';
    return `\\u{${char.codePointAt(0)!.toString(16)}}`;
  });
}

export function test(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  return pattern.test(text);
}

/** Shannon entropy in bits per character. */
export function entropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** The files a rule's scopes name (text scopes only hold text files). */
export function filesIn(scopes: readonly Scope[], context: SkillContext): ScannedFile[] {
  return context.files.filter((file) => {
    if (file.kind === 'binary') return false;
    return scopes.some(
      (scope) =>
        scope === 'text' ||
        (scope === 'markdown' && file.kind === 'markdown') ||
        (scope === 'script' && file.kind === 'script') ||
        (scope === 'data' && file.kind === 'text') ||
        ((scope === 'skill-md' || scope === 'metadata') && file.isSkillMd),
    );
  });
}

/** The first adjustment whose expressions match around `line`, then the discussion rule (which only lowers). */
export function lowerFor(rule: Rule, file: ScannedFile, line: number, context: SkillContext): { to: Severity; note: string } | undefined {
  let result: { to: Severity; note: string } | undefined;
  for (const lowering of rule.adjust) {
    const around = linesText(file, Math.max(1, line - lowering.window), line);
    if (lowering.when.some((when) => test(when, around))) {
      result = { to: lowering.to, note: lowering.note };
      break;
    }
  }
  const discussion = context.rules.discussion;
  const current = result?.to ?? rule.severity;
  if (rule.discussion && severityRank(discussion.to) < severityRank(current)) {
    const around = linesText(file, Math.max(1, line - discussion.window), line);
    // In a script the words count only in its comments: a variable named `payload` says nothing about intent.
    const words = file.kind === 'script' ? commentsOf(around) : around;
    if (discussion.code.some((code) => test(code, around)) || discussion.when.some((when) => test(when, words)))
      return { to: discussion.to, note: discussion.note };
    // The Markdown heading the line sits under ("## Examples of prompt injection") says so for its section.
    const heading = file.kind === 'markdown' ? headingAbove(file, line) : undefined;
    if (heading !== undefined && discussion.when.some((when) => test(when, heading)))
      return { to: discussion.to, note: `lowered to medium: it sits under the heading "${heading.slice(0, 60)}"` };
    // A reference guide named for attacks (never SKILL.md, which is what the model follows first).
    if (!file.isSkillMd && discussion.paths.some((path) => test(path, file.path)))
      return { to: discussion.to, note: `lowered to medium: ${file.path} is a reference about attacks` };
  }
  return result;
}

/** The comments of some lines of code (`#`, `//`, `/*`, `--`, `REM`), one per line. */
function commentsOf(text: string): string {
  return text
    .split('\n')
    .map((line) => (/^\s*(#|\/\/|\/\*|\*|--|REM\b|::|<!--)/i.exec(line) ? line : (/\s(#|\/\/)\s?(.*)$/.exec(line)?.[2] ?? '')))
    .join('\n');
}

/** The nearest ATX heading above `line` outside code fences (a `# comment` in a shell block is not one). */
function headingAbove(file: ScannedFile, line: number): string | undefined {
  let heading: string | undefined;
  let fence: string | undefined;
  for (let at = 1; at <= line; at++) {
    const text = linesText(file, at, at);
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0]!;
      else if (marker[0] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const match = /^\s{0,3}#{1,6}\s+(.+)$/.exec(text);
    if (match) heading = match[1]!.trim();
  }
  return heading;
}

const fenced = new WeakMap<ScannedFile, Set<number>>();
/** Lines inside fenced code blocks of a Markdown file (fence lines included): code is shown as written. */
export function inCodeFence(file: ScannedFile, line: number): boolean {
  if (file.kind !== 'markdown') return false;
  let lines = fenced.get(file);
  if (lines === undefined) {
    lines = new Set();
    let fence: string | undefined;
    const all = file.normal.split('\n');
    all.forEach((text, index) => {
      const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(text)?.[1];
      if (marker !== undefined) {
        if (fence === undefined) fence = marker[0]!;
        else if (marker[0] === fence) {
          lines!.add(index + 1);
          fence = undefined;
          return;
        }
      }
      if (fence !== undefined) lines!.add(index + 1);
    });
    fenced.set(file, lines);
  }
  return lines.has(line);
}
