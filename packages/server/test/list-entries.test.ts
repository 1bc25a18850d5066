import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mimeTypeFor, sha256Digest } from '@skillport/core';
import type { SkillFileRecord, SkillManifest } from '@skillport/core';
import { buildCatalogSkill, entryMetaOf } from '../src/catalog/catalog-skill.js';
import type { CatalogSkill } from '../src/catalog/model.js';
import { SkillsService } from '../src/mcp/skills-service.js';
import type { SkillsServiceOptions } from '../src/mcp/skills-service.js';
import { META_SCAN } from '../src/tools/review-notes.js';
import { META_PROVENANCE } from '../src/tools/versions.js';

/**
 * A listed skill's wire entry is made when it is asked for (the page cache keeps pages as bytes); only an entry that
 * carries a scan note is kept, once per skill. What a client receives is the same either way.
 */
const record = (path: string): SkillFileRecord => ({ path, size: path.length, digest: sha256Digest(Buffer.from(path)), mimeType: mimeTypeFor(path) });

const manifest = (name: string, paths: string[]): SkillManifest => {
  const files = paths.map(record);
  return {
    name,
    description: `the ${name} skill`,
    frontmatter: { name, description: `the ${name} skill` },
    headings: [],
    files,
    totalBytes: files.reduce((sum, file) => sum + file.size, 0),
    packageDigest: sha256Digest(Buffer.from(files.map((file) => file.digest).join())),
  };
};

const build = (name: string, meta: Record<string, unknown> = {}): CatalogSkill => {
  const built = buildCatalogSkill(
    manifest(name, ['SKILL.md', 'references/a b.md', 'scripts/run.sh']),
    ['tests', name],
    { kind: 'folder', root: '/r', dir: `/r/${name}`, realDir: `/r/${name}` },
    meta,
  );
  assert.ok(typeof built !== 'string', String(built));
  return built;
};

// entryFor reads nothing of the service's options but the grants: the rest is never called.
const service = new SkillsService({ pageSize: 10 } as unknown as SkillsServiceOptions);

describe('list entries: made when asked for, the scanned ones kept', () => {
  test('a skill with no scan note: a new entry each time, equal to the skill entry, resources in URI order', () => {
    const skill = build('plain');
    const first = service.entryFor(skill);
    const second = service.entryFor(skill);
    assert.notEqual(first, second);
    assert.deepEqual(first, second);
    assert.equal(JSON.stringify(first), JSON.stringify(skill.entry));
    assert.equal(first.uri, 'skill://tests/plain/SKILL.md');
    const resources = first.resources as Array<{ uri: string }>;
    assert.deepEqual(
      resources.map((resource) => resource.uri),
      ['skill://tests/plain/SKILL.md', 'skill://tests/plain/references/a%20b.md', 'skill://tests/plain/scripts/run.sh'],
    );
    assert.equal(first._meta?.[META_SCAN], undefined);
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.resources) && Object.isFrozen(resources[0]));
    assert.equal(skill.rootUri, 'skill://tests/plain');
  });

  test('a registry version no person reviewed whose scan found something: its note listed, the entry kept', () => {
    const provenance = { review: 'pending', scan: { rules: [{ rule: 'script-sudo', severity: 'medium', title: 'Runs commands as root', count: 2 }] } };
    const skill = build('scanned', { [META_PROVENANCE]: provenance });
    const first = service.entryFor(skill);
    assert.equal(service.entryFor(skill), first);
    assert.match(
      String(first._meta?.[META_SCAN]),
      /^No person has reviewed this version\. An automated scan by the registry found: medium: Runs commands as root \(script-sudo, 2 places\)/,
    );
    // Everything else is the skill's own entry.
    const { [META_SCAN]: _, ...rest } = first._meta ?? {};
    assert.deepEqual({ ...first, _meta: rest }, skill.entry);
  });

  test('entryMetaOf gives the entry `_meta` without making the entry', () => {
    const skill = build('meta', { [META_PROVENANCE]: { review: 'approved' } });
    assert.deepEqual(entryMetaOf(skill), skill.entry._meta);
    assert.equal(entryMetaOf(skill), skill.entry._meta);
    const plain = { entry: { _meta: { x: 1 } } } as unknown as CatalogSkill;
    assert.deepEqual(entryMetaOf(plain), { x: 1 });
  });
});
