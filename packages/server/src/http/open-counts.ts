/**
 * Open things (answers in progress, subscription streams) counted per key (a client address, a principal), each
 * key capped: `take` gives a release function, or undefined when the key already holds `max`.
 */
export class OpenCounts {
  #open = new Map<string, number>();

  constructor(readonly max: number) {}

  take(key: string): (() => void) | undefined {
    const open = this.#open.get(key) ?? 0;
    if (open >= this.max) return undefined;
    this.#open.set(key, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(key) ?? 1) - 1;
      if (left <= 0) this.#open.delete(key);
      else this.#open.set(key, left);
    };
  }

  /** How many `key` holds now. */
  count(key: string): number {
    return this.#open.get(key) ?? 0;
  }
}
