import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connectAs, connectHttp, connectStdio, createToken, eventually, makeTree, skillMd, startHttp } from '@skillport/test-kit';

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

  test("a skill's reference files are searched; its README is not; an edited reference is searched anew (stdio)", async () => {
    const dir = makeTree({
      'triage/SKILL.md': skillMd('triage', 'Diagnoses a broken Linux install. Use when a machine stops booting.'),
      'triage/references/pacman.md': '# Package managers\n\nAfter a pacman upgrade, roll back from the package cache.\n',
      'triage/README.md': 'Maintained by the wombat team.\n',
      'other/SKILL.md': skillMd('other', 'Writes release notes. Use when preparing a release.'),
    });
    const { client } = await connectStdio([dir], 'modern');
    try {
      assert.deepEqual(names(await search(client, 'pacman upgrade')), ['triage']);
      assert.deepEqual(names(await search(client, 'wombat')), []);
      writeFileSync(join(dir, 'triage/references/pacman.md'), '# Package managers\n\nAfter a dnf upgrade, use the snapper quokka snapshot.\n');
      await eventually(
        async () => (names(await search(client, 'snapper snapshot'))[0] === 'triage' ? true : undefined),
        10_000,
        'the edited reference to be searchable',
      );
    } finally {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
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
      const seen = await search(other, 'zebra crossings');
      assert.deepEqual(names(seen), ['zebra-guide']);
      assert.equal(seen.indexing, undefined);
      // Words only the hidden skill holds are unknown in the outsider's view: nothing fits, nothing leaks.
      assert.deepEqual(names(await search(other, 'zebra ledger budgets')), []);
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

/** The search index's state on /healthz (search/catalog-search.ts, SearchState). */
interface SearchState {
  indexed: number;
  total: number;
  ready: boolean;
  eager: boolean;
  deferred: number;
  diffs: { delta: number; full: number };
}

async function searchState(url: string): Promise<SearchState> {
  const response = await fetch(new URL('/healthz', url));
  return ((await response.json()) as { search: SearchState }).search;
}

function catalogOf(count: number): string {
  const spec: Record<string, string> = {};
  for (let at = 0; at < count; at++) spec[`skill-${at}/SKILL.md`] = skillMd(`skill-${at}`, `Handles task number ${at} of the ledger.`);
  spec['notes/SKILL.md'] = skillMd('notes', 'Writes release notes. Use when preparing a release.');
  return makeTree(spec);
}

describe('the search index is built when it costs readers nothing (ADR 0151)', () => {
  test('a server nobody searches builds no index while reads flow; the first search builds it and is complete', async () => {
    const dir = catalogOf(30);
    // Quiet needed before a background slice: longer than any pause between the reads below.
    const server = await startHttp([dir], { SKILLPORT_SEARCH_IDLE_MS: '2000' });
    const client = await connectHttp(server.url, 'modern');
    let reading = true;
    let answered = 0;
    // Raw requests: a client's cache would answer repeated reads without asking the server.
    const reads = Array.from({ length: 4 }, async (_, lane) => {
      for (let at = lane; reading; at += 4) {
        const response = await fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
          body: JSON.stringify({ jsonrpc: '2.0', id: at, method: 'resources/read', params: { uri: `skill://skill-${at % 30}/SKILL.md` } }),
        });
        assert.equal(response.status, 200);
        assert.ok(((await response.json()) as { result?: unknown }).result !== undefined);
        answered++;
      }
    });
    try {
      // The builder looked several times and found the server busy each time: it indexed nothing.
      const during = await eventually(
        async () => {
          const state = await searchState(server.url);
          return state.deferred >= 3 ? state : undefined;
        },
        60_000,
        'the background build to wait for quiet three times',
      );
      assert.equal(during.indexed, 0, 'nothing indexed while reads flow');
      assert.equal(during.total, 31);
      assert.equal(during.ready, false);
      assert.equal(during.eager, false);
      reading = false;
      await Promise.all(reads);
      assert.ok(answered > 0);

      // The first search asks for the index: a small catalog is built at once and the answer is complete.
      const found = await search(client, 'release notes');
      assert.deepEqual(names(found), ['notes']);
      assert.equal(found.indexing, undefined);
      const after = await searchState(server.url);
      assert.deepEqual([after.indexed, after.total, after.ready, after.eager], [31, 31, true, true]);
    } finally {
      reading = false;
      await Promise.all(reads);
      await client.close();
      await server.stop();
    }
  });

  test('an idle server builds the index by itself; a change is then indexed from its delta, not by a walk of the catalog', async () => {
    const dir = catalogOf(12);
    const server = await startHttp([dir], { SKILLPORT_SEARCH_IDLE_MS: '20' });
    try {
      // Health probes are not activity: polling /healthz does not hold the build back.
      const built = await eventually(
        async () => {
          const state = await searchState(server.url);
          return state.ready ? state : undefined;
        },
        30_000,
        'the index to be built while the server is idle',
      );
      assert.deepEqual([built.indexed, built.total, built.eager], [13, 13, false]);
      assert.equal(built.diffs.full, 1, 'the first build diffs the whole catalog once');

      writeFileSync(join(dir, 'skill-3/SKILL.md'), skillMd('skill-3', 'Feeds the quokka colony.'));
      const changed = await eventually(
        async () => {
          const state = await searchState(server.url);
          return state.ready && state.diffs.delta + state.diffs.full > 1 ? state : undefined;
        },
        30_000,
        'the change to be indexed',
      );
      assert.equal(changed.diffs.full, 1, 'no second walk of the whole catalog');
      assert.equal(changed.diffs.delta, 1);
      const client = await connectHttp(server.url, 'modern');
      try {
        assert.deepEqual(names(await search(client, 'quokka colony')), ['skill-3']);
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });
});
