import { SkillSearchIndex, decodeText, splitFrontmatter } from '@skillport/core';
import type { SearchDocument } from '@skillport/core';
import type { CatalogSkill } from '../catalog/model.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';
import type { SkillsService } from '../mcp/skills-service.js';

/**
 * One search index per catalog snapshot, built on the first query and dropped with the snapshot (a WeakMap), so a
 * reload never serves results from an older catalog and an unsearched server never pays for an index.
 *
 * The index covers each skill's name, description, headings and the opening of its SKILL.md body. Bodies are not
 * kept in the catalog (memory): they are read when the index is built, verified like any read, without filling
 * the content cache. A SKILL.md that cannot be read is indexed without its body.
 */
const indexes = new WeakMap<CatalogSnapshot, Promise<SkillSearchIndex>>();

export function searchIndex(snapshot: CatalogSnapshot, service: SkillsService): Promise<SkillSearchIndex> {
  let index = indexes.get(snapshot);
  if (index === undefined) {
    index = buildIndex(snapshot, service);
    indexes.set(snapshot, index);
  }
  return index;
}

async function buildIndex(snapshot: CatalogSnapshot, service: SkillsService): Promise<SkillSearchIndex> {
  const documents: SearchDocument[] = [];
  for (const skill of snapshot.skills) {
    documents.push({ id: skill.uri, name: skill.name, description: skill.description, headings: skill.headings, body: await body(skill, service) });
  }
  return new SkillSearchIndex(documents);
}

async function body(skill: CatalogSkill, service: SkillsService): Promise<string> {
  const manifest = skill.files.find((file) => file.uri === skill.uri);
  if (manifest === undefined) return '';
  try {
    const text = decodeText(await service.options.content.read(manifest, skill.origin, false));
    return text === undefined ? '' : splitFrontmatter(text, Number.MAX_SAFE_INTEGER).body;
  } catch {
    return '';
  }
}
