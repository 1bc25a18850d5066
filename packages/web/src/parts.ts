import { scanMarkdownAsync } from '@skillport/core';

/**
 * A long Markdown body shown in parts, so that one page view renders a bounded amount (markdown-it renders a 3 MiB
 * table in ~0.8 s on the main thread, into 17 MiB of HTML); a part renders in tens of milliseconds. Parts end before a block (after a blank line, outside
 * fences and comments) or a heading where one is near; a block longer than a part is cut at a line end, and when
 * that block is a table its header and delimiter rows open the next part too, so it stays a table.
 */
export const PART_CHARS = 64 * 1024;
/** Headings in one part: each is a heading element, an id and an outline entry. */
export const PART_HEADINGS = 1000;
/** Lines walked between two turns of the event loop. */
const LINES_PER_TURN = 8192;

export interface MarkdownPart {
  start: number;
  end: number;
  /** Lines put before the part's text (a table's header rows, when the part starts inside that table). */
  carry: string;
}

const TABLE_DELIMITER = /^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

export async function markdownParts(body: string, limits = { chars: PART_CHARS, headings: PART_HEADINGS }): Promise<MarkdownPart[]> {
  if (body.length <= limits.chars && body.length < limits.headings * 2) return [{ start: 0, end: body.length, carry: '' }];
  const { headings, lineStarts, blockStart } = await scanMarkdownAsync(body);
  if (body.length <= limits.chars && headings.length <= limits.headings) return [{ start: 0, end: body.length, carry: '' }];
  const lines = lineStarts.length;
  const isHeading = new Uint8Array(lines);
  for (const heading of headings) isHeading[heading.line] = 1;
  const lineText = (line: number) => body.slice(lineStarts[line], lineStarts[line + 1] ?? body.length);
  // The header rows of the table starting at `line`, or '' when no table starts there.
  const tableHead = (line: number): string => {
    const head = lineText(line);
    const delimiter = line + 1 < lines ? lineText(line + 1) : '';
    return head.includes('|') && TABLE_DELIMITER.test(delimiter.replace(/\r?\n$/, '')) ? head + delimiter : '';
  };

  const parts: MarkdownPart[] = [];
  let first = 0; // first line of the part being filled
  let carry = '';
  let cut = -1; // the latest line after `first` a part may start at
  let block = 0; // the line the current block starts at
  let headingsIn = 0;
  for (let line = 0; line < lines; line++) {
    if (line > 0 && line % LINES_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    const boundary = blockStart[line] === true || isHeading[line] === 1;
    if (boundary) block = line;
    if (line > first && boundary) cut = line;
    const end = lineStarts[line + 1] ?? body.length;
    const over = end - lineStarts[first]! + carry.length > limits.chars || (isHeading[line] === 1 && headingsIn >= limits.headings);
    if (over && line > first) {
      // A boundary that would leave this part under half full is passed over: the block is cut instead.
      const at = cut > first && lineStarts[cut]! - lineStarts[first]! >= limits.chars / 2 ? cut : line;
      parts.push({ start: lineStarts[first]!, end: lineStarts[at]!, carry });
      // Cut inside a block: a table keeps its header rows in the next part.
      carry = at === line && !boundary && block < line - 1 ? tableHead(block) : '';
      headingsIn = 0;
      for (let counted = at; counted < line; counted++) headingsIn += isHeading[counted]!;
      first = at;
      cut = -1;
    }
    headingsIn += isHeading[line]!;
  }
  parts.push({ start: lineStarts[first]!, end: body.length, carry });
  return parts;
}
