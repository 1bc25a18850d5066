/**
 * Small regression trees added to the query domain's linear margin (./query-domain.ts, ADR 0271): boosted on the
 * linear margin and a few of the deciding hit's lexical inputs, they catch what an additive decision cannot, such as a
 * weak lexical match that is fine when the query reads like the catalog's kind but not when it names a rare thing no
 * skill holds. Each tree is one line of data, written in preorder: `? INPUT THRESHOLD` splits (an input below the
 * threshold goes left, else right), `= VALUE` is a leaf.
 */

/** The inputs a tree may split on, by the names the data file uses. */
export const TREE_INPUTS = [
  'margin',
  'lexical',
  'namedUnknown',
  'otherUnknown',
  'namedUntopical',
  'otherUntopical',
  'exactShare',
  'unknownShare',
  'topicalShare',
  'missed',
  'cosine',
  // The query's word count (./query-domain.ts queryWords): a long, chatty task reads unlike a search.
  'words',
  // The query's best cosine with a spent no-fit task (./query-neighbours.ts).
  'neighbours',
  // The weights of the query's words that spent no-fit tasks use and no skill of the scope is about (./remembered-words.ts).
  'remembered',
] as const;
export type TreeInput = (typeof TREE_INPUTS)[number];

/** Nodes packed into one array: a split is [input, threshold, right child's position] (the left child follows it), a leaf [-1, value]. */
export class DecisionTrees {
  private constructor(
    readonly inputs: readonly TreeInput[],
    private readonly nodes: Float64Array,
    private readonly roots: readonly number[],
  ) {}

  get size(): number {
    return this.roots.length;
  }

  /** The trees' sum for one set of input values (in the order of `inputs`). */
  sum(values: ArrayLike<number>): number {
    let total = 0;
    for (const root of this.roots) {
      let at = root;
      while (this.nodes[at]! >= 0) at = values[this.nodes[at]!]! < this.nodes[at + 1]! ? at + 3 : this.nodes[at + 2]!;
      total += this.nodes[at + 1]!;
    }
    return total;
  }

  /**
   * Builds the trees from an `inputs` line's names and one token list per `tree` line; throws, naming the tree, on
   * an unknown input, a bad number, a split on an input not listed, or a tree that is cut short or runs on.
   */
  static parse(inputNames: readonly string[], trees: readonly (readonly string[])[]): DecisionTrees {
    for (const name of inputNames) if (!(TREE_INPUTS as readonly string[]).includes(name)) throw new Error(`decision trees: unknown input ${name}`);
    const nodes: number[] = [];
    const roots: number[] = [];
    for (const [number, tokens] of trees.entries()) {
      let next = 0;
      const fail = (why: string): never => {
        throw new Error(`decision trees: tree ${number + 1}: ${why}`);
      };
      const read = (): number => {
        const value = Number(tokens[next++]);
        if (next > tokens.length || !Number.isFinite(value)) fail('a missing or bad number');
        return value;
      };
      const node = (depth: number): void => {
        if (depth > 32) fail('deeper than 32');
        const kind = tokens[next++];
        if (kind === '=') {
          nodes.push(-1, read());
        } else if (kind === '?') {
          const input = read();
          if (!Number.isInteger(input) || input < 0 || input >= inputNames.length) fail(`no input ${input}`);
          const at = nodes.length;
          nodes.push(input, read(), 0);
          node(depth + 1);
          nodes[at + 2] = nodes.length;
          node(depth + 1);
        } else fail(kind === undefined ? 'cut short' : `unknown node ${kind}`);
      };
      roots.push(nodes.length);
      node(0);
      if (next !== tokens.length) fail('runs on past its last leaf');
    }
    return new DecisionTrees(inputNames as TreeInput[], Float64Array.from(nodes), roots);
  }
}
