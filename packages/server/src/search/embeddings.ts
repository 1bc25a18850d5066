import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CatalogSkill } from '../catalog/model.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';

/**
 * Optional meaning-based ranking for list_skills (`serve --embeddings URL`): an OpenAI-compatible `/v1/embeddings`
 * endpoint (a hosted API, Ollama, llama.cpp's server, text-embeddings-inference) embeds each skill's name,
 * description and headings once, and each query; skills are ranked by cosine similarity and fused with the lexical
 * ranking by reciprocal-rank fusion (`fuseRankings`). Nothing here is needed for search: when the endpoint is down,
 * slow (TIMEOUT_MS) or answers badly, the lexical results are served alone.
 *
 * Vectors are cached by skill package digest (and endpoint + model): in memory per process, and on disk under
 * `<cacheDir>/embeddings/` when the server has a cache directory, so a restart or a reload embeds only what changed.
 */
export interface EmbeddingsOptions {
  /** The endpoint: a base URL (`http://127.0.0.1:11434/v1`) or the full `.../embeddings` URL. */
  url: string;
  model: string;
  /** Where vectors are kept between runs; undefined: memory only. */
  cacheDir?: string | undefined;
  timeoutMs?: number;
}

const TIMEOUT_MS = 5000;
const BATCH = 64;
/** Reciprocal-rank fusion constant (the usual 60): a rank r contributes 1 / (K + r). */
const RRF_K = 60;

export class SkillEmbeddings {
  private readonly endpoint: string;
  private readonly vectors = new Map<string, Float32Array>();
  private readonly dir: string | undefined;
  private readonly perSnapshot = new WeakMap<CatalogSnapshot, Promise<Map<string, Float32Array> | undefined>>();

  constructor(private readonly options: EmbeddingsOptions) {
    const base = options.url.replace(/\/+$/, '');
    this.endpoint = base.endsWith('/embeddings') ? base : `${base}/embeddings`;
    const key = createHash('sha256').update(`${this.endpoint}\n${options.model}`).digest('hex').slice(0, 16);
    this.dir = options.cacheDir === undefined ? undefined : join(options.cacheDir, 'embeddings', key);
  }

  /** Skill URIs by similarity to `query`, best first; undefined when the endpoint cannot answer (use lexical only). */
  async rank(snapshot: CatalogSnapshot, query: string, limit: number): Promise<string[] | undefined> {
    let skills = this.perSnapshot.get(snapshot);
    if (skills === undefined) {
      skills = this.embedSkills(snapshot.skills).catch(() => undefined);
      this.perSnapshot.set(snapshot, skills);
      // A failed build is retried on a later query rather than remembered.
      void skills.then((done) => done === undefined && this.perSnapshot.delete(snapshot));
    }
    const vectors = await skills;
    if (vectors === undefined) return undefined;
    let wanted: Float32Array;
    try {
      [wanted] = (await this.request([query])) as [Float32Array];
    } catch {
      return undefined;
    }
    return [...vectors]
      .map(([uri, vector]) => [uri, cosine(wanted, vector)] as const)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, limit)
      .map(([uri]) => uri);
  }

  private async embedSkills(skills: readonly CatalogSkill[]): Promise<Map<string, Float32Array>> {
    const result = new Map<string, Float32Array>();
    const missing: CatalogSkill[] = [];
    for (const skill of skills) {
      const vector = this.cached(skill.packageDigest);
      if (vector === undefined) missing.push(skill);
      else result.set(skill.uri, vector);
    }
    for (let at = 0; at < missing.length; at += BATCH) {
      const batch = missing.slice(at, at + BATCH);
      const vectors = await this.request(batch.map((skill) => [skill.name, skill.description, ...skill.headings].join('\n')));
      batch.forEach((skill, index) => {
        result.set(skill.uri, vectors[index]!);
        this.store(skill.packageDigest, vectors[index]!);
      });
    }
    return result;
  }

  private cached(digest: string): Float32Array | undefined {
    const known = this.vectors.get(digest);
    if (known !== undefined || this.dir === undefined) return known;
    try {
      const vector = Float32Array.from(JSON.parse(readFileSync(join(this.dir, `${fileName(digest)}.json`), 'utf8')) as number[]);
      this.vectors.set(digest, vector);
      return vector;
    } catch {
      return undefined;
    }
  }

  private store(digest: string, vector: Float32Array): void {
    this.vectors.set(digest, vector);
    if (this.dir === undefined) return;
    try {
      mkdirSync(this.dir, { recursive: true });
      const path = join(this.dir, `${fileName(digest)}.json`);
      writeFileSync(`${path}.${process.pid}.tmp`, JSON.stringify(Array.from(vector)));
      renameSync(`${path}.${process.pid}.tmp`, path);
    } catch {
      // A cache that cannot be written costs a re-embedding next run, nothing more.
    }
  }

  /** One POST to the endpoint; rejects on a timeout, an HTTP error or an answer that is not one vector per input. */
  private async request(input: string[]): Promise<Float32Array[]> {
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: this.options.model, input }),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`embeddings endpoint answered ${response.status}`);
    const body = (await response.json()) as { data?: Array<{ embedding?: unknown; index?: number }> };
    const data = Array.isArray(body?.data) ? body.data : [];
    const vectors = new Array<Float32Array>(input.length);
    data.forEach((item, position) => {
      const at = typeof item?.index === 'number' ? item.index : position;
      if (Array.isArray(item?.embedding) && at >= 0 && at < input.length) vectors[at] = Float32Array.from(item.embedding as number[]);
    });
    const size = vectors[0]?.length ?? 0;
    if (size === 0 || vectors.some((vector) => vector === undefined || vector.length !== size)) throw new Error('embeddings endpoint gave no usable vectors');
    return vectors;
  }
}

/**
 * Reciprocal-rank fusion of rankings (ids best first): score = Σ 1 / (RRF_K + rank), rank from 1. An id missing from
 * a ranking gets nothing from it. Ties keep the first ranking's order.
 */
export function fuseRankings(rankings: ReadonlyArray<readonly string[]>): Array<{ id: string; score: number }> {
  const scores = new Map<string, number>();
  for (const ranking of rankings) ranking.forEach((id, at) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + at + 1)));
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}

function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return -1;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let at = 0; at < a.length; at++) {
    dot += a[at]! * b[at]!;
    na += a[at]! * a[at]!;
    nb += b[at]! * b[at]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

function fileName(digest: string): string {
  return digest.replace(/[^A-Za-z0-9_-]/g, '_');
}
