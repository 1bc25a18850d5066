/**
 * The specific words of a query (ADR 0271, second part): words rare in general English (past RARE_POSITION in the
 * word vectors' frequency order, or not among their words at all), such as the name of a tool, a language or a
 * product ("Ansible", "Stata", "Varnish"). When such a word is held by no skill, or only in passing in bodies, the
 * catalog most likely lacks what the query names, however well its other, software-sounding words match: a near-miss.
 * Measured on the spent sets (30,000): 86 % of the near-miss no-fit tasks hold one, 23 % of the user-worded queries
 * that have a skill and 9 % of the model-phrased ones. The counts are inputs of ./query-domain.ts.
 */
export const RARE_POSITION = 30_000;

/** Where the catalog holds a word: 'none' (no skill), 'body' (only bodies), 'topical' (some name, description or heading). */
export type Held = 'none' | 'body' | 'topical';

export interface SpecificWords {
  /** Rare words no skill holds. */
  unknown: number;
  /** Rare words skills hold only in their bodies. */
  untopical: number;
}

/**
 * Counts the rare words of `text` by where the catalog holds them. `position`: a word's place in the vectors'
 * frequency order (undefined: not a word they know); `held`: where the catalog holds the word's terms (undefined for
 * a word with no term, a stopword). Words are split as the word vectors split them; numbers and single letters are skipped.
 */
export function specificWords(text: string, position: (word: string) => number | undefined, held: (word: string) => Held | undefined): SpecificWords {
  const counts = { unknown: 0, untopical: 0 };
  for (const word of text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)) {
    if (word.length < 2 || /^\p{N}+$/u.test(word)) continue;
    if ((position(word) ?? Number.POSITIVE_INFINITY) < RARE_POSITION) continue;
    const where = held(word);
    if (where === 'none') counts.unknown++;
    else if (where === 'body') counts.untopical++;
  }
  return counts;
}
