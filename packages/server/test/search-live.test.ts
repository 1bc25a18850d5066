import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connectStdio, eventually, makeTree, skillMd, startHttp } from '@skillport/test-kit';
import { connectAs, createToken } from '@skillport/test-kit';

/**
 * Search follows the catalog without a restart (issue 13, item 2): the server keeps one search index, updated skill
 * by skill as files change, shared by every principal's view. Checked through real MCP clients.
 */

interface Searched {
  skills: Array<{ name: string; uri: string }>;
  indexing?: { searched: number; total: number };
}

async function search(client: Client, query: string): Promise<Searched> {
  const result = (await client.callTool({ name: 'list_skills', arguments: { query } })) as { structuredContent: Searched };
  return result.structuredContent;
}

const names = (found: Searched) => found.skills.map((skill) => skill.name);

describe('search follows changes', () => {
  test('an edited skill is found by its new words, a new one is found, a deleted one disappears (stdio, watched folder)', async () => {
    const dir = makeTree({
      'alpha/SKILL.md': skillMd('alpha', 'Formats spreadsheets. Use for spreadsheet work.'),
      'beta/SKILL.md': skillMd('beta', 'Writes release notes. Use when preparing a release.'),
      'gamma/SKILL.md': skillMd('gamma', 'Reviews pull requests. Use when asked for a code review.'),
    });
    const { client } = await connectStdio([dir], 'modern');
    try {
      // The index is complete (a small catalog is waited for) and finds by description.
      const first = await search(client, 'release notes');
      assert.deepEqual(names(first), ['beta']);
      assert.equal(first.indexing, undefined);
      assert.deepEqual(names(await search(client, 'zebra crossing')), []);

      // An edit: the new words find it, the old ones no longer do.
      writeFileSync(
        join(dir, 'beta/SKILL.md'),
        skillMd('beta', 'Guides pedestrians over a zebra crossing.', '', '# beta\n\nLook both ways at the quokka sign.\n'),
      );
      await eventually(
        async () => (names(await search(client, 'zebra crossing'))[0] === 'beta' ? true : undefined),
        10_000,
        'the edited description to be searchable',
      );
      assert.deepEqual(names(await search(client, 'quokka')), ['beta'], 'the edited body is searched too');
      assert.deepEqual(names(await search(client, 'release notes')), []);

      // A new skill.
      makeTree({ 'delta/SKILL.md': skillMd('delta', 'Plans zebra migrations across the savanna.') }, dir);
      await eventually(
        async () => (names(await search(client, 'zebra savanna')).includes('delta') ? true : undefined),
        10_000,
        'the new skill to be searchable',
      );

      // A deleted skill disappears from search, and the others are still found.
      rmSync(join(dir, 'beta'), { recursive: true });
      await eventually(
        async () => (names(await search(client, 'zebra crossing')).includes('beta') ? undefined : true),
        10_000,
        'the deleted skill to leave search',
      );
      assert.deepEqual(names(await search(client, 'quokka')), []);
      assert.deepEqual(names(await search(client, 'code review')), ['gamma']);
      assert.deepEqual(names(await search(client, 'spreadsheets')), ['alpha']);
    } finally {
      await client.close();
    }
  });

  test("a principal's search never shows a skill it cannot see, before or after the hidden skill changes (http, tokens)", async () => {
    const data = mkdtempSync(join(tmpdir(), 'skillport-search-data-'));
    const policy = join(mkdtempSync(join(tmpdir(), 'skillport-search-policy-')), 'policy.yaml');
    writeFileSync(policy, 'default: none\nrules:\n  - uri: skill://open/\n    allow: [public]\n  - uri: skill://secret/\n    allow: [org:acme]\n');
    const dir = makeTree({
      'open/zebra-guide/SKILL.md': skillMd('zebra-guide', 'Explains zebra crossings to new drivers.'),
      'secret/zebra-ledger/SKILL.md': skillMd('zebra-ledger', 'Keeps the zebra ledger of acme. Zebra accounts and zebra budgets.'),
    });
    const acme = await createToken(data, ['--user', 'ann', '--org', 'acme']);
    const outsider = await createToken(data, ['--user', 'otto']);
    const server = await startHttp([dir, '--auth', 'tokens', '--data', data, '--policy', policy]);
    const insider = await connectAs(server.url, 'modern', acme);
    const other = await connectAs(server.url, 'modern', outsider);
    try {
      assert.deepEqual(names(await search(insider, 'zebra')).sort(), ['zebra-guide', 'zebra-ledger']);
      const seen = await search(other, 'zebra ledger budgets');
      assert.deepEqual(names(seen), ['zebra-guide']);
      assert.equal(seen.indexing, undefined);
      // The hidden skill's words find nothing for the outsider (ranked as if the hidden skill did not exist).
      assert.deepEqual(names(await search(other, 'budgets accounts')), []);

      // The hidden skill changes: the insider finds its new words, the outsider still never sees it.
      writeFileSync(join(dir, 'secret/zebra-ledger/SKILL.md'), skillMd('zebra-ledger', 'Keeps the zebra ledger of acme, now with quokka forecasts.'));
      await eventually(
        async () => (names(await search(insider, 'quokka forecasts')).includes('zebra-ledger') ? true : undefined),
        10_000,
        'the edit to be searchable by the insider',
      );
      assert.deepEqual(names(await search(other, 'quokka forecasts')), []);
      assert.deepEqual(names(await search(other, 'zebra')), ['zebra-guide']);
    } finally {
      await Promise.all([insider.close(), other.close()]);
      await server.stop();
    }
  });
});
