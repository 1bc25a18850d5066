import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SkillEmbeddings, fuseRankings } from '../src/index.js';
import type { CatalogSnapshot } from '../src/index.js';

/**
 * A real OpenAI-compatible /v1/embeddings endpoint on 127.0.0.1 with deterministic vectors: one dimension per
 * "concept" (words listed together count for the same dimension), so that a query can be close in meaning to a
 * skill without sharing a word with it.
 */
const CONCEPTS = [
  ['zorblax', 'postgres', 'sql'],
  ['flibber', 'outage', 'incident'],
  ['commit', 'git'],
];
function vector(text: string): number[] {
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  return CONCEPTS.map((concept) => words.filter((word) => concept.includes(word)).length + 0.01);
}

function startEndpoint(status = 200): Promise<{ server: Server; url: string; inputs: string[][] }> {
  const inputs: string[][] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { input } = JSON.parse(body) as { input: string[] };
      inputs.push(input);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? JSON.stringify({ data: input.map((text, index) => ({ index, embedding: vector(text) })) }) : '{"error":"down"}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, inputs })),
  );
}

const skill = (name: string, description: string, digest: string) => ({
  uri: `skill://${name}/SKILL.md`,
  name,
  description,
  headings: [],
  packageDigest: digest,
});
const snapshot = (skills: ReturnType<typeof skill>[]) => ({ skills }) as unknown as CatalogSnapshot;
const SKILLS = [
  skill('sql-tuning', 'Speed up slow postgres queries.', 'sha256:aa'),
  skill('postmortem', 'Write up an incident after an outage.', 'sha256:bb'),
  skill('commits', 'Word git commit messages.', 'sha256:cc'),
];

describe('embeddings (serve --embeddings)', () => {
  let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
  let failing: Awaited<ReturnType<typeof startEndpoint>>;
  const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-embeddings-'));
  before(async () => {
    [endpoint, failing] = await Promise.all([startEndpoint(), startEndpoint(500)]);
  });
  after(() => {
    endpoint.server.close();
    failing.server.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  test('ranks skills by meaning, and caches their vectors by digest on disk', async () => {
    const embeddings = new SkillEmbeddings({ url: endpoint.url, model: 'fake', cacheDir });
    assert.deepEqual((await embeddings.rank(snapshot(SKILLS), 'zorblax', 2))?.[0], 'skill://sql-tuning/SKILL.md');
    assert.deepEqual(await embeddings.rank(snapshot(SKILLS), 'flibber', 1), ['skill://postmortem/SKILL.md']);
    assert.equal(endpoint.inputs.filter((input) => input.length === 3).length, 1, 'the skills were embedded once for the snapshot');
    const files = readdirSync(join(cacheDir, 'embeddings', readdirSync(join(cacheDir, 'embeddings'))[0]!));
    assert.deepEqual(files.sort(), ['sha256_aa.json', 'sha256_bb.json', 'sha256_cc.json']);
    // A new process (a new instance) with one skill changed embeds only that skill.
    const restarted = new SkillEmbeddings({ url: endpoint.url, model: 'fake', cacheDir });
    const changed = [SKILLS[0]!, SKILLS[1]!, skill('commits', 'Word git commit messages well.', 'sha256:dd')];
    endpoint.inputs.length = 0;
    assert.equal((await restarted.rank(snapshot(changed), 'git', 1))?.[0], 'skill://commits/SKILL.md');
    assert.deepEqual(endpoint.inputs, [['commits\nWord git commit messages well.'], ['git']]);
  });

  test('an endpoint that fails or does not answer gives undefined (the caller serves lexical results)', async () => {
    const down = new SkillEmbeddings({ url: failing.url, model: 'fake' });
    assert.equal(await down.rank(snapshot(SKILLS), 'zorblax', 3), undefined);
    const closed = new SkillEmbeddings({ url: 'http://127.0.0.1:9/v1', model: 'fake', timeoutMs: 500 });
    assert.equal(await closed.rank(snapshot(SKILLS), 'zorblax', 3), undefined);
  });

  test('reciprocal-rank fusion rewards skills both rankings place high', () => {
    const fused = fuseRankings([
      ['a', 'b', 'c'],
      ['b', 'd', 'c'],
    ]);
    assert.deepEqual(
      fused.map((hit) => hit.id),
      ['b', 'c', 'a', 'd'],
    );
    assert.ok(Math.abs(fused[0]!.score - (1 / 62 + 1 / 61)) < 1e-12);
  });
});
