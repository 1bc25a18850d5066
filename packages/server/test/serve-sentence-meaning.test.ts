import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { SentenceEncoder, rerankByMeaning, skillSentence } from '@skillport/search';
import { EXAMPLES, connectHttp, eventually, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

type Found = { skills: Array<{ name: string; description: string; uri: string; score: number; reason: string }> };
async function search(client: Client, query: string, limit = 10): Promise<Found['skills']> {
  return ((await client.callTool({ name: 'list_skills', arguments: { query, limit } })).structuredContent as Found).skills;
}
const names = (skills: Found['skills']) => skills.map((skill) => skill.name);

// Queries whose lexical hits the shipped encoder reorders on the examples ("summarize changes": the commit-message
// skill first by its words, release notes first by meaning), and one it leaves as it is.
const QUERIES = ['summarize changes', 'review the changes', 'clean up the changelog', 'what went wrong with the database'];

describe('list_skills with --embeddings builtin (the sentence encoder shipped in npm)', () => {
  const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-sentences-'));
  const encoder = new SentenceEncoder();
  let meaning: RunningServer;
  let lexical: RunningServer;
  let meaningClient: Client;
  let lexicalClient: Client;
  before(async () => {
    [meaning, lexical] = await Promise.all([
      startHttp([EXAMPLES, '--embeddings', 'builtin', '--cache-dir', cacheDir], {}, { cache: true }),
      startHttp([EXAMPLES]),
    ]);
    [meaningClient, lexicalClient] = await Promise.all([connectHttp(meaning.url, 'modern'), connectHttp(lexical.url, 'modern')]);
  });
  after(async () => {
    await Promise.all([meaningClient.close(), lexicalClient.close()]);
    await Promise.all([meaning.stop(), lexical.stop(), encoder.close()]);
    rmSync(cacheDir, { recursive: true, force: true });
  });

  test('once every skill is embedded, the lexical hits come reordered by meaning, and the vectors are kept on disk', async () => {
    // The expected order: the lexical server's hits (the same index) reordered here with the same encoder.
    const expected = new Map<string, string[]>();
    for (const query of QUERIES) {
      const hits = await search(lexicalClient, query, 50);
      const vectors = await encoder.embed([query, ...hits.map((hit) => skillSentence(hit.name, hit.description))]);
      const byUri = new Map(hits.map((hit, at) => [hit.uri, vectors[at + 1]!]));
      const ranked = rerankByMeaning(
        hits.map((hit) => ({ ...hit, id: hit.uri })),
        vectors[0]!,
        (uri) => byUri.get(uri),
      );
      expected.set(
        query,
        ranked.slice(0, 10).map((hit) => hit.name),
      );
    }
    assert.notDeepEqual(expected.get('summarize changes'), names(await search(lexicalClient, 'summarize changes')), 'meaning moves this one');
    assert.deepEqual(expected.get('what went wrong with the database'), names(await search(lexicalClient, 'what went wrong with the database')));
    // Skills are embedded in the background from the first search on; until then the lexical order is served.
    await eventually(
      async () => {
        const found = names(await search(meaningClient, 'summarize changes'));
        return JSON.stringify(found) === JSON.stringify(expected.get('summarize changes')) ? found : undefined;
      },
      180_000,
      'the reordered answer',
    );
    for (const query of QUERIES) assert.deepEqual(names(await search(meaningClient, query)), expected.get(query), query);
    // Reasons are the lexical ones; what no word matches is still not found, and no result stays no result.
    const [first] = await search(meaningClient, 'summarize changes');
    assert.match(first!.reason, /chang/);
    assert.deepEqual(await search(meaningClient, 'bake sourdough bread with a crispy crust'), []);
    const files = readdirSync(join(cacheDir, 'sentences', 'use-lite-1')).filter((file) => file.endsWith('.f32'));
    assert.equal(files.length, 6);
  });

  test('a restart reads the kept vectors instead of embedding again', async () => {
    const again = await startHttp([EXAMPLES, '--embeddings', 'builtin', '--cache-dir', cacheDir], {}, { cache: true });
    const client = await connectHttp(again.url, 'modern');
    try {
      const lexicalOrder = names(await search(lexicalClient, 'summarize changes'));
      // The first search already has every vector: the answer is reordered at once (the query itself is embedded).
      const found = names(await search(client, 'summarize changes'));
      assert.notDeepEqual(found, lexicalOrder);
    } finally {
      await client.close();
      await again.stop();
    }
  });

  test('--embeddings refuses what is neither a URL nor builtin', async () => {
    await assert.rejects(startHttp([EXAMPLES, '--embeddings', 'built-in']), /--embeddings needs a URL .*\(or builtin\)/);
  });
});
