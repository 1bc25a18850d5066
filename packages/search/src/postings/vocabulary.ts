import { detached } from '../analysis/words.js';
import { IntList } from './int-list.js';

/** Terms of 5+ characters are bucketed by their first MIN_PREFIX_LENGTH characters, for the prefix step. */
export const MIN_PREFIX_LENGTH = 4;
/** Terms this long or longer are bucketed for the typo step (a query term of 5+ characters, one edit away). */
export const MIN_TYPO_BUCKET_LENGTH = 4;

/**
 * The index's terms: term → id and id → term, each term's document frequency over the live documents, and the
 * buckets the near-match steps look terms up in (../expansion/query-expansion.ts). Ids are dense and assigned in
 * order of first sight; a merge renumbers them (`rebuild`), keeping their relative order.
 */
export class Vocabulary {
  private readonly ids = new Map<string, number>();
  readonly terms: string[] = [];
  /**
   * Per term, the shortest word seen written for it (folded; ties by code-unit order): `restore` for `restor`, so
   * reasons name words a reader knows; '' for a term only seen as a part of a compound (then the term is shown).
   */
  readonly written: string[] = [];
  df = new IntList();
  /** Term ids by their first 4 characters (terms of 5+ characters), for the prefix step. */
  private readonly byPrefix = new Map<string, number[]>();
  /**
   * Term ids (of 4+ characters) bucketed for the typo step by length and first character, and by length and second
   * character (keys like `7:k`): every term one edit away from a query term sits in one of seven such buckets.
   */
  private readonly byFirst = new Map<string, number[]>();
  private readonly bySecond = new Map<string, number[]>();

  get size(): number {
    return this.terms.length;
  }

  /** The id of `term`, or undefined when it was never seen (a term seen but held by no live document has df 0). */
  get(term: string): number | undefined {
    return this.ids.get(term);
  }

  /** The id of `text`, assigned now when it is new; `written`: a word of a document that gave this term. */
  idOf(text: string, written?: string): number {
    let id = this.ids.get(text);
    if (id !== undefined) {
      if (written !== undefined && shorter(written, this.written[id]!)) this.written[id] = detached(written);
      return id;
    }
    {
      // A copy: a term cut out of a document's text would keep that whole text alive for the life of the index.
      const term = detached(text);
      id = this.terms.length;
      this.ids.set(term, id);
      this.terms.push(term);
      this.written.push(written === undefined ? '' : detached(written));
      this.df.grow(id + 1);
      this.df.length = id + 1;
      if (term.length > MIN_PREFIX_LENGTH) addTo(this.byPrefix, term.slice(0, MIN_PREFIX_LENGTH), id);
      if (term.length >= MIN_TYPO_BUCKET_LENGTH) {
        addTo(this.byFirst, `${term.length}:${term[0]}`, id);
        addTo(this.bySecond, `${term.length}:${term[1]}`, id);
      }
    }
    return id;
  }

  /** Replaces every term by `terms` (ids 0..), with these written forms and document frequencies: after a merge dropped dead terms. */
  rebuild(terms: readonly string[], dfs: IntList, written: readonly string[] = terms): void {
    this.terms.length = 0;
    this.written.length = 0;
    this.ids.clear();
    this.byPrefix.clear();
    this.byFirst.clear();
    this.bySecond.clear();
    this.df = new IntList(terms.length);
    terms.forEach((term, at) => this.idOf(term, written[at]));
    this.df = dfs;
  }

  /** Ids of terms of 5+ characters starting with the first MIN_PREFIX_LENGTH characters of `term`. */
  withPrefixOf(term: string): readonly number[] {
    return this.byPrefix.get(term.slice(0, MIN_PREFIX_LENGTH)) ?? [];
  }

  /**
   * The seven buckets that can hold a term one edit away from `term`. An edit after the first character keeps it:
   * same first character, length ±1. An edit at the first character: deleting it leaves `second` first
   * (length − 1); swapping the first two puts `second` first; replacing it keeps `second` second; inserting before
   * it puts `first` second (length + 1).
   */
  oneEditBuckets(term: string): Array<readonly number[] | undefined> {
    const length = term.length;
    const [first, second] = [term[0], term[1]];
    return [
      this.byFirst.get(`${length - 1}:${first}`),
      this.byFirst.get(`${length}:${first}`),
      this.byFirst.get(`${length + 1}:${first}`),
      this.byFirst.get(`${length - 1}:${second}`),
      this.byFirst.get(`${length}:${second}`),
      this.bySecond.get(`${length}:${second}`),
      this.bySecond.get(`${length + 1}:${first}`),
    ];
  }
}

/** Whether `word` should replace `current` as a term's written form (the shortest; ties by code-unit order). */
export function shorter(word: string, current: string): boolean {
  return current === '' || word.length < current.length || (word.length === current.length && word < current);
}

/** How a term reads: the word it was written as, or the term itself. */
export function writtenForm(vocabulary: Vocabulary, id: number): string {
  return vocabulary.written[id] || vocabulary.terms[id]!;
}

function addTo(map: Map<string, number[]>, key: string, id: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [id]);
  else list.push(id);
}
