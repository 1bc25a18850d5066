/**
 * Small typed arrays (a document's term list, its description's term sequence) copied into shared slabs, each one a
 * view of a slab. A typed array of its own carries a backing store of its own: ~400-550 bytes of V8 and malloc
 * bookkeeping each (100,000 arrays of 80 bytes took 63 MB resident, as views of shared slabs 13 MB), more than most
 * descriptions' terms. A slab lives while any view into it does: `wasted` says how much of the slabs handed out is no
 * longer in use, so the index packs what is into new slabs when removals left too much behind.
 */
export class Slabs<T extends Uint8Array | Int32Array> {
  #slab: T;
  #used = 0;
  /** Elements handed out since these slabs were made. */
  handedOut = 0;

  constructor(
    private readonly make: (length: number) => T,
    private readonly slabLength = 1 << 16,
  ) {
    this.#slab = make(0);
  }

  /** A copy of `values` (a view of a slab; an array of its own when large). */
  copy(values: ArrayLike<number>): T {
    const length = values.length;
    this.handedOut += length;
    if (length > this.slabLength / 8) {
      const own = this.make(length);
      own.set(values);
      return own;
    }
    if (this.#used + length > this.#slab.length) {
      this.#slab = this.make(this.slabLength);
      this.#used = 0;
    }
    const view = this.#slab.subarray(this.#used, this.#used + length) as T;
    view.set(values);
    this.#used += length;
    return view;
  }
}
