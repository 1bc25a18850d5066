import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';

/**
 * Near-duplicate skills: a name spelled nearly the same (normalised edit distance) or a description saying nearly
 * the same thing (cosine of TF-IDF word vectors, idf from the skills compared). The measure and its thresholds are in
 * `rules/similarity.yaml`; measured on the corpus in docs/security.md.
 */
export interface SimilaritySettings {
  nameThreshold: number;
  descriptionThreshold: number;
  /** The mean of both figures, when each reaches `floor`. */
  combinedThreshold: number;
  floor: number;
  stopwords: ReadonlySet<string>;
}

export interface SkillText {
  /** How the pair is reported (a name, a path, a URI). */
  id: string;
  name: string;
  description: string;
}

export interface SimilarPair {
  a: string;
  b: string;
  /** The larger of the two figures (their mean for a `combined` pair), 0-1. */
  similarity: number;
  name: number;
  description: number;
  /** Which figure passed its threshold. */
  reason: 'name' | 'description' | 'both' | 'combined';
}

let settings: SimilaritySettings | undefined;

export function defaultSimilarity(): SimilaritySettings {
  if (settings !== undefined) return settings;
  const require = createRequire(import.meta.url);
  const file = join(dirname(require.resolve('@skillport/scan/package.json')), 'rules', 'similarity.yaml');
  const doc = parse(readFileSync(file, 'utf8')) as { thresholds: { name: number; description: number; combined: number; floor: number }; stopwords: string };
  settings = {
    nameThreshold: doc.thresholds.name,
    descriptionThreshold: doc.thresholds.description,
    combinedThreshold: doc.thresholds.combined,
    floor: doc.thresholds.floor,
    stopwords: new Set(doc.stopwords.split(/\s+/).filter((word) => word !== '')),
  };
  return settings;
}

/** 1 - edit distance / longer length, over the names lowercased with `-`, `_`, `.` and spaces removed. */
export function nameSimilarity(a: string, b: string): number {
  const s = squash(a);
  const t = squash(b);
  const longest = Math.max(s.length, t.length);
  if (longest === 0) return 1;
  return 1 - levenshtein(s, t) / longest;
}

function squash(name: string): string {
  return name.toLowerCase().replace(/[-_.\s]+/g, '');
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    previous = row;
  }
  return previous[b.length]!;
}

export function words(text: string, stopwords: ReadonlySet<string>): string[] {
  return (
    text
      .toLowerCase()
      .normalize('NFKC')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  )
    .map((word) => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word))
    .filter((word) => word.length > 1 && !stopwords.has(word));
}

/**
 * Skills indexed for comparison: each description becomes a unit TF-IDF vector (idf over the indexed skills), so a
 * pair's cosine is a dot product. `pairs` compares all of them, `similarTo` one skill (indexed or not) with the
 * indexed ones.
 *
 * Memory: a registry checks every publish against its whole catalog, and two maps a skill (its counts, then its
 * vector) took about 400 MB at 100,000 skills, the largest transient of a server's whole run. So the terms are numbered and each skill's distinct terms
 * and counts are runs in flat arrays, their unit vectors' weights another, computed in the same order and by
 * the same operations as maps of them gave, so every figure is the same to the last bit (8 bytes a term a skill).
 */
export class SimilarityIndex {
  readonly #skills: SkillText[] = [];
  /** Term → its number. */
  readonly #ids = new Map<string, number>();
  /** Each skill's distinct terms, in the order they first occur, and their counts: skill i at starts[i] .. starts[i + 1]. */
  #terms = new Int32Array(256);
  #counts = new Int32Array(256);
  #starts = new Int32Array(16);
  #used = 0;
  /** The idf of each term over the indexed skills and each skill's unit vector (undefined until the next comparison). */
  #built: Built | undefined;
  readonly settings: SimilaritySettings;

  constructor(skills: readonly SkillText[] = [], options: Partial<SimilaritySettings> = {}) {
    this.settings = { ...defaultSimilarity(), ...options };
    for (const skill of skills) this.add(skill);
  }

  add(skill: SkillText): void {
    const counts = termCounts(words(skill.description, this.settings.stopwords));
    const at = this.#skills.length;
    this.#skills.push(skill);
    if (at + 2 > this.#starts.length) this.#starts = grown(this.#starts, at + 2);
    if (this.#used + counts.size > this.#terms.length) {
      this.#terms = grown(this.#terms, this.#used + counts.size);
      this.#counts = grown(this.#counts, this.#used + counts.size);
    }
    for (const [term, count] of counts) {
      let id = this.#ids.get(term);
      if (id === undefined) this.#ids.set(term, (id = this.#ids.size));
      this.#terms[this.#used] = id;
      this.#counts[this.#used++] = count;
    }
    this.#starts[at + 1] = this.#used;
    this.#built = undefined;
  }

  get size(): number {
    return this.#skills.length;
  }

  #build(): Built {
    if (this.#built !== undefined) return this.#built;
    const df = new Int32Array(this.#ids.size);
    for (let at = 0; at < this.#used; at++) df[this.#terms[at]!]!++;
    const n = this.#skills.length;
    const idf = new Float64Array(df.length);
    for (let term = 0; term < df.length; term++) idf[term] = Math.log((1 + n) / (1 + df[term]!)) + 1;
    const weights = new Float64Array(this.#used);
    for (let skill = 0; skill < n; skill++) {
      const start = this.#starts[skill]!;
      const end = this.#starts[skill + 1]!;
      let norm = 0;
      for (let at = start; at < end; at++) {
        const weight = (1 + Math.log(this.#counts[at]!)) * idf[this.#terms[at]!]!;
        weights[at] = weight;
        norm += weight * weight;
      }
      norm = Math.sqrt(norm);
      if (norm > 0) for (let at = start; at < end; at++) weights[at] = weights[at]! / norm;
    }
    this.#built = { idf, weights };
    return this.#built;
  }

  /** Skill `skill`'s unit vector, its terms in the order they first occur. */
  #vectorOf(skill: number, built: Built): Vector {
    const start = this.#starts[skill]!;
    const end = this.#starts[skill + 1]!;
    return { terms: this.#terms.subarray(start, end), weights: built.weights.subarray(start, end) };
  }

  /** The unit vector of a description not indexed: terms no indexed skill holds are numbered -1 (they meet nothing). */
  #vectorOfText(description: string, built: Built): Vector {
    const counts = termCounts(words(description, this.settings.stopwords));
    const unseen = Math.log(1 + this.#skills.length) + 1;
    const terms = new Int32Array(counts.size);
    const weights = new Float64Array(counts.size);
    let norm = 0;
    let at = 0;
    for (const [term, count] of counts) {
      const id = this.#ids.get(term) ?? -1;
      const weight = (1 + Math.log(count)) * (id >= 0 ? built.idf[id]! : unseen);
      terms[at] = id;
      weights[at++] = weight;
      norm += weight * weight;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < weights.length; i++) weights[i] = weights[i]! / norm;
    return { terms, weights };
  }

  /** Every pair over a threshold, most similar first. */
  pairs(): SimilarPair[] {
    const built = this.#build();
    const dot = new Dot(this.#ids.size);
    const out: SimilarPair[] = [];
    for (let i = 0; i < this.#skills.length; i++) {
      const vi = this.#vectorOf(i, built);
      for (let j = i + 1; j < this.#skills.length; j++) {
        const pair = this.#judge(this.#skills[i]!, vi, this.#skills[j]!, this.#vectorOf(j, built), dot);
        if (pair) out.push(pair);
      }
    }
    return out.sort((x, y) => y.similarity - x.similarity || x.a.localeCompare(y.a) || x.b.localeCompare(y.b));
  }

  /** The indexed skills close to `skill` (skills with the same id are skipped), most similar first. */
  similarTo(skill: SkillText, options: { limit?: number; all?: boolean } = {}): SimilarPair[] {
    const built = this.#build();
    const vector = this.#vectorOfText(skill.description, built);
    const dot = new Dot(this.#ids.size);
    const out: SimilarPair[] = [];
    this.#skills.forEach((other, index) => {
      if (other.id === skill.id) return;
      const pair = this.#judge(skill, vector, other, this.#vectorOf(index, built), dot, options.all === true);
      if (pair) out.push(pair);
    });
    out.sort((x, y) => y.similarity - x.similarity || x.b.localeCompare(y.b));
    return options.limit === undefined ? out : out.slice(0, options.limit);
  }

  #judge(a: SkillText, va: Vector, b: SkillText, vb: Vector, dot: Dot, all = false): SimilarPair | undefined {
    const name = nameSimilarity(a.name, b.name);
    const description = dot.cosine(va, vb);
    const byName = name >= this.settings.nameThreshold;
    const byDescription = description >= this.settings.descriptionThreshold;
    const combined = Math.min(name, description) >= this.settings.floor && (name + description) / 2 >= this.settings.combinedThreshold;
    if (!all && !byName && !byDescription && !combined) return undefined;
    if (all && name < 0.5 && description < 0.3) return undefined;
    return {
      a: a.id,
      b: b.id,
      similarity: round(byName || byDescription ? Math.max(name, description) : (name + description) / 2),
      name: round(name),
      description: round(description),
      reason: byName && byDescription ? 'both' : byName ? 'name' : byDescription ? 'description' : 'combined',
    };
  }
}

/** Per term its idf; per skill's run of terms (starts), their weights in its unit vector. */
interface Built {
  idf: Float64Array;
  weights: Float64Array;
}

/** A unit vector: term numbers (-1: a term no indexed skill holds) and their weights, in the order the terms first occur. */
interface Vector {
  terms: Int32Array;
  weights: Float64Array;
}

/** Dot products of sparse vectors through one dense scratch array (left all zero between calls). */
class Dot {
  readonly #dense: Float64Array;

  constructor(terms: number) {
    this.#dense = new Float64Array(terms);
  }

  /** Walks the vector with fewer terms (the first on a tie), summing in its order, as a walk of one map looking up the other would. */
  cosine(a: Vector, b: Vector): number {
    const [small, large] = a.terms.length <= b.terms.length ? [a, b] : [b, a];
    const dense = this.#dense;
    for (let at = 0; at < large.terms.length; at++) if (large.terms[at]! >= 0) dense[large.terms[at]!] = large.weights[at]!;
    let dot = 0;
    for (let at = 0; at < small.terms.length; at++) {
      const term = small.terms[at]!;
      dot += small.weights[at]! * (term >= 0 ? dense[term]! : 0);
    }
    for (let at = 0; at < large.terms.length; at++) if (large.terms[at]! >= 0) dense[large.terms[at]!] = 0;
    return Math.min(1, dot);
  }
}

function grown(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(Math.max(size, array.length * 2));
  bigger.set(array);
  return bigger;
}

function termCounts(list: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of list) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
