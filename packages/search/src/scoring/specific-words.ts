/**
 * The specific words of a query (ADR 0271, second part): words rare in general English (past RARE_POSITION in the
 * word vectors' frequency order, or not among their words at all), such as the name of a tool, a language or a
 * product ("Ansible", "Stata", "Varnish"). When such a word is held by no skill, or only in passing in bodies, the
 * catalog most likely lacks what the query names, however well its other, software-sounding words match: a near-miss.
 * Measured on the spent sets (30,000): 86 % of the near-miss no-fit tasks hold one, 23 % of the user-worded queries
 * that have a skill and 9 % of the model-phrased ones. A rare word written as a name (a capital past the text's first
 * word, or two capitals: `Bevy`, `VCL`, `PocketBase`) is counted apart: a lowercase one the catalog lacks is as often
 * a typo or a user's own word. The counts are inputs of ./query-domain.ts.
 */
export const RARE_POSITION = 30_000;

/** Where the catalog holds a word: 'none' (no skill), 'body' (only bodies), 'topical' (some name, description or heading). */
export type Held = 'none' | 'body' | 'topical';

export interface SpecificWords {
  /** Rare words no skill holds. */
  unknown: number;
  /** Rare words skills hold only in their bodies. */
  untopical: number;
  /** Of `unknown`, those written as a name. */
  namedUnknown: number;
  /** Of `untopical`, those written as a name. */
  namedUntopical: number;
}

const CAPITAL = /\p{Lu}/u;
const TWO_CAPITALS = /\p{Lu}.*\p{Lu}/u;
const NUMBER = /^\p{N}+$/u;

/**
 * Counts the rare words of `text` by where the catalog holds them. `position`: a (lowercase) word's place in the
 * vectors' frequency order (undefined: not a word they know); `held`: where the catalog holds the word's terms
 * (undefined for a word with no term, a stopword). Words are split as the word vectors split them; numbers and single
 * letters are skipped.
 */
export function specificWords(text: string, position: (word: string) => number | undefined, held: (word: string) => Held | undefined): SpecificWords {
  const counts = { unknown: 0, untopical: 0, namedUnknown: 0, namedUntopical: 0 };
  const words = text.normalize('NFKC').split(/[^\p{L}\p{N}]+/u);
  const first = words.findIndex((word) => word !== '');
  words.forEach((written, at) => {
    if (written.length < 2 || NUMBER.test(written)) return;
    const word = written.toLowerCase();
    if ((position(word) ?? Number.POSITIVE_INFINITY) < RARE_POSITION) return;
    const where = held(word);
    if (where !== 'none' && where !== 'body') return;
    const named = TWO_CAPITALS.test(written) || (at !== first && CAPITAL.test(written));
    if (where === 'none') {
      counts.unknown++;
      if (named) counts.namedUnknown++;
    } else {
      counts.untopical++;
      if (named) counts.namedUntopical++;
    }
  });
  return counts;
}
