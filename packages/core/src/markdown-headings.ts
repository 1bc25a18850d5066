/**
 * The one Markdown heading scanner of skillport (sections, outlines, the headings search indexes): ATX headings
 * (`#`..`######`, up to 3 spaces in) outside fenced code blocks and HTML comments, the way CommonMark reads them.
 * Not headings: setext headings (`Title` over `===` or `---`, where a `---` meant as a rule under a paragraph would
 * silently make one), headings after a `>` or a list marker on the same line, and headings in a comment that
 * starts a line (`<!--` ... `-->`, CommonMark's HTML comment block). A fence opened in a list item ends with the
 * item, as in CommonMark. sections.ts splits a body at these headings; markdownHeadings() gives their plain text
 * to search, so a heading is searched exactly when it is a section.
 */

export interface MarkdownHeading {
  /** Offset of the heading line's first character. */
  offset: number;
  /** 0-based line. */
  line: number;
  level: number;
  title: string;
}

export interface MarkdownScan {
  /** The headings, up to `maxHeadings` of them (ScanOptions). */
  headings: MarkdownHeading[];
  /** Headings in the body, those past `maxHeadings` included. */
  headingCount: number;
  /** Offset at which each line starts (a final line ending does not start another line). */
  lineStarts: Uint32Array;
  /** Per line, 1 when a split may go right before it (it follows a blank line, outside fences and comments). */
  blockStart: Uint8Array;
}

export interface ScanOptions {
  /**
   * Headings kept (default: all). Each is an object of its own: a 16 MiB body of `#` lines has 8 million, about a
   * gigabyte held for one request. Past this, headings are counted, not kept.
   */
  maxHeadings?: number;
}

/** One line as the scan sees it: where it starts, where the next starts, whether a block may start at it, its heading. */
export type LineVisitor = (start: number, next: number, blockStart: boolean, heading: MarkdownHeading | undefined) => void;

const LINE_END = /\r\n|\r|\n/g;
/** Up to 3 spaces of indent (CommonMark), optionally after one list marker so "1. ```bash" opens a fence too. */
const FENCE_OPEN = /^( {0,3}(?:(?:[-+*]|\d{1,9}[.)]) {1,4})?)(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^( *)(`{3,}|~{3,})[ \t]*$/;
const ATX = /^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$/;
const COMMENT_OPEN = /^ {0,3}<!--/;

export function scanMarkdown(body: string, options: ScanOptions = {}): MarkdownScan {
  const { visit, result } = collector(body, options);
  const steps = scanSteps(body, visit);
  while (!steps.next().done);
  return result();
}

/** Lines scanned between two turns of the event loop in the async scans (a few milliseconds of work). */
const LINES_PER_TURN = 4096;

/**
 * scanMarkdown for a request path: the same scan, letting other work run every LINES_PER_TURN lines, so a body of
 * hundreds of thousands of lines never holds the event loop for the whole scan.
 */
export async function scanMarkdownAsync(body: string, options: ScanOptions = {}): Promise<MarkdownScan> {
  const { visit, result } = collector(body, options);
  await visitMarkdownLines(body, visit);
  return result();
}

/**
 * The scan line by line, holding nothing per line (what to keep is the visitor's), letting other work run every
 * LINES_PER_TURN lines.
 */
export async function visitMarkdownLines(body: string, visit: LineVisitor): Promise<void> {
  const steps = scanSteps(body, visit);
  while (!steps.next().done) await new Promise((resolve) => setImmediate(resolve));
}

/** Keeps what MarkdownScan holds: line starts and block starts in typed arrays (4 + 1 bytes a line), headings. */
function collector(body: string, options: ScanOptions): { visit: LineVisitor; result: () => MarkdownScan } {
  const maxHeadings = options.maxHeadings ?? Number.POSITIVE_INFINITY;
  const headings: MarkdownHeading[] = [];
  let headingCount = 0;
  // Lines are at most one per character: start small and double (a typed array cannot grow in place).
  let lineStarts = new Uint32Array(Math.min(body.length + 1, 1024));
  let blockStart = new Uint8Array(lineStarts.length);
  let lines = 0;
  const visit: LineVisitor = (start, _next, block, heading) => {
    if (lines === lineStarts.length) {
      const grown = new Uint32Array(lineStarts.length * 2);
      grown.set(lineStarts);
      lineStarts = grown;
      const grownBlocks = new Uint8Array(grown.length);
      grownBlocks.set(blockStart);
      blockStart = grownBlocks;
    }
    lineStarts[lines] = start;
    blockStart[lines] = block ? 1 : 0;
    lines++;
    if (heading !== undefined) {
      headingCount++;
      if (headings.length < maxHeadings) headings.push(heading);
    }
  };
  return { visit, result: () => ({ headings, headingCount, lineStarts: lineStarts.slice(0, lines), blockStart: blockStart.slice(0, lines) }) };
}

function* scanSteps(body: string, visit: LineVisitor): Generator<void, void> {
  let fence: { char: string; length: number; indent: number } | undefined;
  let inComment = false;
  let previousBlank = true;
  // A regex of our own: its lastIndex is this scan's position, whatever other scans run between two turns.
  const lineEnd = new RegExp(LINE_END.source, 'g');
  for (let start = 0, line = 0; start < body.length || line === 0; line++) {
    if (line > 0 && line % LINES_PER_TURN === 0) yield;
    const match = lineEnd.exec(body);
    const end = match ? match.index : body.length;
    let content = body.slice(start, end);
    if (line === 0 && content.startsWith('\uFEFF')) content = content.slice(1);
    const blank = content.trim() === '';
    let closing = false;
    if (fence !== undefined) {
      // The closing fence: same character, at least as long, nothing after it but spaces, indented at most 3
      // columns past the opening fence's own column.
      const close = FENCE_CLOSE.exec(content);
      closing = close !== null && close[2]![0] === fence.char && close[2]!.length >= fence.length && close[1]!.length <= Math.max(3, fence.indent + 3);
      // A fence opened inside a list item (indented, or right after a list marker) also ends with that item, at the
      // first line indented less than the fence, as CommonMark closes blocks with their container. Without this,
      // one stray unclosed fence in a list would hide every heading after the list.
      if (!closing && fence.indent > 0 && !blank && indentOf(content) < fence.indent) fence = undefined;
    }
    const outside = fence === undefined && !inComment;
    const block = outside && previousBlank;
    let found: MarkdownHeading | undefined;
    if (fence !== undefined) {
      if (closing) fence = undefined;
    } else if (inComment) {
      if (content.includes('-->')) inComment = false;
    } else {
      const open = FENCE_OPEN.exec(content);
      const heading = open ? undefined : ATX.exec(content);
      if (open && !(open[2]![0] === '`' && open[3]!.includes('`'))) {
        fence = { char: open[2]![0]!, length: open[2]!.length, indent: open[1]!.length };
      } else if (COMMENT_OPEN.test(content)) {
        inComment = !content.slice(content.indexOf('<!--') + 4).includes('-->');
      } else if (heading) {
        found = { offset: start, line, level: heading[1]!.length, title: headingText(heading[2]!) };
      }
    }
    previousBlank = blank;
    const next = match ? match.index + match[0].length : body.length;
    visit(start, next, block, found);
    if (!match) break;
    start = next;
    if (start >= body.length) break; // a final line ending starts no new line
  }
}

/** Columns of leading whitespace (a tab moves to the next multiple of 4, as in CommonMark). */
function indentOf(content: string): number {
  let columns = 0;
  for (const char of content) {
    if (char === ' ') columns++;
    else if (char === '\t') columns += 4 - (columns % 4);
    else break;
  }
  return columns;
}

/** `## Title ##` -> `Title`: drop the optional closing run of `#`s (only when a space precedes it, per CommonMark). */
function headingText(raw: string): string {
  return raw
    .trim()
    .replace(/(?:^|[ \t]+)#+[ \t]*$/, '')
    .trim();
}

/** Headings of one body given to search: a body of millions of headings would otherwise hold them all. */
export const MAX_SEARCHED_HEADINGS = 10_000;

/**
 * The plain text of every heading of a markdown body (the first MAX_SEARCHED_HEADINGS), in order: the closing #s,
 * emphasis markers, backticks and link syntax are stripped (`## Use \`gh\` **first** ##` → `Use gh first`); empty
 * headings are skipped.
 */
export function markdownHeadings(body: string): string[] {
  const headings: string[] = [];
  for (const heading of scanMarkdown(String(body), { maxHeadings: MAX_SEARCHED_HEADINGS }).headings) {
    const text = stripInlineMarkdown(heading.title);
    if (text !== '') headings.push(text);
  }
  return headings;
}

function stripInlineMarkdown(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])/g, '$1')
    .replace(/\\([!-/:-@[-`{-~])|\*+|~~|`+|(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu, (_, escaped: string | undefined) => escaped ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}
