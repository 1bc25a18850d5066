/**
 * A SKILL.md body split into sections, so an agent can read a big skill a part at a time, with each part's cost
 * counted by a real tokenizer. Sections start at ATX headings (`#`..`######`, up to 3 spaces in) outside fenced
 * code blocks and HTML comments, and each runs to the next heading of any level: sections are disjoint and their
 * texts, in order, are the body exactly. Not section starts: setext headings (`Title` over `===` or `---`, where
 * a `---` meant as a rule under a paragraph would silently make one), headings after a `>` or a list marker on the
 * same line, and headings in a comment that starts a line (`<!--` ... `-->`, CommonMark's HTML comment block).
 * A fence opened in a list item ends with the item, as in CommonMark. On the 725 SKILL.md files of the shared
 * corpus this finds the same ATX headings as markdown-it on 723; on the other two, markdown-it swallows headings
 * after custom tags like `<process>` as HTML, which is not what their authors meant.
 *
 * Keys are slugs of the heading path (`setup/install-dependencies`), deduplicated in document order. They depend
 * only on the sequence of headings, never on the text between them, so editing one section leaves the other
 * sections' keys alone and the same body always gives the same keys.
 */
import { UniqueNames, editDistance, scanMarkdownAsync } from '@skillport/core';
import type { MarkdownHeading as Heading, MarkdownScan } from '@skillport/core';
export interface SkillSection {
  /** Stable, readable id: lowercase ASCII slugs of the heading path joined by `/` (`preamble` for text before the first heading). */
  key: string;
  /** The heading text as written (closing `#`s removed); `Preamble` for the preamble. */
  title: string;
  /** 1..6 for a heading's section, 0 for the preamble. */
  level: number;
  /** 1-based lines within the body, inclusive (add `bodyLine - 1` from parseSkillMarkdown for lines of the file). */
  startLine: number;
  endLine: number;
  /** Tokens of `text` (see countTokens). */
  tokens: number;
  /** The section's exact text, heading line included. */
  text: string;
}

export interface SkillOutline {
  sections: SkillSection[];
  /**
   * Tokens of the whole body, as the sum of the sections' tokens (on every body of the shared corpus this equals
   * counting the body in one go: sections split at line starts, where BPE pieces split anyway).
   */
  totalTokens: number;
  /** True when loading the body in one call beats reading it section by section (see OutlineOptions). */
  wholeBodyCheaper: boolean;
  /** One plain sentence for the model saying how to read this body. */
  advice: string;
}

export interface OutlineOptions {
  /**
   * Split any section larger than this into parts of at most this many tokens, at blank lines outside code fences
   * where possible, else at line ends; a single line larger than this stays whole. Later parts get the keys
   * `<key>/part-2`, `<key>/part-3`. Unset (the default): sections are never split.
   */
  maxSectionTokens?: number;
  /** A body of at most this many tokens is cheaper to load whole (default DEFAULT_WHOLE_BODY_TOKENS). */
  wholeBodyTokens?: number;
}

/**
 * Below ~1,500 tokens an outline call plus one or two section calls costs about as much as the body itself (each
 * call carries its own overhead and a listing of keys), and a body that small is read in full in one call anyway.
 */
export const DEFAULT_WHOLE_BODY_TOKENS = 1500;

/** The encoding every token count here uses. */
export const TOKEN_ENCODING = 'cl100k_base';

/**
 * The tokenizer: gpt-tokenizer's cl100k_base, imported from its own subpath so only that one table is loaded, and
 * only on the first count, so loading the server costs nothing until something is counted.
 * Measured on Node 20 (2 cores), fresh process each, import + first count / resident memory / 1 MB of markdown:
 *   gpt-tokenizer cl100k_base  0.26-0.37 s / +24-38 MB / 0.15 s   <- chosen
 *   gpt-tokenizer o200k_base   0.69-0.86 s / +50-53 MB / 0.16-0.19 s
 *   js-tiktoken cl100k_base    0.71-1.01 s / +83-98 MB / 0.68-0.76 s
 *   js-tiktoken o200k_base     1.51-2.16 s / +146-154 MB / 0.70-0.80 s
 * Both packages are pure JS with their ranks bundled (no binary, no network) and give identical counts on all 725
 * SKILL.md files of the shared corpus; js-tiktoken is also ~100x slower on long unbroken runs (20,000 letters: 27 s
 * against 0.2 s). cl100k_base and o200k_base differ by 0.1% over that corpus, so the smaller, faster table wins.
 * None of this is any given model's own tokenizer: every count is an honest estimate, not a bill.
 */
type Counter = (text: string) => number;
let counter: Promise<Counter> | undefined;

function loadCounter(): Promise<Counter> {
  counter ??= import('gpt-tokenizer/encoding/cl100k_base').then(
    ({ countTokens: count }) => {
      // Special-token text such as `<|endoftext|>` in a skill is ordinary text here: count it, don't throw.
      const plain = { disallowedSpecial: new Set<string>() };
      return (text: string) => countSliced(text, (part) => count(part, plain));
    },
    (error: unknown) => {
      counter = undefined; // let a later call try again rather than remember the failure forever
      throw error;
    },
  );
  return counter;
}

/**
 * BPE merging is quadratic in the length of one pre-tokenized piece, and a piece is a whole run of letters, of
 * spaces or of symbols: 100,000 letters with no break take 9 s, and a 1 MB run would take many minutes. Runs longer
 * than LONG_RUN characters (which no prose has; unpunctuated CJK can) are therefore counted in LONG_RUN slices,
 * which keeps counting linear (about 1.5 s per MB in the worst case) at the cost of a token or so per slice.
 * Everything else is counted exactly. The lookbehinds make the scan itself linear: a match is only tried at the
 * start of a run.
 */
const LONG_RUN = 256;
const LONG_RUNS = new RegExp(
  `(?<!\\p{L})\\p{L}{${LONG_RUN + 1},}|(?<!\\s)\\s{${LONG_RUN + 1},}|(?<![^\\s\\p{L}\\p{N}])[^\\s\\p{L}\\p{N}]{${LONG_RUN + 1},}`,
  'gu',
);

function countSliced(text: string, count: Counter): number {
  if (text.length <= LONG_RUN) return count(text);
  let total = 0;
  let from = 0;
  for (const run of text.matchAll(LONG_RUNS)) {
    const start = run.index;
    const end = start + run[0].length;
    if (start > from) total += count(text.slice(from, start));
    for (let at = start; at < end; ) {
      let next = Math.min(at + LONG_RUN, end);
      if (next < end && isLowSurrogate(text.charCodeAt(next))) next++; // never cut a surrogate pair
      total += count(text.slice(at, next));
      at = next;
    }
    from = end;
  }
  if (from < text.length) total += count(text.slice(from));
  return total;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Tokens of `text` in TOKEN_ENCODING (loads the tokenizer on first use), letting other work run (Turns). */
export async function countTokens(text: string): Promise<number> {
  return new Turns(await loadCounter()).count(text);
}

/** Characters counted between two turns of the event loop: a few milliseconds of prose, ~50 ms at worst. */
const CHARS_PER_TURN = 32 * 1024;
/** How far past a piece's end to look for a place to cut it exactly. */
const CUT_SEARCH = 16 * 1024;
/**
 * Where a text may be cut without changing its count: before a space between two letters (the letters' piece ends
 * there and ` word` starts one), or after a newline between a letter or digit and a non-space (that newline is a
 * piece of its own). cl100k's pre-tokenizer makes the same pieces on both sides of either cut as in the whole text.
 */
const EXACT_CUT = /(?<=\p{L}) (?=\p{L})|(?<=[\p{L}\p{N}])\n(?=\S)/gu;

/**
 * Token counting that takes turns with other work: a text is counted in pieces of about CHARS_PER_TURN, cut where
 * the count stays exact (EXACT_CUT; only a text with no such place in CUT_SEARCH characters is cut anywhere, which
 * may change its count by a token), and after each CHARS_PER_TURN characters counted the event loop runs once. A
 * 3 MiB body took ~0.4 s in one go, the whole server waiting.
 */
class Turns {
  #since = 0;

  constructor(readonly counter: Counter) {}

  async count(text: string): Promise<number> {
    let total = 0;
    for (let from = 0; from < text.length; ) {
      const end = from + CHARS_PER_TURN >= text.length ? text.length : cutAfter(text, from + CHARS_PER_TURN);
      total += this.counter(text.slice(from, end));
      this.#since += end - from;
      from = end;
      if (this.#since >= CHARS_PER_TURN) {
        this.#since = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return total;
  }
}

function cutAfter(text: string, at: number): number {
  const window = text.slice(at, at + CUT_SEARCH);
  EXACT_CUT.lastIndex = 0;
  const found = EXACT_CUT.exec(window);
  if (found !== null && found.index > 0) return at + found.index + (found[0] === '\n' ? 1 : 0);
  // No exact place near: cut here, never inside a surrogate pair.
  return isLowSurrogate(text.charCodeAt(at)) ? at + 1 : at;
}

// ---- keys -----------------------------------------------------------------------------------------------------

const PREAMBLE = 'preamble';
/** Letters that Unicode decomposition leaves alone but that have an obvious ASCII spelling. */
const LATIN: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', þ: 'th', ł: 'l', ı: 'i', ŧ: 't', ħ: 'h' };

/** `Install **dependencies** (Linux)` -> `install-dependencies-linux`; `Café` -> `cafe`; all-CJK -> ``. */
function slugify(title: string): string {
  const plain = title
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // [text](url) and images: keep the text
    .replace(/<[^>]*>/g, ' ') // inline HTML tags
    .toLowerCase()
    .normalize('NFKD') // é -> e + accent, ﬁ -> fi, full-width letters -> ASCII
    .replace(/\p{M}/gu, '')
    .replace(/[ßæœøđðþłıŧħ]/g, (char) => LATIN[char] ?? '')
    .replace(/['’]/g, ''); // don't -> dont
  return plain
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
}

/** A key per heading: its parent's key (nearest earlier heading of a lower level), `/`, its slug; then `-2`, `-3`... */
function headingKeys(headings: readonly Heading[], taken: UniqueNames): string[] {
  const stack: Array<{ level: number; key: string }> = [];
  return headings.map((heading) => {
    while (stack.length > 0 && stack[stack.length - 1]!.level >= heading.level) stack.pop();
    const parent = stack[stack.length - 1];
    const key = taken.take((parent ? `${parent.key}/` : '') + (slugify(heading.title) || 'section'));
    stack.push({ level: heading.level, key });
    return key;
  });
}

// ---- outline --------------------------------------------------------------------------------------------------

interface Span {
  key: string;
  title: string;
  level: number;
  start: number;
  end: number;
  /** 0-based line of the section's heading (none for the preamble). */
  headingLine?: number;
}

/**
 * Headings that start sections: an outline is an object per section, and a 16 MiB body of `#` lines has 8 million
 * headings (about a gigabyte for one request). Past this, the rest of the body is the last section.
 */
export const MAX_SECTION_HEADINGS = 50_000;

/** The sections of a SKILL.md body (the markdown after the frontmatter), their token counts, and how to read them. */
export async function outlineSkill(body: string, options: OutlineOptions = {}): Promise<SkillOutline> {
  const wholeBodyTokens = options.wholeBodyTokens ?? DEFAULT_WHOLE_BODY_TOKENS;
  const maxSectionTokens = options.maxSectionTokens;
  if (maxSectionTokens !== undefined && !(Number.isInteger(maxSectionTokens) && maxSectionTokens > 0))
    throw new RangeError(`maxSectionTokens must be a positive integer (got ${maxSectionTokens})`);
  if (!(Number.isFinite(wholeBodyTokens) && wholeBodyTokens >= 0))
    throw new RangeError(`wholeBodyTokens must be a non-negative number (got ${wholeBodyTokens})`);
  const turns = new Turns(await loadCounter());
  const count = (text: string) => turns.count(text);
  const scanned = await scanMarkdownAsync(body, { maxHeadings: MAX_SECTION_HEADINGS });
  const { headings, lineStarts } = scanned;

  // "preamble" is reserved even when there is no preamble, so a heading named Preamble keeps one key either way.
  const taken = new UniqueNames([PREAMBLE]);
  const keys = headingKeys(headings, taken);
  const spans: Span[] = [];
  const firstHeading = headings[0]?.offset ?? body.length;
  const preamble = body.slice(0, firstHeading);
  const preambleIsSection = preamble.trim() !== '';
  if (preambleIsSection) spans.push({ key: PREAMBLE, title: 'Preamble', level: 0, start: 0, end: firstHeading });
  headings.forEach((heading, index) => {
    // A blank preamble is not a section of its own: it rides with the first section, so nothing of the body is lost.
    const start = index === 0 && !preambleIsSection ? 0 : heading.offset;
    spans.push({
      key: keys[index]!,
      title: heading.title,
      level: heading.level,
      start,
      end: headings[index + 1]?.offset ?? body.length,
      headingLine: heading.line,
    });
  });

  const lineOf = lineIndex(lineStarts);
  const lastLine = lineStarts.length; // 1-based number of the last line
  const sections: SkillSection[] = [];
  const add = (span: Span, tokens: number): void => {
    const text = body.slice(span.start, span.end);
    const endLine = span.end >= body.length ? lastLine : lineOf(span.end);
    sections.push({ key: span.key, title: span.title, level: span.level, startLine: lineOf(span.start) + 1, endLine, tokens, text });
  };
  for (const span of spans) {
    const tokens = await count(body.slice(span.start, span.end));
    if (maxSectionTokens === undefined || tokens <= maxSectionTokens) add(span, tokens);
    else for (const part of await splitSpan(body, span, maxSectionTokens, scanned, lineOf, count, taken)) add(part.span, part.tokens);
  }

  const totalTokens = sections.reduce((sum, section) => sum + section.tokens, 0);
  const wholeBodyCheaper = totalTokens <= wholeBodyTokens || sections.length < 3;
  const advice = adviceFor(body, totalTokens, sections.length, wholeBodyCheaper);
  const past = scanned.headingCount - headings.length;
  const note =
    past > 0
      ? ` Only its first ${formatCount(headings.length)} headings start sections: the ${formatCount(past)} after them are read with the last section.`
      : '';
  return { sections, totalTokens, wholeBodyCheaper, advice: advice + note };
}

function adviceFor(body: string, totalTokens: number, sectionCount: number, wholeBodyCheaper: boolean): string {
  if (body.trim() === '') return 'The body is empty: there is nothing to load.';
  const tokens = `${formatCount(totalTokens)} token${totalTokens === 1 ? '' : 's'}`;
  const sections = `${formatCount(sectionCount)} section${sectionCount === 1 ? '' : 's'}`;
  if (wholeBodyCheaper) return `The whole body is ${tokens}${sectionCount < 3 ? ` in ${sections}` : ''}: load it in one call instead of section by section.`;
  return `The body is ${tokens} in ${sections}: read the outline, then the sections you need.`;
}

/** 9420 -> "9,420", the same on every locale. */
function formatCount(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** Offset of a line start -> 0-based line (binary search; offsets given are always line starts or body end). */
function lineIndex(lineStarts: ArrayLike<number>): (offset: number) => number {
  return (offset) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (lineStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  };
}

/**
 * An oversized section cut into parts of at most `max` tokens, greedily: whole blocks (runs of lines between blank
 * lines, outside fences and comments) while they fit; a block that alone is too big is cut at line ends; a line
 * that alone is too big is a part of its own. Each part is counted again as a whole, so its `tokens` is exact.
 */
async function splitSpan(
  body: string,
  span: Span,
  max: number,
  scanned: MarkdownScan,
  lineOf: (offset: number) => number,
  count: (text: string) => Promise<number>,
  taken: UniqueNames,
): Promise<Array<{ span: Span; tokens: number }>> {
  const { lineStarts, blockStart } = scanned;
  const first = lineOf(span.start);
  const last = span.end >= body.length ? lineStarts.length : lineOf(span.end); // exclusive
  // The heading line (and a blank preamble before it) always opens the first part.
  const cuts: number[] = [];
  for (let line = (span.headingLine ?? first) + 1; line < last; line++) if (blockStart[line]) cuts.push(lineStarts[line]!);
  const units: Array<{ start: number; end: number }> = [];
  const bounds = [span.start, ...cuts, span.end];
  for (let i = 0; i + 1 < bounds.length; i++) units.push({ start: bounds[i]!, end: bounds[i + 1]! });

  const pieces: Array<{ start: number; end: number; tokens: number }> = [];
  for (const unit of units) {
    const tokens = await count(body.slice(unit.start, unit.end));
    if (tokens <= max) pieces.push({ ...unit, tokens });
    else {
      // Too big for one part: fall back to single lines.
      const from = lineOf(unit.start);
      const to = unit.end >= body.length ? lineStarts.length : lineOf(unit.end);
      for (let line = from; line < to; line++) {
        const start = line === from ? unit.start : lineStarts[line]!;
        const end = line + 1 < to ? lineStarts[line + 1]! : unit.end;
        pieces.push({ start, end, tokens: await count(body.slice(start, end)) });
      }
    }
  }

  const groups: Array<{ start: number; end: number }> = [];
  let current: { start: number; end: number; tokens: number } | undefined;
  for (const piece of pieces) {
    if (current !== undefined && current.tokens + piece.tokens <= max) {
      current.end = piece.end;
      current.tokens += piece.tokens;
    } else {
      if (current !== undefined) groups.push(current);
      current = { ...piece };
    }
  }
  if (current !== undefined) groups.push(current);

  const parts: Array<{ span: Span; tokens: number }> = [];
  for (const [index, group] of groups.entries()) {
    parts.push({
      span: {
        key: index === 0 ? span.key : taken.take(`${span.key}/part-${index + 1}`),
        title: index === 0 ? span.title : `${span.title} (part ${index + 1} of ${groups.length})`,
        level: span.level,
        start: group.start,
        end: group.end,
      },
      tokens: await count(body.slice(group.start, group.end)),
    });
  }
  return parts;
}

// ---- lookup ---------------------------------------------------------------------------------------------------

/**
 * The section a model asked for: the exact key; else the key ignoring case (and a leading `#` or surrounding `/`);
 * else the title ignoring case and spacing, when only one section has it; else a key that ends with the request
 * at a `/` (`install-dependencies` for `setup/install-dependencies`), when only one does.
 */
export function findSection(outline: SkillOutline, key: string): SkillSection | undefined {
  const exact = outline.sections.find((section) => section.key === key);
  if (exact) return exact;
  const wanted = normalizeKey(key);
  if (wanted === '') return undefined;
  const byKey = outline.sections.find((section) => section.key === wanted);
  if (byKey) return byKey;
  const title = normalizeTitle(key);
  const titles = normalizedTitles(outline);
  const byTitle = outline.sections.filter((_, index) => titles[index] === title);
  if (byTitle.length === 1) return byTitle[0];
  if (byTitle.length > 1) return undefined; // ambiguous: suggestSections lists them
  for (const suffix of new Set([wanted, wanted.split('/').map(slugify).join('/')])) {
    if (suffix === '') continue;
    const bySuffix = outline.sections.filter((section) => section.key.endsWith(`/${suffix}`));
    if (bySuffix.length === 1) return bySuffix[0];
    if (bySuffix.length > 1) return undefined;
  }
  return undefined;
}

/**
 * Edit distances one "did you mean" may compute: each is up to 128 x 128 steps, and a missing key in an outline of
 * 50,000 sections took 4.5 s of them. Distances of repeated titles and leaves are computed once; past the budget,
 * sections are still matched by title and key suffix.
 */
const MAX_DISTANCES = 2000;

/** Up to 3 keys close to what was asked, for "did you mean": same title or key suffix first, then by edit distance. */
export function suggestSections(outline: SkillOutline, key: string): string[] {
  const wanted = normalizeKey(key).slice(0, 128);
  if (wanted === '') return [];
  const title = normalizeTitle(key);
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  let budget = MAX_DISTANCES;
  const measure = (from: string, to: string): number => {
    if (budget <= 0) return limit + 1;
    budget--;
    return editDistance(from, to, limit);
  };
  // Leaves and titles repeat (a heading used a thousand times): each distinct one is measured once.
  const leaves = new Map<string, number>();
  const titled = new Map<string, number>();
  const once = (seen: Map<string, number>, from: string, to: string): number => {
    let value = seen.get(to);
    if (value === undefined) {
      value = measure(from, to);
      if (budget > 0) seen.set(to, value);
    }
    return value;
  };
  const suffix = `/${wanted}`;
  const scored: Array<{ key: string; score: number; order: number }> = [];
  const titles = normalizedTitles(outline);
  outline.sections.forEach((section, order) => {
    const sectionTitle = titles[order]!;
    if (sectionTitle === title || section.key.endsWith(suffix)) {
      scored.push({ key: section.key, score: 0, order });
      return;
    }
    const leaf = section.key.slice(section.key.lastIndexOf('/') + 1);
    const score = Math.min(measure(wanted, section.key), once(leaves, wanted, leaf), once(titled, title, sectionTitle));
    if (score <= limit) scored.push({ key: section.key, score, order });
  });
  scored.sort((a, b) => a.score - b.score || a.order - b.order);
  return scored.slice(0, 3).map((entry) => entry.key);
}

function normalizeKey(key: string): string {
  return key
    .trim()
    .toLowerCase()
    .replace(/^#+\s*/, '')
    .replace(/^\/+|\/+$/g, '');
}

/** The sections' titles normalised once per outline (outlines are cached; each lookup used to redo 50,000 of them). */
const titlesOf = new WeakMap<SkillOutline, string[]>();

function normalizedTitles(outline: SkillOutline): string[] {
  let titles = titlesOf.get(outline);
  if (titles === undefined) {
    titles = outline.sections.map((section) => normalizeTitle(section.title));
    titlesOf.set(outline, titles);
  }
  return titles;
}

function normalizeTitle(title: string): string {
  return title.trim().replace(/\s+/g, ' ').toLowerCase();
}
