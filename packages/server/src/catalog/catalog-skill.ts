import { compareStrings, encodePath, joinSkillUri, readRequirements } from '@skillport/core';
import type { SkillFileRecord, SkillManifest, SkillRequirements } from '@skillport/core';
import { META_PACKAGE_DIGEST, META_REQUIREMENTS } from './model.js';
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
  const rootUri = joinSkillUri([...path]);
  const uri = `${rootUri}/SKILL.md`;
  if (!roundTrips(uri)) return `the skill path cannot be written as a skill:// URI (${uri})`;
  const files: CatalogFile[] = manifest.files
    .map((file) => {
      const encoded = encodePath(file.path);
      return new ServedFile(file, rootUri, encoded === file.path ? undefined : encoded);
    })
    .sort((a, b) => compareStrings(a.relativeUri, b.relativeUri));
  // A manifest made before requirements were read (a stored registry record) is read from its frontmatter alone.
  const requirements = manifest.requirements ?? readRequirements(manifest.frontmatter).requirements;
  const entryMeta: Record<string, unknown> = { ...meta, [META_PACKAGE_DIGEST]: manifest.packageDigest };
  if (requirements !== undefined) entryMeta[META_REQUIREMENTS] = requirements;
  // Frozen now, as the entry made from them will be: exactly what clients receive, whenever it is made.
  deepFreeze(manifest.frontmatter);
  deepFreeze(entryMeta);
  return new BuiltSkill(uri, rootUri, manifest, files, origin, entryMeta, requirements);
}

/**
 * A skill's file as the catalog serves it: the manifest's own record and the skill's root URI, its URI derived on
 * use (`relativeUri` is the encoded path, kept only when encoding changes it). One small object per file and no URI
 * string: at 100,000 skills (450,000 files) a stored URI per file was ~50 MB of strings.
 */
class ServedFile implements CatalogFile {
  constructor(
    readonly record: SkillFileRecord,
    readonly rootUri: string,
    readonly encoded: string | undefined,
  ) {}
  get uri(): string {
    return `${this.rootUri}/${this.encoded ?? this.record.path}`;
  }
  /** The URI after the skill folder's (`references/guide.md`, percent-encoded): what files are sorted and found by. */
  get relativeUri(): string {
    return this.encoded ?? this.record.path;
  }
  get path(): string {
    return this.record.path;
  }
  get size(): number {
    return this.record.size;
  }
  get digest(): string {
    return this.record.digest;
  }
  get mimeType(): string {
    return this.record.mimeType;
  }
  get target(): string | undefined {
    return this.record.target;
  }
}

/** A file's URI after its skill folder's: derived for a ServedFile, cut from the URI otherwise. */
export function relativeFileUri(file: CatalogFile, rootUri: string): string {
  return file instanceof ServedFile ? file.relativeUri : file.uri.slice(rootUri.length + 1);
}

/**
 * A catalog skill whose wire entry is made when it is asked for (a page that is then cached as bytes, a skills/get)
 * instead of kept beside the skill for its whole life: the entry's resource list was one more object per file.
 */
class BuiltSkill implements CatalogSkill {
  readonly name: string;
  readonly description: string;
  readonly frontmatter: Record<string, unknown>;
  readonly headings: readonly string[];
  readonly totalBytes: number;
  readonly packageDigest: string;
  declare artifact?: CatalogFile;
  declare filesUnlisted?: string;
  declare requirements?: SkillRequirements;

  constructor(
    readonly uri: string,
    readonly rootUri: string,
    manifest: SkillManifest,
    readonly files: readonly CatalogFile[],
    readonly origin: SkillOrigin,
    readonly entryMeta: Record<string, unknown>,
    requirements: SkillRequirements | undefined,
  ) {
    this.name = manifest.name;
    this.description = manifest.description;
    this.frontmatter = manifest.frontmatter;
    this.headings = manifest.headings;
    this.totalBytes = manifest.totalBytes;
    this.packageDigest = manifest.packageDigest;
    if (requirements !== undefined) this.requirements = requirements;
  }

  get entry(): SkillEntry {
    return Object.freeze({
      uri: this.uri,
      frontmatter: this.frontmatter as SkillEntry['frontmatter'],
      resources: Object.freeze(this.files.map((file) => Object.freeze({ uri: file.uri, digest: file.digest, size: file.size }))),
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
