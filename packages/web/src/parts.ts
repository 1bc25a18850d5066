import { visitMarkdownLines } from '@skillport/core';

/**
 * A long Markdown body shown in parts, so that one page view renders a bounded amount (markdown-it renders a 3 MiB
 * table in ~0.8 s on the main thread, into 17 MiB of HTML); a part renders in tens of milliseconds. Parts end before a block (after a blank line, outside
 * fences and comments) or a heading where one is near; a block longer than a part is cut at a line end, and when
 * that block is a table its header and delimiter rows open the next part too, so it stays a table.
 */
export const PART_CHARS = 64 * 1024;
/** Headings in one part: each is a heading element, an id and an outline entry. */
export const PART_HEADINGS = 1000;

export interface MarkdownPart {
  start: number;
  end: number;
  /** Lines put before the part's text (a table's header rows, when the part starts inside that table). */
  carry: string;
}

const TABLE_DELIMITER = /^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

export async function markdownParts(body: string, limits = { chars: PART_CHARS, headings: PART_HEADINGS }): Promise<MarkdownPart[]> {
  if (body.length <= limits.chars && body.length < limits.headings * 2) return [{ start: 0, end: body.length, carry: '' }];
  // One pass over the lines, keeping only what the part being filled needs (a 16 MiB body of 8 million lines holds
  // no per-line array).
  const parts: MarkdownPart[] = [];
  let from = 0; // where the part being filled starts
  let carry = '';
  let cut = -1; // the latest line start after `from` a part may start at
  let sinceCut = 0; // headings from `cut` on
  let headingsIn = 0;
  // The current block's first three line starts (a table's header and delimiter rows are its first two lines).
  const block = [0, -1, -1];
  let blockLines = 0;
  await visitMarkdownLines(body, (start, next, blockStart, heading) => {
    const boundary = blockStart || heading !== undefined;
    if (boundary) {
      block[0] = start;
      blockLines = 1;
    } else if (blockLines < 3) block[blockLines++] = start;
    else blockLines++;
    if (start > from && boundary) {
      cut = start;
      sinceCut = 0;
    }
    const over = next - from + carry.length > limits.chars || (heading !== undefined && headingsIn >= limits.headings);
    if (over && start > from) {
      // A boundary that would leave this part under half full is passed over: the block is cut instead.
      const atCut = cut > from && cut - from >= limits.chars / 2;
      const at = atCut ? cut : start;
      parts.push({ start: from, end: at, carry });
      // Cut inside a block: a table keeps its header rows in the next part.
      carry = !atCut && !boundary && blockLines > 2 ? tableHead(body, block[0]!, block[1]!, block[2]!) : '';
      headingsIn = atCut ? sinceCut : 0;
      from = at;
      cut = -1;
      sinceCut = 0;
    }
    if (heading !== undefined) {
      headingsIn++;
      sinceCut++;
    }
  });
  parts.push({ start: from, end: body.length, carry });
  return parts;
}

/** The header rows of a table whose first two lines start at `head` and `delimiter`, or '' when they are no table. */
function tableHead(body: string, head: number, delimiter: number, after: number): string {
  const first = body.slice(head, delimiter);
  const second = body.slice(delimiter, after);
  return first.includes('|') && TABLE_DELIMITER.test(second.replace(/\r?\n$/, '')) ? first + second : '';
}
