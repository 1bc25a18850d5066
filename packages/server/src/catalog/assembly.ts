import type { FolderProblem } from '@skillport/core';
import { sameFileTargets } from './catalog-skill.js';
import { originText, toCatalogSkill } from './folder-scan.js';
import type { ScannedFolder } from './folder-scan.js';
import type { CatalogSkill } from './model.js';
import type { SnapshotDelta } from './snapshot.js';

/**
 * `assemble` (folder-scan.ts) kept up to date one folder at a time (ADR 0130): the same URIs, the same winners of a
 * URI clash and the same problems as assembling every folder again, in time that grows with the folders changed,
 * not the catalog. A skill's URI depends only on the folders that want the same spot (same parent, same name), and
 * a clash only on the folders at the same URI, so a change re-decides just those.
 */
export class Assembly {
  /** Servable folders by their preferred path (parent folders + skill name): how many are named like their skill. */
  readonly #taken = new Map<string, number>();
  /** ...and the renamed ones (folder named otherwise) that want that path. */
  readonly #renamed = new Map<string, Set<ScannedFolder>>();
  /** Each servable folder's URI now (undefined when its path cannot be written as one). */
  readonly #uriOf = new Map<ScannedFolder, string | undefined>();
  /** Folders at each URI, in the order that decides a clash (first wins). */
  readonly #at = new Map<string, ScannedFolder[]>();
  readonly #served = new Map<string, CatalogSkill>();
  /**
   * Each folder's catalog skill for the path it was built at (shared with the assembly this one replaces). A folder's
   * path is one of two (see #place), and a folder object is never edited: `alone` says which one it was built at.
   */
  readonly #built: WeakMap<ScannedFolder, { uri: string; alone: boolean; skill: CatalogSkill | string }>;
  readonly #unwritable = new Map<ScannedFolder, FolderProblem>();
  readonly #conflicts = new Map<string, FolderProblem[]>();

  /**
   * `order(a, b)`: the folders' precedence (root given first, then folder path), as `assemble` takes them.
   * `previous`: the assembly a full rebuild replaces; a folder it built at the same path keeps its skill object (a
   * restart's check of 100,000 unchanged folders otherwise built all their skills again, and the snapshot still
   * serving the first objects kept both sets alive: twice the catalog's memory).
   */
  constructor(
    readonly order: (a: ScannedFolder, b: ScannedFolder) => number,
    previous?: Assembly,
  ) {
    this.#built = previous === undefined ? new WeakMap() : previous.#built;
  }

  /** The skills served now, by URI. */
  get served(): ReadonlyMap<string, CatalogSkill> {
    return this.#served;
  }

  /** Problems of assembling: URIs that cannot be written, and the losers of URI clashes. */
  get problems(): FolderProblem[] {
    return [...this.#unwritable.values(), ...[...this.#conflicts.values()].flat()];
  }

  /** Problems of the URIs a delta touched (what to report after a change). */
  problemsAt(uris: Iterable<string>, folders: Iterable<ScannedFolder>): FolderProblem[] {
    const found: FolderProblem[] = [];
    for (const uri of uris) found.push(...(this.#conflicts.get(uri) ?? []));
    for (const folder of folders) {
      const problem = this.#unwritable.get(folder);
      if (problem !== undefined) found.push(problem);
    }
    return found;
  }

  /**
   * Takes `removed` folders out and `added` ones in (a rescanned folder is its old object removed and its new one
   * added), and returns what changed in the served skills. A skill whose bytes and place did not change keeps its
   * object, so unchanged skills stay identical from one snapshot to the next.
   */
  update(removed: Iterable<ScannedFolder>, added: Iterable<ScannedFolder>): SnapshotDelta & { uris: Set<string> } {
    // Into an empty assembly (a start, a full rebuild) every folder that wants a spot is added here: no key needs a
    // second look, and the keys (one string hashed per folder at 100,000) are not collected.
    const fresh = this.#uriOf.size === 0;
    const keys = new Set<string>();
    const touchedUris = new Set<string>();
    // Folders to place, with their wanted paths when already decided (preferred() was a good part of a restore's assembly).
    const repath = new Map<ScannedFolder, { key: string; renamed: boolean } | undefined>();
    for (const folder of removed) {
      if (!this.#uriOf.has(folder)) continue;
      const { key, renamed } = preferred(folder);
      keys.add(key);
      if (renamed) this.#renamed.get(key)?.delete(folder);
      else this.#taken.set(key, this.#taken.get(key)! - 1);
      this.#leave(folder, touchedUris);
      this.#uriOf.delete(folder);
      this.#unwritable.delete(folder);
    }
    for (const folder of added) {
      if (folder.inspection.skill === undefined || this.#uriOf.has(folder)) continue;
      const spot = preferred(folder);
      const { key, renamed } = spot;
      if (!fresh) keys.add(key);
      if (renamed) {
        let set = this.#renamed.get(key);
        if (set === undefined) this.#renamed.set(key, (set = new Set()));
        set.add(folder);
      } else this.#taken.set(key, (this.#taken.get(key) ?? 0) + 1);
      this.#uriOf.set(folder, undefined);
      repath.set(folder, spot);
    }
    // A renamed folder's path depends on who else wants its spot: decide them again where the wanting changed.
    for (const key of keys) {
      if ((this.#taken.get(key) ?? 0) === 0) this.#taken.delete(key);
      const set = this.#renamed.get(key);
      if (set === undefined) continue;
      if (set.size === 0) this.#renamed.delete(key);
      else for (const folder of set) if (!repath.has(folder)) repath.set(folder, undefined);
    }
    for (const [folder, spot] of repath) this.#place(folder, touchedUris, spot);

    const upsert: CatalogSkill[] = [];
    const remove: string[] = [];
    for (const uri of touchedUris) {
      const folders = this.#at.get(uri);
      const winner = folders?.[0];
      const before = this.#served.get(uri);
      let skill = winner === undefined ? undefined : (this.#built.get(winner)!.skill as CatalogSkill);
      if (skill !== undefined && before !== undefined && sameSkill(before, skill)) skill = before;
      if (folders === undefined || folders.length < 2) this.#conflicts.delete(uri);
      else {
        this.#conflicts.set(
          uri,
          folders.slice(1).map((loser) => ({
            severity: 'error',
            code: 'uri-conflict',
            message: `two skills at ${uri}: ${originText(skill!)} and ${loser.dir}; serving the first (use --prefix to separate folders)`,
            path: loser.dir,
          })),
        );
      }
      if (skill === before) continue;
      if (skill === undefined) {
        this.#served.delete(uri);
        remove.push(uri);
      } else {
        this.#served.set(uri, skill);
        upsert.push(skill);
      }
    }
    return { upsert, remove, uris: touchedUris };
  }

  /** Decides a folder's path and URI (as `assemble` does) and files it under that URI. */
  #place(folder: ScannedFolder, touched: Set<string>, spot = preferred(folder)): void {
    const skill = folder.inspection.skill!;
    const { key, renamed } = spot;
    const alone = !renamed || ((this.#taken.get(key) ?? 0) === 0 && this.#renamed.get(key)!.size === 1);
    let built = this.#built.get(folder);
    if (built === undefined || built.alone !== alone) {
      const path = alone ? [...folder.root.prefix, ...folder.segments.slice(0, -1), skill.name] : [...folder.root.prefix, ...folder.segments, skill.name];
      const made = toCatalogSkill(folder, path);
      built = { uri: typeof made === 'string' ? '' : made.uri, alone, skill: made };
      this.#built.set(folder, built);
    }
    const uri = typeof built.skill === 'string' ? undefined : built.uri;
    if (this.#uriOf.get(folder) === uri && (uri === undefined ? this.#unwritable.has(folder) : this.#at.get(uri)?.includes(folder))) return;
    this.#leave(folder, touched);
    this.#uriOf.set(folder, uri);
    if (typeof built.skill === 'string') {
      this.#unwritable.set(folder, { severity: 'error', message: built.skill, path: folder.dir });
      return;
    }
    this.#unwritable.delete(folder);
    // Arrays made at their exact length: nearly every URI has one folder, and an empty array grown by one insert
    // takes room for 17 (150 bytes a skill).
    const folders = this.#at.get(uri!);
    if (folders === undefined) this.#at.set(uri!, [folder]);
    else {
      let at = folders.length;
      while (at > 0 && this.order(folders[at - 1]!, folder) > 0) at--;
      this.#at.set(uri!, folders.toSpliced(at, 0, folder));
    }
    touched.add(uri!);
  }

  /** Takes a folder off the URI it was filed under. */
  #leave(folder: ScannedFolder, touched: Set<string>): void {
    const uri = this.#uriOf.get(folder);
    if (uri === undefined) return;
    const folders = this.#at.get(uri);
    if (folders !== undefined) {
      const at = folders.indexOf(folder);
      if (at >= 0) folders.splice(at, 1);
      if (folders.length === 0) this.#at.delete(uri);
    }
    touched.add(uri);
  }
}

/** The path a skill wants (its parent folders, then its name), and whether its folder is named otherwise. */
function preferred(folder: ScannedFolder): { key: string; renamed: boolean } {
  const skill = folder.inspection.skill!;
  const { segments } = folder;
  const folderName = segments.at(-1);
  let key = '';
  for (const part of folder.root.prefix) key += `${part}\u0000`;
  for (let at = 0; at < segments.length - 1; at++) key += `${segments[at]}\u0000`;
  key += skill.name;
  // An ASCII name is its own NFKC form: most folders are named exactly like their skill, and need no normalising.
  const named = folderName === skill.name && ASCII.test(folderName) ? folderName : folderName?.normalize('NFKC');
  return { key, renamed: !(folderName === undefined || named === skill.name) };
}

const ASCII = /^[\x00-\x7f]*$/;

/** Same place, same bytes, same folder: the old object can stay. */
function sameSkill(a: CatalogSkill, b: CatalogSkill): boolean {
  if (a.packageDigest !== b.packageDigest || a.uri !== b.uri || a.origin.kind !== b.origin.kind) return false;
  if (a.origin.kind !== 'folder' || b.origin.kind !== 'folder') return false;
  if (a.origin.dir !== b.origin.dir || a.origin.realDir !== b.origin.realDir || a.origin.root !== b.origin.root) return false;
  return sameFileTargets(a, b);
}
