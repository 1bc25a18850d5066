import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SentenceEncoder, rerankByMeaning, skillSentence, unit } from '@skillport/search';
import type { SearchHit } from '@skillport/search';
import type { CatalogSkill } from '../catalog/model.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';

/**
 * `serve --embeddings builtin` (ADR 0280): list_skills's lexical hits reordered by the cosine of the query's and each
 * skill's sentence vector (@skillport/search's SentenceEncoder, shipped in npm, in a worker thread). Skills are
 * embedded in the background, one at a time, from the first search on, and kept by package digest in memory and
 * under `<cacheDir>/sentences/` (a restart embeds only what changed). Until every hit of a query has a vector, or when
 * the query cannot be embedded within QUERY_TIMEOUT_MS, the lexical order is served: a ranking never depends on how far
 * the encoder has got.
 */
export interface SkillMeaningOptions {
  cacheDir?: string | undefined;
  /** A shared or test encoder; default: one of its own, started on the first search. */
  encoder?: SentenceEncoder;
}

/** How long a query's vector may take once the model is loaded, and the model's load (once, at the first search). */
const QUERY_TIMEOUT_MS = 3000;
const LOAD_TIMEOUT_MS = 60_000;
/** Vectors are this format's (Universal Sentence Encoder lite, 512 float32); another model or text gets another folder. */
const CACHE_VERSION = 'use-lite-1';
const DIMENSIONS = 512;

export class SkillMeaning {
  private readonly encoder: SentenceEncoder;
  private readonly vectors = new Map<string, Float32Array>();
  /** Digests with no vector on disk: looked for once, not at every new snapshot. */
  private readonly absent = new Set<string>();
  private readonly dir: string | undefined;
  private readonly followed = new WeakSet<CatalogSnapshot>();
  private queue: CatalogSkill[] = [];
  private head = 0;
  /** The digests in `queue` or being embedded. */
  private readonly queued = new Set<string>();
  private embedding = false;
  private broken = false;

  constructor(options: SkillMeaningOptions = {}) {
    this.encoder = options.encoder ?? new SentenceEncoder();
    this.dir = options.cacheDir === undefined ? undefined : join(options.cacheDir, 'sentences', CACHE_VERSION);
  }

  /** How many skills have a vector (in memory). */
  get embedded(): number {
    return this.vectors.size;
  }

  /** `hits` (lexical, best first, skill URIs as ids) reordered by meaning when every one has a vector, else as they are. */
  async rerank(snapshot: CatalogSnapshot, query: string, hits: readonly SearchHit[]): Promise<SearchHit[]> {
    this.follow(snapshot);
    if (this.broken || hits.length < 2) return [...hits];
    const vectorOf = (uri: string) => {
      const skill = snapshot.skill(uri);
      return skill === undefined ? undefined : this.cached(skill.packageDigest);
    };
    if (hits.some((hit) => vectorOf(hit.id) === undefined)) return [...hits];
    try {
      if (
        (await within(
          this.encoder.ready().then(() => true),
          LOAD_TIMEOUT_MS,
        )) === undefined
      )
        return [...hits];
      const vectors = await within(this.encoder.embed([query], true), QUERY_TIMEOUT_MS);
      return vectors === undefined ? [...hits] : rerankByMeaning(hits, vectors[0]!, vectorOf);
    } catch {
      return [...hits];
    }
  }

  async close(): Promise<void> {
    this.queue = [];
    this.head = 0;
    this.queued.clear();
    await this.encoder.close();
  }

  /** Queues the snapshot's skills that have no vector yet (a principal's view queues only what it sees). */
  private follow(snapshot: CatalogSnapshot): void {
    if (this.broken || this.followed.has(snapshot)) return;
    this.followed.add(snapshot);
    for (const skill of snapshot.skills) {
      if (this.queued.has(skill.packageDigest) || this.cached(skill.packageDigest) !== undefined) continue;
      this.queued.add(skill.packageDigest);
      this.queue.push(skill);
    }
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.embedding) return;
    this.embedding = true;
    try {
      // Taken from the front by position (a shift per skill would copy the whole queue each time at 100,000).
      for (let skill = this.next(); skill !== undefined; skill = this.next()) {
        if (this.cached(skill.packageDigest) === undefined) {
          const [vector] = await this.encoder.embed([skillSentence(skill.name, skill.description)]);
          this.store(skill.packageDigest, vector!);
        }
        this.queued.delete(skill.packageDigest);
      }
    } catch {
      // The model cannot load or run: lexical ranking from now on.
      this.broken = true;
      this.queue = [];
      this.head = 0;
      this.queued.clear();
    } finally {
      this.embedding = false;
    }
  }

  private next(): CatalogSkill | undefined {
    if (this.head >= this.queue.length) {
      this.queue = [];
      this.head = 0;
      return undefined;
    }
    const skill = this.queue[this.head++];
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return skill;
  }

  private cached(digest: string): Float32Array | undefined {
    const known = this.vectors.get(digest);
    if (known !== undefined || this.dir === undefined || this.absent.has(digest)) return known;
    this.absent.add(digest);
    try {
      const bytes = readFileSync(join(this.dir, `${fileName(digest)}.f32`));
      if (bytes.length !== DIMENSIONS * 4) return undefined;
      const vector = unit(new Float32Array(bytes.buffer, bytes.byteOffset, DIMENSIONS));
      if (vector !== undefined) {
        this.vectors.set(digest, vector);
        this.absent.delete(digest);
      }
      return vector;
    } catch {
      return undefined;
    }
  }

  private store(digest: string, vector: Float32Array): void {
    this.vectors.set(digest, vector);
    this.absent.delete(digest);
    if (this.dir === undefined || vector.length !== DIMENSIONS) return;
    try {
      mkdirSync(this.dir, { recursive: true });
      const path = join(this.dir, `${fileName(digest)}.f32`);
      writeFileSync(`${path}.${process.pid}.tmp`, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
      renameSync(`${path}.${process.pid}.tmp`, path);
    } catch {
      // A cache that cannot be written costs a re-embedding next run, nothing more.
    }
  }
}

/** `work`'s value, or undefined once `ms` have passed. */
async function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function fileName(digest: string): string {
  return digest.replace(/[^A-Za-z0-9_-]/g, '_');
}
