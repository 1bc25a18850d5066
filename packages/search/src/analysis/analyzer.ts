/**
 * Text → index terms. A word in camelCase or mixing letters and digits (`TimeZoneInfo`, `net8`) is indexed whole and
 * also as its parts (`timezoneinfo` + `time zone info`); stopwords (./stopwords.txt) are dropped and every other word
 * is reduced by `lightStem` (./stem.ts).
 */
import { lightStem } from './stem.js';
import { isStopword } from './stopwords.js';
import { foldCase, forEachWord, detached } from './words.js';

/** Analyses remembered (~150 bytes each): at 10,000 generated skills the catalog has ~36,000 distinct words. */
const WORD_CACHE_LIMIT = 100_000;
// Parts of one word: an acronym before a capitalised word (`XML` in `XMLHttp`), a capitalised or lowercase run,
// an uppercase run, a digit run; letters of scripts without case stay together.
const PART = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+|[\p{L}\p{M}]+/gu;
// A word may have parts only if a lowercase letter is followed by an uppercase one, or letters and digits meet.
const HAS_PARTS = /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|\p{L}\p{N}|\p{N}\p{L}/u;
const HAS_DIGIT = /\p{N}/u;

/** What one source word contributes: its term (undefined for a stopword) and, for a compound, its parts. */
export interface Analysis {
  /** Lowercase, folded form, before stemming: for compounds and name keys. */
  folded: string;
  term: string | undefined;
  /** Terms of the parts (stopwords dropped, the word's own term left out); undefined when the word has no parts. */
  parts: string[] | undefined;
  /** Term ids in the index that owns the analyzer (-1 until the index assigns one): saves a lookup per word. */
  id: number;
  partIds: number[] | undefined;
}

/** Turns words into terms. Words repeat endlessly across a catalog, so analyses are remembered (up to a bound). */
export class Analyzer {
  private readonly cache = new Map<string, Analysis>();

  /**
   * After a merge renumbered the terms (`termMap`: old id → new id, -1 when dropped): remembered ids are renumbered,
   * and the analyses of words whose term was dropped are forgotten (the words of removed documents), so that the
   * cache, bounded by WORD_CACHE_LIMIT, keeps the words of the catalog rather than filling with dead ones.
   */
  renumber(termMap: Int32Array): void {
    for (const [word, analysis] of this.cache) {
      if (analysis.id >= 0) {
        analysis.id = termMap[analysis.id]!;
        if (analysis.id < 0) {
          this.cache.delete(word);
          continue;
        }
      }
      if (analysis.partIds !== undefined) {
        const parts = analysis.partIds.map((id) => termMap[id]!);
        analysis.partIds = parts.includes(-1) ? undefined : parts;
      }
    }
  }

  /** `remember`: false for query words, so that a stream of queries cannot fill the cache with one-off words. */
  analyze(word: string, remember = true): Analysis {
    let analysis = this.cache.get(word);
    if (analysis === undefined) {
      analysis = analyzeWord(word);
      if (remember && this.cache.size < WORD_CACHE_LIMIT) {
        // Kept strings are copies: a word cut out of a body would keep the whole body alive.
        analysis.folded = detached(analysis.folded);
        if (analysis.term !== undefined) analysis.term = detached(analysis.term);
        if (analysis.parts !== undefined) analysis.parts = analysis.parts.map(detached);
        this.cache.set(detached(word), analysis);
      }
    }
    return analysis;
  }
}

function analyzeWord(word: string): Analysis {
  const folded = foldCase(word);
  const term = isStopword(folded) ? undefined : lightStem(folded);
  let parts: string[] | undefined;
  // Parts need an uppercase letter (then the word differs from its folded form) or a digit: most words skip the test.
  if ((folded !== word || HAS_DIGIT.test(word)) && HAS_PARTS.test(word)) {
    parts = [];
    for (const piece of word.match(PART) ?? []) {
      const part = foldCase(piece);
      const partTerm = isStopword(part) ? undefined : lightStem(part);
      if (partTerm !== undefined && partTerm !== term && !parts.includes(partTerm)) parts.push(partTerm);
    }
    if (parts.length === 0) parts = undefined;
  }
  return { folded, term, parts, id: -1, partIds: undefined };
}

/**
 * The index terms of a text, in order: each word's term (stopwords dropped), then its parts' terms when it is a
 * compound. What the index stores for a field, and what a query is reduced to.
 */
export function searchTerms(text: string): string[] {
  const analyzer = new Analyzer();
  const terms: string[] = [];
  forEachWord(String(text), (word) => {
    const { term, parts } = analyzer.analyze(word);
    if (term !== undefined) terms.push(term);
    if (parts !== undefined) terms.push(...parts);
  });
  return terms;
}
