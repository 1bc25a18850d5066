// The baseline every ranking change must beat (issue 19, item 3): a plain BM25F over name, description and the
// whole SKILL.md body, with light stemming, written apart from packages/search/src/index/skill-index.ts and sharing nothing
// with it. No near matches, no expansion, no bonuses: what any search library would give out of the box.
//
// Words: lowercase runs of letters and digits (Unicode), ~30 function words dropped, then light stemming (plural
// -s/-es/-ies, -ing, -ed). Fields and weights: name 3, description 2, body 1; b = 0.75 for each field, k1 = 1.2,
// idf = ln(1 + (N - df + 0.5) / (df + 0.5)). Ties by name, then id.

const FUNCTION_WORDS = new Set(
  'a an the and or of to in on for with by at as from into is are be was were it its this that these those my me i we our you your how what which'.split(' '),
);
const FIELDS = [
  { key: 'name', weight: 3 },
  { key: 'description', weight: 2 },
  { key: 'body', weight: 1 },
];
const K1 = 1.2;
const B = 0.75;

export function stem(word) {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|us|is)$/.test(word)) return word;
  if (/(?:ch|sh|x|z|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s')) return word.slice(0, -1);
  if (word.endsWith('ing') && word.length > 5) return word.slice(0, -3);
  if (word.endsWith('ed') && word.length > 4) return word.slice(0, -2);
  return word;
}

export function tokens(text) {
  return (
    String(text)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  )
    .filter((word) => !FUNCTION_WORDS.has(word))
    .map(stem);
}

export class BM25FBaseline {
  constructor(docs) {
    this.docs = docs.map((doc) => ({ id: doc.id, name: doc.name }));
    const lengths = FIELDS.map(() => new Float64Array(docs.length));
    const counts = docs.map((doc, at) =>
      FIELDS.map(({ key }, f) => {
        const words = tokens(doc[key] ?? '');
        lengths[f][at] = words.length;
        const perTerm = new Map();
        for (const word of words) perTerm.set(word, (perTerm.get(word) ?? 0) + 1);
        return perTerm;
      }),
    );
    const average = lengths.map((perDoc) => perDoc.reduce((sum, length) => sum + length, 0) / Math.max(1, docs.length) || 1);
    this.postings = new Map(); // term → [doc, saturated tf][]
    counts.forEach((fields, doc) => {
      const tf = new Map();
      fields.forEach((perTerm, f) => {
        const norm = 1 - B + (B * lengths[f][doc]) / average[f];
        for (const [term, count] of perTerm) tf.set(term, (tf.get(term) ?? 0) + (FIELDS[f].weight * count) / norm);
      });
      for (const [term, value] of tf) {
        let list = this.postings.get(term);
        if (list === undefined) this.postings.set(term, (list = []));
        list.push([doc, value / (K1 + value)]);
      }
    });
    this.count = docs.length;
  }

  search(query, limit = 10) {
    const scores = new Map();
    for (const term of new Set(tokens(query))) {
      const list = this.postings.get(term);
      if (list === undefined) continue;
      const idf = Math.log(1 + (this.count - list.length + 0.5) / (list.length + 0.5));
      for (const [doc, value] of list) scores.set(doc, (scores.get(doc) ?? 0) + idf * value);
    }
    const compare = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
    return [...scores]
      .sort(([a, x], [b, y]) => y - x || compare(this.docs[a].name, this.docs[b].name) || compare(this.docs[a].id, this.docs[b].id))
      .slice(0, limit)
      .map(([doc, score]) => ({ id: this.docs[doc].id, score }));
  }
}
