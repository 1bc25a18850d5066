import { z } from 'zod';

/**
 * get_skill_outline a page at a time, as list_skills pages (limit, cursor → nextCursor): an outline of 40,000
 * headings was one 3.9 MB answer. A page holds at most `limit` sections (default 200, at most 1,000) and about
 * PAGE_CHARS of text; titles are shown up to TITLE_CHARS (a section is still found by its key). The cursor names
 * the next section and the skill's package digest, so a cursor of another skill or of bytes since changed is refused
 * rather than read against other sections.
 */
export const OUTLINE_PAGE_DEFAULT = 200;
export const OUTLINE_PAGE_MAX = 1000;
const PAGE_CHARS = 64 * 1024;
const TITLE_CHARS = 200;

export const outlinePageInput = {
  limit: z.number().int().min(1).max(OUTLINE_PAGE_MAX).optional().describe(`How many sections (default ${OUTLINE_PAGE_DEFAULT}).`),
  cursor: z.string().max(256).optional().describe('nextCursor from the previous page.'),
};

export interface OutlinePage<T> {
  items: T[];
  /** Index of the page's first section. */
  start: number;
  nextCursor?: string;
}

/**
 * The page of `items` the arguments ask for; `size` is an item's share of the answer in characters (the page stops
 * before passing PAGE_CHARS, with at least one item). An error line when the cursor is not one for this outline.
 */
export function outlinePage<T>(
  items: readonly T[],
  digest: string,
  args: { limit?: number | undefined; cursor?: string | undefined },
  size: (item: T) => number,
): OutlinePage<T> | { error: string } {
  let start = 0;
  if (args.cursor !== undefined) {
    const at = cursorIndex(args.cursor, digest);
    if (at === undefined || at >= items.length) {
      return {
        error:
          'Error: That cursor is not one for this skill as it is now (it changed, or the cursor is from elsewhere); call get_skill_outline without a cursor.',
      };
    }
    start = at;
  }
  const limit = args.limit ?? OUTLINE_PAGE_DEFAULT;
  const page: T[] = [];
  let chars = 0;
  for (let at = start; at < items.length && page.length < limit; at++) {
    chars += size(items[at]!);
    if (page.length > 0 && chars > PAGE_CHARS) break;
    page.push(items[at]!);
  }
  const next = start + page.length;
  return next < items.length ? { items: page, start, nextCursor: cursorFor(next, digest) } : { items: page, start };
}

/** A title as a page shows it: at most TITLE_CHARS characters. */
export function shownTitle(title: string): string {
  return title.length <= TITLE_CHARS ? title : `${title.slice(0, TITLE_CHARS - 1)}…`;
}

/** The line that ends a page with more to come. */
export function moreLine(page: OutlinePage<unknown>, total: number): string {
  const shown = `sections ${page.start + 1}-${page.start + page.items.length} of ${total}`;
  return page.nextCursor === undefined ? '' : `(${shown}; the next page: call get_skill_outline again with {"cursor": "${page.nextCursor}"})`;
}

function cursorFor(index: number, digest: string): string {
  return Buffer.from(`${index}:${digestTag(digest)}`).toString('base64url');
}

function cursorIndex(cursor: string, digest: string): number | undefined {
  const match = /^(\d{1,9}):([0-9a-f]{16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match === null || match[2] !== digestTag(digest) ? undefined : Number(match[1]);
}

function digestTag(digest: string): string {
  return digest.replace(/^sha256:/, '').slice(0, 16);
}
