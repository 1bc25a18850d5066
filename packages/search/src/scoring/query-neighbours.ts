import { readDataFile } from '../data.js';

/**
 * How close a query comes to a spent task no skill serves (ADR 0271): the best cosine of its word vector
 * with those of the fitting sets' no-fit tasks. Writers of new tasks reuse the same everyday, off-domain and near-miss
 * topics in words no lexical feature weighs alike, and the nearest one tells them apart where the linear direction does
 * not. Only no-fit tasks are kept: a nearness to spent positives would favour the skills earlier query sets asked
 * about, not the catalog being searched. The vectors are data (query-neighbours.txt, written by
 * bench/blind/fit-domain.mjs beside query-domain.txt): one `SCALE BASE64` line per task, its unit vector as signed
 * bytes (value = byte × scale).
 */
export const QUERY_NEIGHBOURS_FILE = 'query-neighbours.txt';

export class QueryNeighbours {
  private constructor(
    readonly dimensions: number,
    private readonly vectors: Float32Array,
  ) {}

  get size(): number {
    return this.vectors.length / this.dimensions;
  }

  /** The best cosine of a unit query vector with a stored task (-1..1); 0 for a vector of another size. */
  nearest(queryVector: ArrayLike<number>): number {
    if (queryVector.length !== this.dimensions) return 0;
    let best = -1;
    const d = this.dimensions;
    for (let at = 0; at < this.vectors.length; at += d) {
      let c = 0;
      for (let i = 0; i < d; i++) c += this.vectors[at + i]! * queryVector[i]!;
      if (c > best) best = c;
    }
    return best;
  }

  /** Reads `SCALE BASE64` lines (`#` starts a comment); throws, naming the line, on anything else. */
  static parse(text: string): QueryNeighbours {
    const rows: Float32Array[] = [];
    for (const [at, raw] of text.split('\n').entries()) {
      const line = raw.replace(/#.*/, '').trim();
      if (line === '') continue;
      const [scaleText, packed, ...rest] = line.split(/\s+/);
      const scale = Number(scaleText);
      if (packed === undefined || rest.length > 0 || !Number.isFinite(scale) || scale <= 0 || !/^[A-Za-z0-9+/]+=*$/.test(packed)) {
        throw new Error(`query neighbours: line ${at + 1} is not "SCALE BASE64"`);
      }
      const bytes = Buffer.from(packed, 'base64');
      const dimensions = rows[0]?.length ?? bytes.length;
      if (bytes.length === 0 || bytes.length !== dimensions) throw new Error(`query neighbours: line ${at + 1} has ${bytes.length} numbers, not ${dimensions}`);
      const signed = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
      rows.push(Float32Array.from(signed, (byte) => byte * scale));
    }
    const first = rows[0];
    if (first === undefined) throw new Error('query neighbours: no vectors');
    const vectors = new Float32Array(rows.length * first.length);
    rows.forEach((row, i) => vectors.set(row, i * first.length));
    return new QueryNeighbours(first.length, vectors);
  }

  /** A unit vector as a data line (what parse reads back). */
  static pack(vector: ArrayLike<number>): string {
    let max = 0;
    for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!));
    const scale = Number((max > 0 ? max / 127 : 1).toPrecision(6));
    const bytes = new Int8Array(vector.length);
    for (let i = 0; i < vector.length; i++) bytes[i] = Math.max(-127, Math.min(127, Math.round(vector[i]! / scale)));
    return `${scale} ${Buffer.from(bytes.buffer).toString('base64')}`;
  }

  private static shipped: QueryNeighbours | null | undefined;

  /** The shipped vectors, read once; undefined when the file is missing or damaged. */
  static bundled(): QueryNeighbours | undefined {
    if (QueryNeighbours.shipped === undefined) {
      try {
        QueryNeighbours.shipped = QueryNeighbours.parse(readDataFile(QUERY_NEIGHBOURS_FILE));
      } catch {
        QueryNeighbours.shipped = null;
      }
    }
    return QueryNeighbours.shipped ?? undefined;
  }
}
