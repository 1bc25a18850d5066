import { nameKey } from '../analysis/words.js';
import { compareText, lowerBound } from '../scoring/order.js';

/**
 * Skill names, for the name bonus: a query equal to a skill's name (case, punctuation and separators ignored: `PDF`
 * ↔ `pdf`, `slack gif creator` ↔ `slack-gif-creator`), or the start of one at a word boundary (`slack gif` →
 * `slack-gif-creator`). Keys are the names' lowercase words joined by single spaces (../analysis/words.ts, nameKey).
 */
export class NameIndex {
  /** Compact name key (no spaces) → slots, for the exact-name bonus. */
  private exact = new Map<string, number[]>();
  /** Name keys, sorted, with their slots: for the name-prefix bonus. */
  private sortedKeys: string[] = [];
  private sortedDocs: number[] = [];
  /**
   * Name keys of documents added since the sorted ones were last brought up to date (sorted in at the next query or
   * merge): inserting each one in the sorted arrays cost a copy of half of them per document, quadratic for a build.
   */
  private pendingKeys: string[] = [];
  private pendingDocs: number[] = [];

  add(name: string, slot: number): void {
    const key = nameKey(name);
    if (key === '') return;
    addTo(this.exact, key.replace(/ /g, ''), slot);
    this.pendingKeys.push(key);
    this.pendingDocs.push(slot);
  }

  remove(name: string, slot: number): void {
    const key = nameKey(name);
    if (key === '') return;
    const compact = key.replace(/ /g, '');
    const same = this.exact.get(compact)!;
    same.splice(same.indexOf(slot), 1);
    if (same.length === 0) this.exact.delete(compact);
    const pending = this.pendingDocs.lastIndexOf(slot);
    if (pending >= 0) {
      this.pendingKeys.splice(pending, 1);
      this.pendingDocs.splice(pending, 1);
    } else {
      let at = lowerBound(this.sortedKeys, key);
      while (this.sortedDocs[at] !== slot) at++;
      this.sortedKeys.splice(at, 1);
      this.sortedDocs.splice(at, 1);
    }
  }

  /** After a merge renumbered the slots (`renumber`: old slot → new one; every slot named here is live). */
  renumber(renumber: Int32Array): void {
    this.flush();
    for (const [key, list] of this.exact)
      this.exact.set(
        key,
        list.map((slot) => renumber[slot]!),
      );
    this.sortedDocs = this.sortedDocs.map((slot) => renumber[slot]!);
  }

  /** Calls `visit(slot, exact)` for each skill the query text names: whole (exact) or by the start of its name. */
  forEachNamed(text: string, visit: (slot: number, exact: boolean) => void): void {
    const key = nameKey(text);
    if (key === '') return;
    this.flush();
    for (const slot of this.exact.get(key.replace(/ /g, '')) ?? []) visit(slot, true);
    const prefix = `${key} `;
    for (let at = lowerBound(this.sortedKeys, prefix); at < this.sortedKeys.length; at++) {
      if (!this.sortedKeys[at]!.startsWith(prefix)) break;
      visit(this.sortedDocs[at]!, false);
    }
  }

  /**
   * Sorts the pending name keys into the sorted ones: each after the keys equal to it, in the order added (as
   * inserting each at its upper bound when added would have).
   */
  private flush(): void {
    const count = this.pendingKeys.length;
    if (count === 0) return;
    const keys = this.pendingKeys;
    const docs = this.pendingDocs;
    const order = Array.from({ length: count }, (_, at) => at).sort((a, b) => compareText(keys[a]!, keys[b]!) || a - b);
    const sortedKeys = this.sortedKeys;
    const sortedDocs = this.sortedDocs;
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
    this.sortedKeys = mergedKeys;
    this.sortedDocs = mergedDocs;
    this.pendingKeys = [];
    this.pendingDocs = [];
  }
}

function addTo(map: Map<string, number[]>, key: string, id: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [id]);
  else list.push(id);
}
