/**
 * Words of a text: split at anything that is not a letter, combining mark or digit (Unicode-aware: `über-große` and
 * `数据分析` are words), NFKC-normalised, lowercased, Latin diacritics folded (`diátaxis` → `diataxis`).
 */
const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
const ASCII = /^[\x00-\x7f]*$/;
const LATIN_WITH_MARKS = /^[\p{Script=Latin}\p{M}\p{N}]+$/u;
const COMBINING_MARKS = /\p{M}+/gu;

/** How many code units the word character at `text[at]` takes (1, or 2 for a surrogate pair), or 0 for none. */
function wordCharWidth(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (code < 0x80) return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) ? 1 : 0;
  const point = text.codePointAt(at)!;
  return WORD_CHAR.test(String.fromCodePoint(point)) ? (point > 0xffff ? 2 : 1) : 0;
}

/** Calls `visit` with every word of `text` (a maximal run of letters, combining marks and digits), in order. */
export function forEachWord(text: string, visit: (word: string) => void): void {
  let start = -1;
  for (let at = 0, length = text.length; at <= length; at++) {
    const width = at < length ? wordCharWidth(text, at) : 0;
    if (width > 0) {
      if (start < 0) start = at;
      at += width - 1;
    } else if (start >= 0) {
      visit(text.slice(start, at));
      start = -1;
    }
  }
}

export function foldCase(word: string): string {
  if (ASCII.test(word)) return word.toLowerCase();
  const lower = word.normalize('NFKC').toLowerCase();
  // Accents are folded on Latin words only: in other scripts a combining mark can be part of the letter itself.
  return LATIN_WITH_MARKS.test(lower) ? lower.normalize('NFD').replace(COMBINING_MARKS, '').normalize('NFC') : lower;
}

/** Lowercase words joined by single spaces: `Slack_GIF-creator` and `slack gif creator` have the same key. */
export function nameKey(text: string): string {
  // Most names are ASCII: lowercased at once and cut at anything not a letter or digit (what the general path does).
  if (ASCII.test(text)) return asciiNameKey(text.toLowerCase());
  const words: string[] = [];
  forEachWord(text, (word) => words.push(foldCase(word)));
  return words.join(' ');
}

function asciiNameKey(lower: string): string {
  let key = '';
  let start = -1;
  for (let at = 0, length = lower.length; at <= length; at++) {
    const code = at < length ? lower.charCodeAt(at) : 0;
    if ((code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x7a)) {
      if (start < 0) start = at;
    } else if (start >= 0) {
      key = key === '' ? lower.slice(start, at) : `${key} ${lower.slice(start, at)}`;
      start = -1;
    }
  }
  return key;
}

/**
 * A string that shares no memory with a larger one. V8 represents a slice of 13+ characters as a view of its
 * parent string, so a word cut out of a SKILL.md body and kept (a vocabulary term, a cached analysis) would keep the
 * whole body alive; JSON.parse makes a fresh string.
 */
export function detached(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}
