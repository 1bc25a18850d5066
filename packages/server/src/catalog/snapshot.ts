import { DIRECTORY_MIME_TYPE, compareStrings, encodePath } from '@skillport/core';
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

/** Skills served but not listed (exact registry versions), asked for by URI; see SkillProvider.lookup/version. */
export interface UnlistedResolver {
  lookup(uri: string): { skill: CatalogSkill } | { refused: string } | undefined;
  version(skillUri: string, selector: { version?: string; digest?: string }): { skill: CatalogSkill } | { refused: string } | undefined;
  /** The listed URI of a skill known by name but listed by no one now (SkillProvider.unlistedName). */
  unlistedName?(name: string): string | undefined;
}

/** One-skill snapshots of unlisted skills, so their files and folders are looked up exactly like listed ones. */
const single = new WeakMap<CatalogSkill, CatalogSnapshot>();

/**
 * An immutable catalog: every lookup is a map hit or a binary search, whatever the catalog size.
 * Directory listings are derived on demand from the skill's file list (no per-directory arrays kept in memory).
 */
export class CatalogSnapshot {
  readonly skills: readonly CatalogSkill[];
  readonly #byUri = new Map<string, CatalogSkill>();
  readonly #byName = new Map<string, CatalogSkill[]>();
  readonly #files = new Map<string, { skill: CatalogSkill; file: CatalogFile }>();
  readonly #dirs = new Map<string, DirectoryRef>();

  constructor(skills: CatalogSkill[], readonly generation: number, readonly unlisted?: UnlistedResolver) {
    this.skills = Object.freeze([...skills].sort((a, b) => compareStrings(a.uri, b.uri)));
    for (const skill of this.skills) {
      this.#byUri.set(skill.uri, skill);
      const named = this.#byName.get(skill.name);
      if (named) named.push(skill);
      else this.#byName.set(skill.name, [skill]);
      this.#dirs.set(skill.rootUri, { skill, path: '' });
      for (const file of skill.files) {
        // A nested skill's files are also files of the outer skill, at the same URI and from the same bytes.
        if (!this.#files.has(file.uri)) this.#files.set(file.uri, { skill, file });
        let slash = file.path.lastIndexOf('/');
        while (slash > 0) {
          const dir = file.path.slice(0, slash);
          const dirUri = folderUri(skill.rootUri, dir);
          if (this.#dirs.has(dirUri)) break;
          this.#dirs.set(dirUri, { skill, path: dir });
          slash = dir.lastIndexOf('/');
        }
      }
    }
  }

  get size(): number {
    return this.skills.length;
  }

  skill(uri: string): CatalogSkill | undefined {
    return this.#byUri.get(uri) ?? this.#unlistedSkill(uri)?.skill(uri);
  }

  /** Why the skill holding `uri` is refused (a revoked version), when it is; undefined otherwise. */
  refusal(uri: string): string | undefined {
    if (this.#byUri.has(uri) || this.#files.has(uri) || this.#dirs.has(uri)) return undefined;
    const found = this.unlisted?.lookup(uri);
    return found !== undefined && 'refused' in found ? found.refused : undefined;
  }

  /** Another version of the skill at `skillUri` (by version, tag or package digest), through the providers. */
  version(skillUri: string, selector: { version?: string; digest?: string }): { skill: CatalogSkill } | { refused: string } | undefined {
    return this.unlisted?.version(skillUri, selector);
  }

  /** The listed URI of a skill of this name that is known but not listed (every registry version yanked or revoked). */
  unlistedName(name: string): string | undefined {
    return this.#byName.has(name) ? undefined : this.unlisted?.unlistedName?.(name);
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
    return this.#byName.get(name) ?? [];
  }

  file(uri: string): { skill: CatalogSkill; file: CatalogFile } | undefined {
    return this.#files.get(uri) ?? (this.unlisted ? this.#unlistedSkill(uri)?.file(uri) : undefined);
  }

  isDirectory(uri: string): boolean {
    return this.#dirs.has(uri) || (this.unlisted !== undefined && this.#unlistedSkill(uri)?.isDirectory(uri) === true);
  }

  /** Direct children of a directory resource, sorted by URI; undefined when `uri` is not a directory. */
  directory(uri: string): DirectoryChild[] | undefined {
    const ref = this.#dirs.get(uri);
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

  /** One page of skills after `afterUri` (exclusive), in URI order. */
  page(afterUri: string | undefined, size: number): { skills: CatalogSkill[]; more: boolean } {
    let start = 0;
    if (afterUri !== undefined) {
      let lo = 0;
      let hi = this.skills.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (compareStrings(this.skills[mid]!.uri, afterUri) <= 0) lo = mid + 1;
        else hi = mid;
      }
      start = lo;
    }
    const skills = this.skills.slice(start, start + size);
    return { skills, more: start + size < this.skills.length };
  }
}

/** URI of a folder inside a skill, from its decoded `/`-separated path. */
export function folderUri(rootUri: string, path: string): string {
  return `${rootUri}/${encodePath(path)}`;
}
