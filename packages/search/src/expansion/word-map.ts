import { readDataFile } from '../data.js';

/**
 * A map from the words people describe a need with to the words skills describe themselves with (issue 15: "my
 * shoebox of paper slips has to become something my accountant accepts" → receipt, expense, bookkeeping, tax).
 * The data is ./situation-words.txt, written from general knowledge of how people talk about work, never from a
 * query set; this module parses it and looks query terms up in it. It knows nothing of any index: search decides
 * which targets a catalog holds and how much a match through the map counts (see `MAPPED_WEIGHT` in ./query-expansion.ts).
 *
 * Keys and targets are reduced to index terms by the analyser search passes in (so `accountants` meets the key
 * `accountant`, and `spreadsheets` the target `spreadsheet`). A key is a word or a phrase of up to MAX_KEY_WORDS
 * words matched on adjacent query terms (`far away`); a phrase's targets go to each of its words.
 */
export interface WordMapEntry {
  /** The key's terms, joined by single spaces. */
  key: string;
  /** Target terms, in the order written, without duplicates and without the key's own terms. */
  targets: string[];
}

/** Words in a phrase key, at most: longer phrases are too specific to meet a query. */
export const MAX_KEY_WORDS = 3;
/** The shipped map's data file (./situation-words.txt, copied to dist/data/ by the build). */
export const SITUATION_WORDS_FILE = 'situation-words.txt';
/** Targets kept per query position (a key rarely has more than 8; the bound keeps a query's work small). */
const MAX_TARGETS_PER_WORD = 24;
/** One word as the index splits text: letters, combining marks and digits only. */
const ONE_WORD = /^[\p{L}\p{M}\p{N}]+$/u;

export class WordMap {
  private static bundledMap: WordMap | undefined;

  private constructor(private readonly entries: Map<string, string[]>) {}

  /**
   * Parses lines `key, key phrase = target target ...` (blank lines and `#` comments ignored). Every key word must
   * survive analysis as a term of its own (a stopword in a key would make a phrase match something else), and every
   * target must be one term. Throws with the line number on anything else; a key on several lines gets the union.
   */
  static parse(text: string, analyze: (text: string) => string[]): WordMap {
    const entries = new Map<string, string[]>();
    // A word's term, once analysed: the map's words repeat (5,200 written, 2,000 distinct), and the first search of
    // a process (a warm restart's) waits for this parse.
    const termOfWord = new Map<string, string>();
    text.split('\n').forEach((raw, at) => {
      const line = raw.replace(/#.*/, '').trim();
      if (line === '') return;
      const fail = (why: string): never => {
        throw new Error(`word map line ${at + 1}: ${why}: ${raw.trim()}`);
      };
      const sides = line.split('=');
      if (sides.length !== 2) fail('expected one "="');
      const keys = sides[0]!.split(',').map((key) => key.trim());
      const words = sides[1]!.trim().split(/\s+/);
      if (keys.some((key) => key === '') || words[0] === '') fail('empty key or target');
      // A word's own term comes first in its analysis (a word like `mp4` also yields its parts, which the query
      // side looks up only for words the index does not hold).
      const termOf = (word: string): string => {
        const known = termOfWord.get(word);
        if (known !== undefined) return known;
        if (!ONE_WORD.test(word)) fail(`"${word}" is not one word`);
        const term = analyze(word)[0] ?? fail(`"${word}" is a stopword`);
        termOfWord.set(word, term);
        return term;
      };
      const targets = words.map(termOf);
      for (const key of keys) {
        const typed = key.split(/\s+/);
        if (typed.length > MAX_KEY_WORDS) fail(`key "${key}" is longer than ${MAX_KEY_WORDS} words`);
        const terms = typed.map(termOf);
        const joined = terms.join(' ');
        const list = entries.get(joined) ?? [];
        for (const target of targets) if (!terms.includes(target) && !list.includes(target)) list.push(target);
        if (list.length === 0) fail(`key "${key}" maps only to itself`);
        entries.set(joined, list);
      }
    });
    return new WordMap(entries);
  }

  /** The map shipped with skillport (./situation-words.txt), read and parsed once. */
  static bundled(analyze: (text: string) => string[]): WordMap {
    WordMap.bundledMap ??= WordMap.parse(readDataFile(SITUATION_WORDS_FILE), analyze);
    return WordMap.bundledMap;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Every entry, for inspection and tests. */
  *[Symbol.iterator](): IterableIterator<WordMapEntry> {
    for (const [key, targets] of this.entries) yield { key, targets };
  }

  /** The targets of one key (its terms joined by spaces), or undefined. */
  get(key: string): readonly string[] | undefined {
    return this.entries.get(key);
  }

  /**
   * For a query's terms in order: per position, the targets of the key covering it, at most MAX_TARGETS_PER_WORD,
   * without the position's own term. Keys are matched longest first and do not overlap: in `machine learning
   * model`, the phrase `machine learning` takes its two words, and `learning` alone (→ education) is not looked up.
   */
  expand(sequence: readonly string[]): string[][] {
    const out = sequence.map((): string[] => []);
    const taken = sequence.map(() => false);
    for (let length = MAX_KEY_WORDS; length >= 1; length--) {
      for (let start = 0; start + length <= sequence.length; start++) {
        if (taken.slice(start, start + length).some(Boolean)) continue;
        const targets = this.entries.get(sequence.slice(start, start + length).join(' '));
        if (targets === undefined) continue;
        for (let at = start; at < start + length; at++) {
          taken[at] = true;
          const list = out[at]!;
          for (const target of targets) {
            if (list.length >= MAX_TARGETS_PER_WORD) break;
            if (target !== sequence[at] && !list.includes(target)) list.push(target);
          }
        }
      }
    }
    return out;
  }
}
