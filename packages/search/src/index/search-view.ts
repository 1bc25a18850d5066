import { FieldWeights } from '../scoring/bm25f.js';

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
  /** @internal */ topical = new Map<number, boolean>();

  constructor(readonly ids: readonly string[]) {}
}
