import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DISCOVERY_SCHEMA_0_2_0, DiscoveryIndexError, parseDiscoveryIndex } from '../src/index.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`;
const entry = (extra: Record<string, unknown>) => ({
  name: 'code-review',
  type: 'skill-md',
  description: 'Review code.',
  url: 'code-review/SKILL.md',
  digest: DIGEST,
  ...extra,
});

test('entries resolve against the index URL (relative, path-absolute, absolute), with $schema or version', () => {
  const index = 'https://example.com/.well-known/agent-skills/index.json';
  const parsed = parseDiscoveryIndex(
    JSON.stringify({
      $schema: DISCOVERY_SCHEMA_0_2_0,
      skills: [
        entry({}),
        entry({ name: 'wrangler', type: 'archive', url: '/.well-known/agent-skills/wrangler.tar.gz' }),
        entry({ name: 'cdn', url: 'https://cdn.example.com/v2/cdn/SKILL.md' }),
      ],
    }),
    index,
  );
  assert.deepEqual(parsed.skipped, []);
  assert.deepEqual(
    parsed.entries.map((found) => found.url),
    [
      'https://example.com/.well-known/agent-skills/code-review/SKILL.md',
      'https://example.com/.well-known/agent-skills/wrangler.tar.gz',
      'https://cdn.example.com/v2/cdn/SKILL.md',
    ],
  );
  assert.equal(parsed.entries[1]!.type, 'archive');
  // The RFC's own examples carry a version field instead; a UTF-8 BOM is tolerated.
  const versioned = parseDiscoveryIndex(`\uFEFF${JSON.stringify({ version: '0.2.0', skills: [entry({})] })}`, index);
  assert.equal(versioned.entries.length, 1);
});

test('unusable entries are skipped with a reason, the rest kept', () => {
  const parsed = parseDiscoveryIndex(
    JSON.stringify({
      $schema: DISCOVERY_SCHEMA_0_2_0,
      skills: [
        entry({ type: 'mcp-resource-template' }),
        entry({ name: 'Bad Name' }),
        entry({ name: 'no-digest', digest: undefined }),
        entry({ name: 'short-digest', digest: 'sha256:abc' }),
        entry({ name: 'no-desc', description: ' ' }),
        entry({ name: 'ftp', url: 'ftp://example.com/x' }),
        entry({ name: 'creds', url: 'https://user:pw@example.com/x' }),
        entry({ name: 'kept' }),
        entry({ name: 'kept' }),
        null,
      ],
    }),
    'https://example.com/index.json',
  );
  assert.deepEqual(
    parsed.entries.map((found) => found.name),
    ['kept'],
  );
  assert.deepEqual(parsed.skipped, [
    '"code-review": type "mcp-resource-template" is not one this reader serves (skill-md, archive)',
    '"Bad Name": name must be 1-64 lowercase letters, digits and single hyphens',
    '"no-digest": no sha256 digest (sha256:<64 lowercase hex>): its content could not be verified',
    '"short-digest": no sha256 digest (sha256:<64 lowercase hex>): its content could not be verified',
    '"no-desc": no description',
    '"ftp": url scheme ftp: is not http or https',
    '"creds": url must not carry credentials',
    '"kept": listed twice; the first entry is used',
    'skills[9]: type undefined is not one this reader serves (skill-md, archive)',
  ]);
});

test('a whole index that cannot be used is one error', () => {
  const refuse = (text: string) => assert.throws(() => parseDiscoveryIndex(text, 'https://example.com/index.json'), DiscoveryIndexError);
  refuse('{ nope');
  refuse('[]');
  refuse(JSON.stringify({ skills: [{ name: 'x', description: 'y', files: ['SKILL.md'] }] }));
  refuse(JSON.stringify({ $schema: 'https://schemas.agentskills.io/discovery/1.0.0/schema.json', skills: [] }));
  refuse(JSON.stringify({ version: '0.1.0', skills: [] }));
  refuse(JSON.stringify({ $schema: DISCOVERY_SCHEMA_0_2_0 }));
});
