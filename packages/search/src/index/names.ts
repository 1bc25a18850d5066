import { nameKey } from '../analysis/words.js';
import { compareText, lowerBound } from '../scoring/order.js';

/**
 * Pending names are scanned by each lookup until there are this many, or more than a sixteenth of the sorted ones:
 * sorting them in at every lookup after a change cost a copy of every name (tens of ms at 100,000 skills).
 */
const PENDING_SCANNED = 4096;

/**
 * Skill names, for the name bonus: a query equal to a skill's name (case, punctuation and separators ignored: `PDF`
 * ↔ `pdf`, `slack gif creator` ↔ `slack-gif-creator`), or the start of one at a word boundary (`slack gif` →
 * `slack-gif-creator`). Keys are the names' lowercase words joined by single spaces (../analysis/words.ts, nameKey).
 *
 * Removed names are left as holes (slot -1) until the next renumbering, so that neither a removal nor a merge copies
 * a list of every name; slots are per-slot arrays, so a renumbering is one pass over numbers.
 */
export class NameIndex {
  /** Compact name key (no spaces) → its newest entry; entries chain to older ones with the same key. */
  private exactHead = new Map<string, number>();
  private exactSlot: Int32Array = new Int32Array(16);
  private exactNext: Int32Array = new Int32Array(16);
  private exactCount = 0;
  private exactHoles = 0;
  /** Name keys, sorted (ties in the order added), with their slots: for the name-prefix bonus. */
  private sortedKeys: string[] = [];
  private sortedSlots: Int32Array = new Int32Array(0);
  private sortedHoles = 0;
  /** Name keys added since the sorted ones were last brought up to date, in the order added. */
  private pendingKeys: string[] = [];
  private pendingSlots: number[] = [];

  add(name: string, slot: number): void {
    const key = nameKey(name);
    if (key === '') return;
    const compact = key.replace(/ /g, '');
    if (this.exactCount === this.exactSlot.length) {
      this.exactSlot = grown(this.exactSlot);
      this.exactNext = grown(this.exactNext);
    }
    const entry = this.exactCount++;
    this.exactSlot[entry] = slot;
    this.exactNext[entry] = this.exactHead.get(compact) ?? -1;
    this.exactHead.set(compact, entry);
    this.pendingKeys.push(key);
    this.pendingSlots.push(slot);
  }

  remove(name: string, slot: number): void {
    const key = nameKey(name);
    if (key === '') return;
    for (let entry = this.exactHead.get(key.replace(/ /g, '')) ?? -1; entry >= 0; entry = this.exactNext[entry]!) {
      if (this.exactSlot[entry] !== slot) continue;
      this.exactSlot[entry] = -1;
      this.exactHoles++;
      break;
    }
    const pending = this.pendingSlots.lastIndexOf(slot);
    if (pending >= 0 && this.pendingKeys[pending] === key) {
      this.pendingKeys.splice(pending, 1);
      this.pendingSlots.splice(pending, 1);
      return;
    }
    for (let at = lowerBound(this.sortedKeys, key); at < this.sortedKeys.length && this.sortedKeys[at] === key; at++) {
      if (this.sortedSlots[at] !== slot) continue;
      this.sortedSlots[at] = -1;
      this.sortedHoles++;
      break;
    }
  }

  /** After a merge renumbered the slots (`renumber`: old slot → new one; every slot named here is live). */
  renumber(renumber: Int32Array): void {
    this.flush();
    const map = (slots: Int32Array, count: number): void => {
      for (let at = 0; at < count; at++) if (slots[at]! >= 0) slots[at] = renumber[slots[at]!]!;
    };
    map(this.sortedSlots, this.sortedKeys.length);
    map(this.exactSlot, this.exactCount);
    if (this.exactHoles > 0) this.closeExactHoles();
  }

  /** Sorts in the pending names now (a restored index's, at once), so that the first lookup does not. */
  prepare(): void {
    this.flush();
  }

  /** Calls `visit(slot, exact)` for each skill the query text names: whole (exact) or by the start of its name. */
  forEachNamed(text: string, visit: (slot: number, exact: boolean) => void): void {
    const key = nameKey(text);
    if (key === '') return;
    const pendingCount = this.pendingKeys.length;
    if (pendingCount > PENDING_SCANNED || pendingCount * 16 > this.sortedKeys.length) this.flush();
    // Exact names, in the order added (the chain runs newest first).
    const exact: number[] = [];
    for (let entry = this.exactHead.get(key.replace(/ /g, '')) ?? -1; entry >= 0; entry = this.exactNext[entry]!) {
      if (this.exactSlot[entry]! >= 0) exact.push(this.exactSlot[entry]!);
    }
    for (let at = exact.length - 1; at >= 0; at--) visit(exact[at]!, true);
    // Names starting with the key: the sorted ones and the pending ones, merged as if the pending ones were sorted in.
    const prefix = `${key} `;
    const keys = this.pendingKeys;
    const pending: number[] = [];
    for (let at = 0; at < keys.length; at++) if (keys[at]!.startsWith(prefix)) pending.push(at);
    if (pending.length > 1) pending.sort((a, b) => compareText(keys[a]!, keys[b]!) || a - b);
    let next = 0;
    for (let at = lowerBound(this.sortedKeys, prefix); at < this.sortedKeys.length; at++) {
      const sortedKey = this.sortedKeys[at]!;
      if (!sortedKey.startsWith(prefix)) break;
      while (next < pending.length && compareText(keys[pending[next]!]!, sortedKey) < 0) visit(this.pendingSlots[pending[next++]!]!, false);
      const slot = this.sortedSlots[at]!;
      if (slot >= 0) visit(slot, false);
    }
    while (next < pending.length) visit(this.pendingSlots[pending[next++]!]!, false);
  }

  /**
   * Sorts the pending name keys into the sorted ones (each after the keys equal to it, in the order added), leaving
   * out the holes of removed names.
   */
  private flush(): void {
    const count = this.pendingKeys.length;
    if (count === 0 && this.sortedHoles === 0) return;
    const keys = this.pendingKeys;
    const slots = this.pendingSlots;
    const order = Array.from({ length: count }, (_, at) => at).sort((a, b) => compareText(keys[a]!, keys[b]!) || a - b);
    const sortedKeys = this.sortedKeys;
    const sortedSlots = this.sortedSlots;
    const size = sortedKeys.length - this.sortedHoles + count;
    const mergedKeys: string[] = new Array(size);
    const mergedSlots = new Int32Array(size);
    let from = 0;
    let to = 0;
    const copyUpTo = (key: string | undefined): void => {
      for (; from < sortedKeys.length && (key === undefined || compareText(sortedKeys[from]!, key) <= 0); from++) {
        if (sortedSlots[from]! < 0) continue;
        mergedKeys[to] = sortedKeys[from]!;
        mergedSlots[to++] = sortedSlots[from]!;
      }
    };
    for (const at of order) {
      const key = keys[at]!;
      copyUpTo(key);
      mergedKeys[to] = key;
      mergedSlots[to++] = slots[at]!;
    }
    copyUpTo(undefined);
    this.sortedKeys = mergedKeys;
    this.sortedSlots = mergedSlots;
    this.sortedHoles = 0;
    this.pendingKeys = [];
    this.pendingSlots = [];
  }

  /** Drops removed names from the exact chains (each chain keeps its order). */
  private closeExactHoles(): void {
    const size = Math.max(16, this.exactCount - this.exactHoles);
    const slots = new Int32Array(size);
    const next = new Int32Array(size);
    let count = 0;
    const chain: number[] = [];
    for (const [key, head] of this.exactHead) {
      chain.length = 0;
      for (let entry = head; entry >= 0; entry = this.exactNext[entry]!) if (this.exactSlot[entry]! >= 0) chain.push(this.exactSlot[entry]!);
      if (chain.length === 0) {
        this.exactHead.delete(key);
        continue;
      }
      // Oldest first, each entry chained to the one before it: the head is the newest, as when they were added.
      let previous = -1;
      for (let at = chain.length - 1; at >= 0; at--) {
        slots[count] = chain[at]!;
        next[count] = previous;
        previous = count++;
      }
      this.exactHead.set(key, previous);
    }
    this.exactSlot = slots;
    this.exactNext = next;
    this.exactCount = count;
    this.exactHoles = 0;
  }
}

function grown(values: Int32Array): Int32Array {
  const bigger = new Int32Array(values.length * 2);
  bigger.set(values);
  return bigger;
}
