import { readDataFile } from '../data.js';

/**
 * What the words of spent tasks no skill serves say (ADR 0271): per search term (a stem), how much likelier it is in
 * the fitting sets' no-fit tasks than in their queries that have a skill (the log ratio of the shares of tasks holding
 * it, each count smoothed; only terms of at least two no-fit tasks, and likelier there). Writers of new tasks come back
 * to the same subjects (a dog, a carpet, a recipe) and the same tools the catalog lacks (Varnish, Roblox, HAProxy), in
 * sentences whose mean word vector (./query-neighbours.ts) a few catalog-like words pull back toward the catalog; the
 * words themselves are not diluted. A query's `remembered` input is the sum of the weights of its typed terms that no
 * skill of the searched scope is about (holds in its name, description or headings): a word some skill is about is
 * never held against the query, so a tool this corpus lacks, remembered from a near-miss, still finds the catalog that
 * serves it (a PDF skill that fills forms answers "fill in a pdf form", whatever the memory says of `form`), and a
 * cooking catalog's `recipe` is not a no-fit word there. The weights are data (remembered-words.txt, written by
 * bench/blind/fit-domain.mjs beside query-domain.txt): one `TERM WEIGHT` line per term.
 */
export const REMEMBERED_WORDS_FILE = 'remembered-words.txt';

export class RememberedWords {
  private constructor(private readonly weights: ReadonlyMap<string, number>) {}

  get size(): number {
    return this.weights.size;
  }

  /** A term's weight; 0 for a term not remembered. */
  weight(term: string): number {
    return this.weights.get(term) ?? 0;
  }

  /** The weights of `terms` (a query's distinct typed terms no skill of the scope is about) summed; 0 when none is remembered. */
  sum(terms: Iterable<string>): number {
    let sum = 0;
    for (const term of terms) sum += this.weights.get(term) ?? 0;
    return sum;
  }

  /** Reads `TERM WEIGHT` lines (`#` starts a comment); throws, naming the line, on anything else. */
  static parse(text: string): RememberedWords {
    const weights = new Map<string, number>();
    for (const [at, raw] of text.split('\n').entries()) {
      const line = raw.replace(/#.*/, '').trim();
      if (line === '') continue;
      const [term, weightText, ...rest] = line.split(/\s+/);
      const weight = Number(weightText);
      if (term === undefined || weightText === undefined || rest.length > 0 || !Number.isFinite(weight) || weight <= 0) {
        throw new Error(`remembered words: line ${at + 1} is not "TERM WEIGHT" with a weight above 0`);
      }
      if (weights.has(term)) throw new Error(`remembered words: line ${at + 1} repeats ${term}`);
      weights.set(term, weight);
    }
    if (weights.size === 0) throw new Error('remembered words: no terms');
    return new RememberedWords(weights);
  }

  private static shipped: RememberedWords | null | undefined;

  /** The shipped weights, read once; undefined when the file is missing or damaged. */
  static bundled(): RememberedWords | undefined {
    if (RememberedWords.shipped === undefined) {
      try {
        RememberedWords.shipped = RememberedWords.parse(readDataFile(REMEMBERED_WORDS_FILE));
      } catch {
        RememberedWords.shipped = null;
      }
    }
    return RememberedWords.shipped ?? undefined;
  }
}
