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
  /**
   * The near-match buckets (prefix, and the two typo kinds), by integer key: made in one pass over the terms known
   * when first asked for (a restore or a merge's rebuild then costs a Map of the terms, not three bucket maps keyed by
   * strings); terms learnt after that go to `later`.
   */
  private buckets: Buckets | undefined;
  private readonly later = [new Map<number, number[]>(), new Map<number, number[]>(), new Map<number, number[]>()];

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
    // A copy: a term cut out of a document's text would keep that whole text alive for the life of the index.
    const term = detached(text);
    id = this.terms.length;
    this.ids.set(term, id);
    this.terms.push(term);
    this.written.push(written === undefined ? '' : detached(written));
    this.df.grow(id + 1);
    this.df.length = id + 1;
    if (this.buckets !== undefined) {
      for (let kind = 0; kind < KINDS; kind++) {
        const key = keyOf(term, kind);
        if (key < 0) continue;
        const list = this.later[kind]!.get(key);
        if (list === undefined) this.later[kind]!.set(key, [id]);
        else list.push(id);
      }
    }
    return id;
  }

  /**
   * Replaces every term by `terms` (ids 0..), with these written forms and document frequencies: after a merge
   * dropped dead terms, or at a restore. Throws when a term is listed twice (a damaged file: ids would not line up).
   */
  rebuild(terms: readonly string[], dfs: IntList, written: readonly string[] = terms): void {
    this.terms.length = 0;
    this.written.length = 0;
    this.ids.clear();
    this.buckets = undefined;
    for (const map of this.later) map.clear();
    for (let id = 0; id < terms.length; id++) {
      const term = terms[id]!;
      this.ids.set(term, id);
      this.terms.push(term);
      this.written.push(written[id] ?? '');
    }
    if (this.ids.size !== terms.length) throw new Error('search index state: a term is listed twice');
    this.df = dfs;
  }

  /** Ids of terms of 5+ characters starting with the first MIN_PREFIX_LENGTH characters of `term`. */
  withPrefixOf(term: string): number[] {
    const head = term.slice(0, MIN_PREFIX_LENGTH);
    // Keys are hashes of the first characters: a bucket may hold other heads, dropped here.
    if (head.length < MIN_PREFIX_LENGTH) return [];
    return this.bucket(PREFIX, headKey(head)).filter((id) => this.terms[id]!.startsWith(head));
  }

  /**
   * The seven buckets that can hold a term one edit away from `term`. An edit after the first character keeps it:
   * same first character, length ±1. An edit at the first character: deleting it leaves `second` first
   * (length − 1); swapping the first two puts `second` first; replacing it keeps `second` second; inserting before
   * it puts `first` second (length + 1).
   */
  oneEditBuckets(term: string): Array<readonly number[]> {
    const length = term.length;
    const first = term.charCodeAt(0);
    const second = term.charCodeAt(1);
    const key = (size: number, code: number) => (size >= MIN_TYPO_BUCKET_LENGTH && code >= 0 ? typoKey(size, code) : -1);
    return [
      this.bucket(FIRST, key(length - 1, first)),
      this.bucket(FIRST, key(length, first)),
      this.bucket(FIRST, key(length + 1, first)),
      this.bucket(FIRST, key(length - 1, second)),
      this.bucket(FIRST, key(length, second)),
      this.bucket(SECOND, key(length, second)),
      this.bucket(SECOND, key(length + 1, first)),
    ];
  }

  /** Makes the near-match buckets now (else at the first query that needs them). */
  prepare(): void {
    this.buckets ??= makeBuckets(this.terms);
  }

  /** The ids under `key` in the buckets of `kind`, ascending (the terms known at the first call, then later ones). */
  private bucket(kind: number, key: number): number[] {
    if (key < 0 || Number.isNaN(key)) return [];
    this.buckets ??= makeBuckets(this.terms);
    const { keys, ids } = this.buckets[kind]!;
    const found: number[] = [];
    for (let at = lowerBound(keys, key); at < keys.length && keys[at] === key; at++) found.push(ids[at]!);
    const later = this.later[kind]!.get(key);
    if (later !== undefined) found.push(...later);
    return found;
  }
}

const PREFIX = 0;
const FIRST = 1;
const SECOND = 2;
const KINDS = 3;
/** UTF-16 code units: a typo key is length × CHARS + a character's code. */
const CHARS = 65536;

/** Per kind, the keys of the terms that have one, sorted, and the term ids beside them (ascending within a key). */
type Buckets = Array<{ keys: Float64Array; ids: Int32Array }>;

/** Keys below this and ids below PACK_IDS sort as one number each (key × PACK_IDS + id, exact in a double). */
const PACK_KEYS = 2 ** 29;
const PACK_IDS = 2 ** 24;

/**
 * The bucket key of `term` for `kind`, or -1 when it has none: a 31-bit hash of its first MIN_PREFIX_LENGTH
 * characters (terms longer than that), or its length with its first or second character (terms of
 * MIN_TYPO_BUCKET_LENGTH or more, lengths below 32,768).
 */
function keyOf(term: string, kind: number): number {
  const length = term.length;
  if (kind === PREFIX) return length > MIN_PREFIX_LENGTH ? headKey(term) : -1;
  if (length < MIN_TYPO_BUCKET_LENGTH) return -1;
  return typoKey(length, term.charCodeAt(kind === FIRST ? 0 : 1));
}

function typoKey(length: number, code: number): number {
  return length * CHARS + code;
}

/** A 29-bit hash (FNV-1a over code units) of the first MIN_PREFIX_LENGTH characters of `term` (it has that many). */
function headKey(term: string): number {
  let hash = 0x811c9dc5;
  for (let at = 0; at < MIN_PREFIX_LENGTH; at++) hash = Math.imul(hash ^ term.charCodeAt(at), 0x01000193);
  return hash >>> 3;
}

function makeBuckets(terms: readonly string[]): Buckets {
  return [PREFIX, FIRST, SECOND].map((kind) => {
    const keyed = new Float64Array(terms.length);
    let count = 0;
    let packable = terms.length < PACK_IDS;
    for (let id = 0; id < terms.length; id++) {
      const key = keyOf(terms[id]!, kind);
      keyed[id] = key;
      if (key >= 0) count++;
      if (key >= PACK_KEYS) packable = false;
    }
    const ids = new Int32Array(count);
    const keys = new Float64Array(count);
    if (packable) {
      // One native numeric sort instead of a comparator call per comparison.
      const packed = new Float64Array(count);
      for (let id = 0, at = 0; id < terms.length; id++) if (keyed[id]! >= 0) packed[at++] = keyed[id]! * PACK_IDS + id;
      packed.sort();
      for (let at = 0; at < count; at++) {
        const id = packed[at]! % PACK_IDS;
        ids[at] = id;
        keys[at] = keyed[id]!;
      }
    } else {
      for (let id = 0, at = 0; id < terms.length; id++) if (keyed[id]! >= 0) ids[at++] = id;
      ids.sort((a, b) => keyed[a]! - keyed[b]! || a - b);
      for (let at = 0; at < count; at++) keys[at] = keyed[ids[at]!]!;
    }
    return { keys, ids };
  });
}

/** The first index of `sorted` whose value is at least `value`. */
function lowerBound(sorted: Float64Array, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Whether `word` should replace `current` as a term's written form (the shortest; ties by code-unit order). */
export function shorter(word: string, current: string): boolean {
  return current === '' || word.length < current.length || (word.length === current.length && word < current);
}

/** How a term reads: the word it was written as, or the term itself. */
export function writtenForm(vocabulary: Vocabulary, id: number): string {
  return vocabulary.written[id] || vocabulary.terms[id]!;
}
