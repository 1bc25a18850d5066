import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { SkillSearchIndex, decodeText, splitFrontmatter } from '@skillport/core';
import type { SearchHit, SearchView } from '@skillport/core';
import type { ContentReader } from '../catalog/content.js';
import type { CatalogSkill } from '../catalog/model.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';
import type { SkillsService } from '../mcp/skills-service.js';

/**
 * Search over the catalog: ONE incremental `SkillSearchIndex` per server (per content reader), shared by every
 * principal's view and following the catalog's changes.
 *
 * - Following: the index follows the newest catalog snapshot it is shown (`follow`, called at start and on every
 *   catalog change, and by each search). It compares the skills it indexed (URI → package digest) with the
 *   snapshot's and only removes, adds or replaces the skills that differ: a changed skill costs the reading of its
 *   own SKILL.md, never a rebuild. (The diff walks the snapshot's skill list once: a map lookup per skill.)
 * - Start: the first index is built in the background, in slices that yield to the event loop (reads keep being
 *   answered). Until it has caught up, a search answers from what is indexed and says so (`complete: false`, with
 *   how many skills were searched), unless what is left is small (at most WAIT_FOR_CHANGES skills): then it waits,
 *   so that a change is searchable as soon as it is served, and a small catalog is complete from its first search.
 * - Views: a principal's view (a `ViewSnapshot` filtered from the catalog's) is searched through a `SearchView` of the
 *   shared index: a bit per document and the view's own BM25 statistics, so it ranks exactly like an index of its
 *   skills alone, returns nothing outside it, and never reads a body. A skill is searched in a view only when the
 *   indexed version (package digest) is the one the view holds.
 * - Bodies: read once per skill version through the content reader (verified like any read, without filling its
 *   cache), analysed into the index and dropped: the index keeps no text but names, ids and description terms. A
 *   SKILL.md that cannot be read is indexed without its body.
 */
export interface SearchAnswer {
  hits: SearchHit[];
  /** False while the index is still being built (or catching up with a large change): hits are from `searched` skills. */
  complete: boolean;
  /** Skills of the snapshot that were searched. */
  searched: number;
  /** Skills in the snapshot. */
  total: number;
}

/** Once the index has caught up, a search waits for a pending change this small (in skills) rather than answer without it. */
const WAIT_FOR_CHANGES = 256;
/** Work between yields to the event loop while following the catalog (milliseconds). */
const SLICE_MS = 8;

export class CatalogSearch {
  readonly index = new SkillSearchIndex();
  /** What the index holds: URI → package digest. */
  readonly #indexed = new Map<string, string>();
  /** The snapshot being followed, and the last one the index fully caught up with. */
  #target: CatalogSnapshot | undefined;
  #caughtUp: CatalogSnapshot | undefined;
  /** Skills still to index for the target (an estimate between diffs). */
  #pending = 0;
  #running: Promise<void> | undefined;
  #closed = false;
  readonly #views = new WeakMap<CatalogSnapshot, { epoch: number; view: SearchView; searched: number }>();
  #epoch = 0;

  constructor(readonly content: ContentReader) {}

  /** Makes `snapshot` (or the catalog snapshot it is a view of) the one to follow, when it is newer; starts catching up. */
  follow(snapshot: CatalogSnapshot): void {
    const base = baseOf(snapshot);
    if (this.#closed || base === this.#target) return;
    if (this.#target !== undefined && base.generation < this.#target.generation) return;
    this.#target = base;
    this.#running ??= this.#catchUp().finally(() => {
      this.#running = undefined;
    });
  }

  /** Stops following (a closing server): the background work ends at its next slice. */
  close(): void {
    this.#closed = true;
  }

  /** Whether the index holds the followed snapshot entirely. */
  get ready(): boolean {
    return this.#target !== undefined && this.#caughtUp === this.#target;
  }

  /** Ranked hits for `query` among the skills of `snapshot` (the catalog's, or a principal's view of it). */
  async search(snapshot: CatalogSnapshot, query: string, limit: number): Promise<SearchAnswer> {
    this.follow(snapshot);
    // A small pending change (or a small catalog being indexed at start) is waited for; a large one is not.
    if (this.#running !== undefined && this.#pending <= WAIT_FOR_CHANGES) await this.#running;
    const base = baseOf(snapshot);
    let hits: SearchHit[];
    let searched: number;
    if (snapshot === base && base === this.#target) {
      // The followed catalog itself: the whole index (while catching up it may still hold an older version of a
      // changed skill; its URI is listed, and the hit is answered with the listed skill).
      hits = this.index.search(query, limit);
      searched = this.index.size;
    } else {
      const { view, searched: count } = this.#viewOf(snapshot);
      hits = this.index.search(query, limit, view);
      searched = count;
    }
    hits = hits.filter((hit) => snapshot.skill(hit.id) !== undefined);
    const complete = snapshot === base && base === this.#target ? this.ready : searched === snapshot.size;
    return { hits, complete, searched, total: snapshot.size };
  }

  /** The skills of `snapshot` whose indexed version is the one it lists, as a view (kept while the index is unchanged). */
  #viewOf(snapshot: CatalogSnapshot): { view: SearchView; searched: number } {
    const cached = this.#views.get(snapshot);
    if (cached !== undefined && cached.epoch === this.#epoch) return cached;
    const ids: string[] = [];
    for (const skill of snapshot.skills) if (this.#indexed.get(skill.uri) === skill.packageDigest) ids.push(skill.uri);
    const entry = { epoch: this.#epoch, view: this.index.view(ids), searched: ids.length };
    this.#views.set(snapshot, entry);
    return entry;
  }

  async #catchUp(): Promise<void> {
    try {
      await this.#indexChanges();
    } finally {
      this.#pending = 0;
    }
  }

  /** Diffs the index against the followed snapshot and applies the difference, again until it stops moving. */
  async #indexChanges(): Promise<void> {
    let sliceStart = performance.now();
    while (!this.#closed && this.#target !== undefined && this.#caughtUp !== this.#target) {
      const target = this.#target;
      const listed = new Map<string, CatalogSkill>();
      for (const skill of target.skills) listed.set(skill.uri, skill);
      for (const uri of [...this.#indexed.keys()]) {
        if (listed.has(uri)) continue;
        this.index.remove(uri);
        this.#indexed.delete(uri);
        this.#epoch++;
      }
      const changed = target.skills.filter((skill) => this.#indexed.get(skill.uri) !== skill.packageDigest);
      this.#pending = changed.length;
      let interrupted = false;
      for (const skill of changed) {
        if (this.#closed) return;
        if (this.#target !== target) {
          interrupted = true; // a newer snapshot: diff again against it
          break;
        }
        const body = await readBody(skill, this.content);
        this.index.add({ id: skill.uri, name: skill.name, description: skill.description, headings: skill.headings, body });
        this.#indexed.set(skill.uri, skill.packageDigest);
        this.#epoch++;
        this.#pending--;
        if (performance.now() - sliceStart >= SLICE_MS) {
          await yieldToEventLoop();
          sliceStart = performance.now();
        }
      }
      if (!interrupted && this.#target === target) {
        this.#caughtUp = target;
      }
    }
  }
}

/** The catalog snapshot a view was filtered from (a view carries it as `base`), or the snapshot itself. */
function baseOf(snapshot: CatalogSnapshot): CatalogSnapshot {
  return (snapshot as { base?: CatalogSnapshot }).base ?? snapshot;
}

const searches = new WeakMap<ContentReader, CatalogSearch>();

/** The search of the server a service belongs to (services of one server share their content reader). */
export function catalogSearch(service: SkillsService): CatalogSearch {
  const content = service.options.content;
  let search = searches.get(content);
  if (search === undefined) {
    search = new CatalogSearch(content);
    searches.set(content, search);
  }
  return search;
}

/** Ranked hits for `query` in the snapshot a request holds (see CatalogSearch). */
export function searchSkills(service: SkillsService, snapshot: CatalogSnapshot, query: string, limit: number): Promise<SearchAnswer> {
  return catalogSearch(service).search(snapshot, query, limit);
}

async function readBody(skill: CatalogSkill, content: ContentReader): Promise<string> {
  const manifest = skill.files.find((file) => file.uri === skill.uri);
  if (manifest === undefined) return '';
  try {
    const text = decodeText(await content.read(manifest, skill.origin, false));
    return text === undefined ? '' : splitFrontmatter(text, Number.MAX_SAFE_INTEGER).body;
  } catch {
    return '';
  }
}
