import { SkillSearchIndex } from '@skillport/core';
import type { CatalogSnapshot } from '../catalog/snapshot.js';

/**
 * One search index per catalog snapshot, built on the first query and dropped with the snapshot (a WeakMap), so a
 * reload never serves results from an older catalog and an unsearched server never pays for an index.
 */
const indexes = new WeakMap<CatalogSnapshot, SkillSearchIndex>();

export function searchIndex(snapshot: CatalogSnapshot): SkillSearchIndex {
  let index = indexes.get(snapshot);
  if (index === undefined) {
    index = new SkillSearchIndex(snapshot.skills.map((skill) => ({ id: skill.uri, name: skill.name, description: skill.description, headings: skill.headings })));
    indexes.set(snapshot, index);
  }
  return index;
}
