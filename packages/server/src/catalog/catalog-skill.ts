import { compareStrings, encodePath, joinSkillUri, readRequirements } from '@skillport/core';
import type { SkillManifest } from '@skillport/core';
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
      const entry: CatalogFile = { uri: `${rootUri}/${encodePath(file.path)}`, path: file.path, size: file.size, digest: file.digest, mimeType: file.mimeType };
      if (file.target !== undefined) entry.target = file.target;
      return entry;
    })
    .sort((a, b) => compareStrings(a.uri, b.uri));
  // A manifest made before requirements were read (a stored registry record) is read from its frontmatter alone.
  const requirements = manifest.requirements ?? readRequirements(manifest.frontmatter).requirements;
  const entryMeta: Record<string, unknown> = { ...meta, [META_PACKAGE_DIGEST]: manifest.packageDigest };
  if (requirements !== undefined) entryMeta[META_REQUIREMENTS] = requirements;
  const entry = deepFreeze({
    uri,
    frontmatter: manifest.frontmatter as SkillEntry['frontmatter'],
    resources: files.map((file) => ({ uri: file.uri, digest: file.digest, size: file.size })),
    _meta: entryMeta,
  });
  const skill: CatalogSkill = {
    uri,
    rootUri,
    name: manifest.name,
    description: manifest.description,
    frontmatter: manifest.frontmatter,
    headings: manifest.headings,
    files,
    totalBytes: manifest.totalBytes,
    packageDigest: manifest.packageDigest,
    origin,
    entry,
  };
  if (requirements !== undefined) skill.requirements = requirements;
  return skill;
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
