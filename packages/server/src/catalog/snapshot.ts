import { DIRECTORY_MIME_TYPE, compareStrings, encodePath } from '@skillport/core';
import { findSkillFile, firstSkillFileUnder } from './catalog-skill.js';
import type { CatalogFile, CatalogSkill } from './model.js';

export interface DirectoryChild {
  uri: string;
  name: string;
  mimeType: string;
  size?: number;
}

interface DirectoryRef {
  skill: CatalogSkill;
  /** Path of the folder inside the skill ('' for the skill folder itself). */
  path: string;
}

interface FileRef {
  skill: CatalogSkill;
  file: CatalogFile;
}

/** Skills served but not listed (exact registry versions), asked for by URI; see SkillProvider.lookup/version. */
export interface UnlistedResolver {
  lookup(uri: string): { skill: CatalogSkill } | { refused: string } | undefined;
  version(skillUri: string, selector: { version?: string; digest?: string }): { skill: CatalogSkill } | { refused: string } | undefined;
  /** The listed URI of a skill known by name but listed by no one now (SkillProvider.unlistedName). */
  unlistedName?(name: string): string | undefined;
}

/**
 * What changed between two snapshots: skills added or replaced (by URI), and URIs no longer listed. A replaced skill
 * is a new object; an unchanged one keeps its identity, which is how deltas are found cheaply (ADR 0130).
 */
export interface SnapshotDelta {
  upsert: readonly CatalogSkill[];
  remove: readonly string[];
}

/**
 * The lookup maps. The base is shared by every snapshot derived from it and never written after it is built. Files
 * and folders have no map of their own: a file or folder URI is owned by a skill whose folder holds it, found by
 * looking its parent URIs up as skills (a few map hits for a path a few folders deep), so the catalog keeps no entry
 * and no URI string per file or folder.
 */
interface Index {
  byUri: Map<string, CatalogSkill>;
  byName: Map<string, readonly CatalogSkill[]>;
}

/** A snapshot's own entries over the shared base: `null` means gone here (a tombstone), an empty array no skill. */
interface Overlay {
  byUri: Map<string, CatalogSkill | null>;
  byName: Map<string, readonly CatalogSkill[]>;
  size: number;
}

/** Internal: the state a derived snapshot starts from (see `withChanges`). */
export interface SnapshotState {
  skills: readonly CatalogSkill[];
  base: Index;
  over: Overlay | undefined;
  parent: CatalogSnapshot;
  delta: SnapshotDelta;
}

/** One-skill snapshots of unlisted skills, so their files and folders are looked up exactly like listed ones. */
const single = new WeakMap<CatalogSkill, CatalogSnapshot>();

/** A delta touching more than this share of the catalog is applied as a fresh build (cheaper than splicing). */
const FULL_BUILD_SHARE = 1 / 8;

/**
 * An immutable catalog: every lookup is a map hit or a binary search, whatever the catalog size.
 * Directory listings are derived on demand from the skill's file list (no per-directory arrays kept in memory).
 *
 * A change makes the next snapshot with `withChanges`, in time proportional to the change (ADR 0130): the lookup
 * maps of a full build (the base) are shared, read-only, by every snapshot derived from it, and each derived
 * snapshot carries a small overlay of what differs (copied on each change, so older snapshots stay as they were);
 * the sorted skill array is copied and spliced (a pointer copy: ~0.1 ms at 100,000 skills). Once the overlay grows
 * past a share of the base, the next change builds a fresh base, so lookups stay two map hits at most.
 */
export class CatalogSnapshot {
  readonly skills: readonly CatalogSkill[];
  readonly #base: Index;
  readonly #over: Overlay | undefined;
  /**
   * The snapshot this one was derived from, and the delta between them (unset after a full build): what lets
   * per-principal views and fingerprints follow a change instead of going over the catalog. Weak, so a chain of
   * snapshots is never kept alive by its newest.
   */
  readonly parent: WeakRef<CatalogSnapshot> | undefined;
  readonly delta: SnapshotDelta | undefined;

  constructor(
    skills: readonly CatalogSkill[],
    readonly generation: number,
    readonly unlisted?: UnlistedResolver,
    state?: SnapshotState,
  ) {
    if (state !== undefined) {
      this.skills = state.skills;
      this.#base = state.base;
      this.#over = state.over;
      this.parent = new WeakRef(state.parent);
      this.delta = state.delta;
      return;
    }
    this.skills = Object.freeze([...skills].sort((a, b) => compareStrings(a.uri, b.uri)));
    this.#base = buildIndex(this.skills);
  }

  get size(): number {
    return this.skills.length;
  }

  /** Entries in this snapshot's overlay (0 after a full build): for tests and figures. */
  get overlaySize(): number {
    return this.#over?.size ?? 0;
  }

  /**
   * The snapshot after `delta`, sharing this one's maps. Time grows with the delta (and the overlay it carries),
   * not with the catalog; this snapshot is left untouched, so requests holding it go on seeing it whole.
   */
  withChanges(delta: SnapshotDelta, generation: number, unlisted: UnlistedResolver | undefined = this.unlisted): CatalogSnapshot {
    return new CatalogSnapshot([], generation, unlisted, this.changedState(delta));
  }

  /**
   * For views: the state after `delta`, to construct their own kind of snapshot from. Its lookup maps are this
   * snapshot's plus a small overlay, so a view a few skills larger than another costs about its sorted array.
   */
  changedState(delta: SnapshotDelta): SnapshotState {
    const skills = spliceSorted(this.skills, delta);
    const touched = delta.upsert.length + delta.remove.length;
    const overSize = this.#over?.size ?? 0;
    const limit = 2048 + this.#base.byUri.size / 32;
    if (touched > this.skills.length * FULL_BUILD_SHARE + 16 || overSize > limit) {
      return { skills, base: buildIndex(skills), over: undefined, parent: this, delta };
    }
    const previous = this.#over;
    const over: Overlay =
      previous === undefined ? { byUri: new Map(), byName: new Map(), size: 0 } : { byUri: new Map(previous.byUri), byName: new Map(previous.byName), size: 0 };
    const base = this.#base;
    const next = { skills, base, over, parent: this, delta };
    // Read the new state while it is being written: what is already decided is in the overlay.
    const skillAt = (uri: string): CatalogSkill | undefined => lookup(base.byUri, over.byUri, uri);
    const names = new Set<string>();
    const touch = (skill: CatalogSkill): void => {
      names.add(skill.name);
    };
    for (const uri of delta.remove) {
      const old = skillAt(uri);
      if (old === undefined) continue;
      touch(old);
      over.byUri.set(uri, null);
    }
    for (const skill of delta.upsert) {
      const old = skillAt(skill.uri);
      if (old !== undefined) touch(old);
      touch(skill);
      over.byUri.set(skill.uri, skill);
    }
    // Every name a changed skill held or holds is decided again from the new state, by the same rules as a build
    // (files and folders are found through the skills themselves: nothing else to decide).
    for (const name of names) {
      const before = lookup(base.byName, over.byName, name) ?? [];
      const kept = before.filter((skill) => skillAt(skill.uri) === skill);
      for (const skill of delta.upsert) if (skill.name === name && !kept.includes(skill)) kept.push(skill);
      kept.sort((a, b) => compareStrings(a.uri, b.uri));
      over.byName.set(name, kept);
    }
    over.size = over.byUri.size + over.byName.size;
    return next;
  }

  skill(uri: string): CatalogSkill | undefined {
    return this.#skill(uri) ?? this.#unlistedSkill(uri)?.skill(uri);
  }

  /** The listed skill at `uri` (never an unlisted version). */
  listed(uri: string): CatalogSkill | undefined {
    return this.#skill(uri);
  }

  #skill(uri: string): CatalogSkill | undefined {
    return this.#over === undefined ? this.#base.byUri.get(uri) : lookup(this.#base.byUri, this.#over.byUri, uri);
  }

  readonly #skillAt = (uri: string): CatalogSkill | undefined => this.#skill(uri);

  #file(uri: string): FileRef | undefined {
    return uri.startsWith('skill://') ? fileOwner(uri, this.#skillAt) : undefined;
  }

  #dir(uri: string): DirectoryRef | undefined {
    return uri.startsWith('skill://') && !uri.endsWith('/') ? dirOwner(uri, this.#skillAt) : undefined;
  }

  #named(name: string): readonly CatalogSkill[] | undefined {
    const found = this.#over === undefined ? this.#base.byName.get(name) : lookup(this.#base.byName, this.#over.byName, name);
    return found === undefined || found.length === 0 ? undefined : found;
  }

  /** Why the skill holding `uri` is refused (a revoked version), when it is; undefined otherwise. */
  refusal(uri: string): string | undefined {
    if (this.#skill(uri) !== undefined || this.#file(uri) !== undefined || this.#dir(uri) !== undefined) return undefined;
    const found = this.unlisted?.lookup(uri);
    return found !== undefined && 'refused' in found ? found.refused : undefined;
  }

  /** Another version of the skill at `skillUri` (by version, tag or package digest), through the providers. */
  version(skillUri: string, selector: { version?: string; digest?: string }): { skill: CatalogSkill } | { refused: string } | undefined {
    return this.unlisted?.version(skillUri, selector);
  }

  /** The listed URI of a skill of this name that is known but not listed (every registry version yanked or revoked). */
  unlistedName(name: string): string | undefined {
    return this.#named(name) !== undefined ? undefined : this.unlisted?.unlistedName?.(name);
  }

  #unlistedSkill(uri: string): CatalogSnapshot | undefined {
    const found = this.unlisted?.lookup(uri);
    if (found === undefined || !('skill' in found)) return undefined;
    let view = single.get(found.skill);
    if (view === undefined) {
      view = new CatalogSnapshot([found.skill], this.generation);
      single.set(found.skill, view);
    }
    return view;
  }

  named(name: string): readonly CatalogSkill[] {
    return this.#named(name) ?? [];
  }

  file(uri: string): { skill: CatalogSkill; file: CatalogFile } | undefined {
    return this.#file(uri) ?? (this.unlisted ? this.#unlistedSkill(uri)?.file(uri) : undefined);
  }

  isDirectory(uri: string): boolean {
    return this.#dir(uri) !== undefined || (this.unlisted !== undefined && this.#unlistedSkill(uri)?.isDirectory(uri) === true);
  }

  /** Direct children of a directory resource, sorted by URI; undefined when `uri` is not a directory. */
  directory(uri: string): DirectoryChild[] | undefined {
    const ref = this.#dir(uri);
    if (ref === undefined) return this.unlisted ? this.#unlistedSkill(uri)?.directory(uri) : undefined;
    const prefix = ref.path === '' ? '' : `${ref.path}/`;
    const children = new Map<string, DirectoryChild>();
    for (const file of ref.skill.files) {
      if (!file.path.startsWith(prefix)) continue;
      const rest = file.path.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash < 0) {
        children.set(file.uri, { uri: file.uri, name: rest, mimeType: file.mimeType, size: file.size });
      } else {
        const name = rest.slice(0, slash);
        const childUri = folderUri(ref.skill.rootUri, prefix + name);
        if (!children.has(childUri)) children.set(childUri, { uri: childUri, name, mimeType: DIRECTORY_MIME_TYPE });
      }
    }
    return [...children.values()].sort((a, b) => compareStrings(a.uri, b.uri));
  }

  /** Index of the first skill after `afterUri` (exclusive) in URI order; 0 without a cursor. */
  indexAfter(afterUri: string | undefined): number {
    if (afterUri === undefined) return 0;
    let lo = 0;
    let hi = this.skills.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareStrings(this.skills[mid]!.uri, afterUri) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** One page of skills after `afterUri` (exclusive), in URI order. */
  page(afterUri: string | undefined, size: number): { skills: CatalogSkill[]; more: boolean } {
    const start = this.indexAfter(afterUri);
    const skills = this.skills.slice(start, start + size);
    return { skills, more: start + size < this.skills.length };
  }
}

function lookup<V>(base: Map<string, V>, over: Map<string, V | null>, key: string): V | undefined {
  const mine = over.get(key);
  if (mine !== undefined) return mine === null ? undefined : mine;
  return base.get(key);
}

/** A full build of the lookup maps from skills sorted by URI. */
function buildIndex(skills: readonly CatalogSkill[]): Index {
  const index: Index = { byUri: new Map(), byName: new Map() };
  for (const skill of skills) {
    index.byUri.set(skill.uri, skill);
    const named = index.byName.get(skill.name) as CatalogSkill[] | undefined;
    if (named) named.push(skill);
    else index.byName.set(skill.name, [skill]);
  }
  return index;
}

/** Skills whose folder holds `uri` (their root is a proper prefix of it), in URI order of their SKILL.md. */
function holders(uri: string, skillAt: (uri: string) => CatalogSkill | undefined): CatalogSkill[] {
  const found: CatalogSkill[] = [];
  let slash = uri.lastIndexOf('/');
  while (slash > 'skill://'.length) {
    const skill = skillAt(`${uri.slice(0, slash)}/SKILL.md`);
    if (skill !== undefined) found.push(skill);
    slash = uri.lastIndexOf('/', slash - 1);
  }
  return found.sort((a, b) => compareStrings(a.uri, b.uri));
}

function fileOwner(uri: string, skillAt: (uri: string) => CatalogSkill | undefined): FileRef | undefined {
  for (const skill of holders(uri, skillAt)) {
    const file = findSkillFile(skill, uri);
    if (file !== undefined) return { skill, file };
  }
  return undefined;
}

function dirOwner(uri: string, skillAt: (uri: string) => CatalogSkill | undefined): DirectoryRef | undefined {
  const own = skillAt(`${uri}/SKILL.md`);
  if (own !== undefined && own.rootUri === uri) return { skill: own, path: '' };
  for (const skill of holders(uri, skillAt)) {
    const file = firstSkillFileUnder(skill, `${uri}/`);
    if (file === undefined) continue;
    // Segments of a folder URI map one to one onto the decoded path of any file below it.
    const depth = uri.slice(skill.rootUri.length + 1).split('/').length;
    return { skill, path: file.path.split('/').slice(0, depth).join('/') };
  }
  return undefined;
}

/** The sorted skill array after a delta: a copy, spliced (binary searches, no sort). */
function spliceSorted(skills: readonly CatalogSkill[], delta: SnapshotDelta): readonly CatalogSkill[] {
  const out = skills.slice();
  const find = (uri: string): { at: number; found: boolean } => {
    let lo = 0;
    let hi = out.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const cmp = compareStrings(out[mid]!.uri, uri);
      if (cmp === 0) return { at: mid, found: true };
      if (cmp < 0) lo = mid + 1;
      else hi = mid;
    }
    return { at: lo, found: false };
  };
  for (const uri of delta.remove) {
    const { at, found } = find(uri);
    if (found) out.splice(at, 1);
  }
  for (const skill of delta.upsert) {
    const { at, found } = find(skill.uri);
    if (found) out[at] = skill;
    else out.splice(at, 0, skill);
  }
  return Object.freeze(out);
}

/** URI of a folder inside a skill, from its decoded `/`-separated path. */
export function folderUri(rootUri: string, path: string): string {
  return `${rootUri}/${encodePath(path)}`;
}
