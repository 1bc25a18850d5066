import { compareStrings, encodePath, joinSkillUri, readRequirements } from '@skillport/core';
import type { SkillManifest, SkillRequirements } from '@skillport/core';
import { META_PACKAGE_DIGEST, META_REQUIREMENTS } from './model.js';
import { CompactSkill, packedFilesOf } from './packed-files.js';
import type { PackedFiles } from './packed-files.js';
import type { CatalogFile, CatalogSkill, SkillEntry, SkillOrigin } from './model.js';

/**
 * Turns a verified manifest into a catalog skill served at `skill://<path...>/SKILL.md`, whatever holds its bytes:
 * the one place the wire entry (frozen, exactly what clients receive) is built. `meta` is added to the entry's
 * `_meta` (provenance, versions), next to the package digest. Returns a one-line reason when the path cannot be
 * written as a `skill://` URI that round-trips.
 */
export function buildCatalogSkill(
  manifest: SkillManifest,
  path: readonly string[],
  origin: SkillOrigin,
  meta: Record<string, unknown> = {},
): CatalogSkill | string {
  // One flat string for the SKILL.md URI, the folder's a slice of it: an entry made on every ask copies neither
  // a concatenation's pieces (what serialising a page costs) nor keeps two strings of one URI.
  const joined = joinSkillUri([...path]);
  const uri = [joined, '/SKILL.md'].join('');
  const rootUri = uri.slice(0, joined.length);
  if (!roundTrips(uri)) return `the skill path cannot be written as a skill:// URI (${uri})`;
  const packed = packedFilesOf(manifest);
  // Files are served in URI order (the encoded path's), the manifest lists them by path: the same order unless
  // encoding moved one (a space, a non-ASCII name), so the URI order and the encoded paths are kept only then.
  let encoded: (string | undefined)[] | undefined;
  for (let index = 0; index < packed.length; index++) {
    const path = packed.path(index);
    const uriPath = encodePath(path);
    if (uriPath !== path) (encoded ??= new Array(packed.length))[index] = uriPath;
  }
  const relative = (index: number) => encoded?.[index] ?? packed.path(index);
  // Nearly always in URI order already: checked in one pass before any order array is made.
  let sorted = true;
  for (let index = 1; index < packed.length && sorted; index++) sorted = compareStrings(relative(index - 1), relative(index)) <= 0;
  let order: number[] | undefined;
  if (!sorted) {
    order = Array.from({ length: packed.length }, (_, index) => index).sort((a, b) => compareStrings(relative(a), relative(b)));
    if (order.every((index, position) => index === position)) order = undefined;
  }
  return new BuiltSkill(uri, rootUri, manifest, new FileColumns(packed, encoded, order), origin, meta);
}

/** A skill's files in URI order: the packed columns, and where encoding changed a path or the order (rarely). */
class FileColumns {
  constructor(
    readonly packed: PackedFiles,
    /** By manifest index: the encoded path where it differs from the path. */
    readonly encoded: readonly (string | undefined)[] | undefined,
    /** URI order: position -> manifest index; undefined when it is the manifest's order. */
    readonly order: readonly number[] | undefined,
  ) {}

  get length(): number {
    return this.packed.length;
  }

  /** The manifest index of the file at `position` in URI order. */
  at(position: number): number {
    return this.order === undefined ? position : this.order[position]!;
  }

  /** The URI after the skill folder's (`references/guide.md`, percent-encoded) of manifest file `index`. */
  relativeUri(index: number): string {
    return this.encoded?.[index] ?? this.packed.path(index);
  }
}

/**
 * A skill's file as the catalog serves it, made when asked for: the skill and the file's index in its columns. The
 * catalog keeps no object and no URI or digest string per file (at 100,000 skills, 450,000 files, those were ~110 MB).
 */
class ServedFile implements CatalogFile {
  constructor(
    readonly skill: BuiltSkill,
    readonly index: number,
  ) {}
  get uri(): string {
    return `${this.skill.rootUri}/${this.skill.columns.relativeUri(this.index)}`;
  }
  get relativeUri(): string {
    return this.skill.columns.relativeUri(this.index);
  }
  get path(): string {
    return this.skill.columns.packed.path(this.index);
  }
  get size(): number {
    return this.skill.columns.packed.size(this.index);
  }
  get digest(): string {
    return this.skill.columns.packed.digest(this.index);
  }
  get mimeType(): string {
    return this.skill.columns.packed.mimeType(this.index);
  }
  get target(): string | undefined {
    return this.skill.columns.packed.target(this.index);
  }
}

/**
 * A skill's entry `_meta` (provenance, version, package digest) without making its entry: a built skill's entry
 * is made on every ask (its resource list is one object per file), and these are read per skill on hot paths.
 */
export function entryMetaOf(skill: CatalogSkill): Record<string, unknown> | undefined {
  return skill instanceof BuiltSkill ? skill.entryMeta : (skill.entry._meta as Record<string, unknown> | undefined);
}

/** A skill's file by URI (files are sorted by URI: a binary search over the URIs after the skill folder's). */
export function findSkillFile(skill: CatalogSkill, uri: string): CatalogFile | undefined {
  const rel = uri.slice(skill.rootUri.length + 1);
  if (skill instanceof BuiltSkill) {
    const columns = skill.columns;
    const position = lowerBound(columns.length, (position) => compareStrings(columns.relativeUri(columns.at(position)), rel) < 0);
    return position < columns.length && columns.relativeUri(columns.at(position)) === rel ? new ServedFile(skill, columns.at(position)) : undefined;
  }
  const files = skill.files;
  const position = lowerBound(files.length, (position) => compareStrings(files[position]!.uri.slice(skill.rootUri.length + 1), rel) < 0);
  return position < files.length && files[position]!.uri.slice(skill.rootUri.length + 1) === rel ? files[position] : undefined;
}

/** The first of a skill's files whose URI starts with `prefix` (a folder URI and a slash), in URI order. */
export function firstSkillFileUnder(skill: CatalogSkill, prefix: string): CatalogFile | undefined {
  const rel = prefix.slice(skill.rootUri.length + 1);
  if (skill instanceof BuiltSkill) {
    const columns = skill.columns;
    const position = lowerBound(columns.length, (position) => compareStrings(columns.relativeUri(columns.at(position)), rel) < 0);
    return position < columns.length && columns.relativeUri(columns.at(position)).startsWith(rel) ? new ServedFile(skill, columns.at(position)) : undefined;
  }
  const files = skill.files;
  const position = lowerBound(files.length, (position) => compareStrings(files[position]!.uri.slice(skill.rootUri.length + 1), rel) < 0);
  return position < files.length && files[position]!.uri.slice(skill.rootUri.length + 1).startsWith(rel) ? files[position] : undefined;
}

/** Whether two skills' files are linked alike, file by file (their package digests say the rest). */
export function sameFileTargets(a: CatalogSkill, b: CatalogSkill): boolean {
  if (a instanceof BuiltSkill && b instanceof BuiltSkill) return a.columns.packed.sameTargets(b.columns.packed);
  const files = b.files;
  return a.files.length === files.length && a.files.every((file, index) => file.target === files[index]!.target);
}

/** The first position in [0, length) for which `before` is false (it is true up to some point, false after). */
function lowerBound(length: number, before: (position: number) => boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A catalog skill whose wire entry is made when it is asked for (a page that is then cached as bytes, a skills/get)
 * instead of kept beside the skill for its whole life: the entry's resource list was one more object per file.
 */
class BuiltSkill implements CatalogSkill {
  readonly name: string;
  readonly description: string;
  readonly totalBytes: number;
  readonly packageDigest: string;
  declare artifact?: CatalogFile;
  declare filesUnlisted?: string;
  /**
   * Where the frontmatter, headings and requirements are read: a folder's skill itself (a restored one parses them
   * when first asked for, see CompactSkill), or just those three of any other manifest (not its file records).
   */
  readonly #details: Pick<SkillManifest, 'frontmatter' | 'headings' | 'requirements'>;
  #meta: Record<string, unknown> | undefined;
  #entryMeta: Record<string, unknown> | undefined;
  #requirements: SkillRequirements | undefined;

  constructor(
    readonly uri: string,
    readonly rootUri: string,
    manifest: SkillManifest,
    readonly columns: FileColumns,
    readonly origin: SkillOrigin,
    meta: Record<string, unknown>,
  ) {
    this.name = manifest.name;
    this.description = manifest.description;
    this.totalBytes = manifest.totalBytes;
    this.packageDigest = manifest.packageDigest;
    this.#details =
      manifest instanceof CompactSkill
        ? manifest
        : {
            frontmatter: manifest.frontmatter,
            headings: manifest.headings,
            ...(manifest.requirements !== undefined ? { requirements: manifest.requirements } : {}),
          };
    this.#meta = meta;
    // Only a restored skill's details wait for their first ask; anything else is frozen and decided now, as it is given.
    if (!(manifest instanceof CompactSkill && manifest.unparsed)) {
      deepFreeze(manifest.frontmatter);
      this.#decide();
    }
  }

  /** Frozen when first asked for, as the entry made from it is: exactly what clients receive. */
  get frontmatter(): Record<string, unknown> {
    return deepFreeze(this.#details.frontmatter);
  }

  get headings(): readonly string[] {
    return this.#details.headings;
  }

  get requirements(): SkillRequirements | undefined {
    if (this.#meta !== undefined) this.#decide();
    return this.#requirements;
  }

  /** The entry's `_meta`: the given meta, the package digest and the requirements (frozen). */
  get entryMeta(): Record<string, unknown> {
    if (this.#meta !== undefined) this.#decide();
    return this.#entryMeta!;
  }

  /** Made when first asked for (a restored skill's requirements are in the text it parses then). */
  #decide(): void {
    // A manifest made before requirements were read (a stored registry record) is read from its frontmatter alone; a
    // restored skill's are its scan's (none when absent), so its frontmatter is not parsed for them.
    const details = this.#details;
    const known = details instanceof CompactSkill && details.requirementsKnown;
    const requirements = details.requirements ?? (known ? undefined : readRequirements(details.frontmatter).requirements);
    const entryMeta: Record<string, unknown> = { ...this.#meta, [META_PACKAGE_DIGEST]: this.packageDigest };
    if (requirements !== undefined) entryMeta[META_REQUIREMENTS] = requirements;
    this.#requirements = requirements;
    this.#entryMeta = deepFreeze(entryMeta);
    this.#meta = undefined;
  }

  /** Made when asked for, in URI order (see ServedFile). */
  get files(): readonly CatalogFile[] {
    return Array.from({ length: this.columns.length }, (_, position) => new ServedFile(this, this.columns.at(position)));
  }

  /** The entry's resource list, straight from the columns (no file views). */
  #resources(): Array<{ uri: string; digest: string; size: number }> {
    const { packed, length } = this.columns;
    const resources = new Array<{ uri: string; digest: string; size: number }>(length);
    for (let position = 0; position < length; position++) {
      const index = this.columns.at(position);
      resources[position] = Object.freeze({
        uri: `${this.rootUri}/${this.columns.relativeUri(index)}`,
        digest: packed.digest(index),
        size: packed.size(index),
      });
    }
    return resources;
  }

  get entry(): SkillEntry {
    return Object.freeze({
      uri: this.uri,
      frontmatter: this.frontmatter as SkillEntry['frontmatter'],
      resources: Object.freeze(this.#resources()),
      _meta: this.entryMeta,
    }) as SkillEntry;
  }
}

function roundTrips(uri: string): boolean {
  try {
    return new URL(uri).href === uri;
  } catch {
    return false;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
