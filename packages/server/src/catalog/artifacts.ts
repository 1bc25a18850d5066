import type { CatalogFile, CatalogSkill } from './model.js';
import type { CatalogSnapshot } from './snapshot.js';

/**
 * Skills' packed forms (CatalogSkill.artifact: an archive served byte for byte, for draft-era clients that read
 * `archive` index entries), found by URI. The map is built once per snapshot, on the first lookup, and goes with it.
 */
const bySnapshot = new WeakMap<CatalogSnapshot, Map<string, { skill: CatalogSkill; file: CatalogFile }>>();

export function artifactAt(snapshot: CatalogSnapshot, uri: string): { skill: CatalogSkill; file: CatalogFile } | undefined {
  let artifacts = bySnapshot.get(snapshot);
  if (artifacts === undefined) {
    artifacts = new Map();
    for (const skill of snapshot.skills) {
      // A URI that is also a served file or folder belongs to that file or folder.
      if (skill.artifact !== undefined && snapshot.file(skill.artifact.uri) === undefined && !snapshot.isDirectory(skill.artifact.uri)) {
        artifacts.set(skill.artifact.uri, { skill, file: skill.artifact });
      }
    }
    bySnapshot.set(snapshot, artifacts);
  }
  return artifacts.get(uri);
}
