import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { McpSkillSource, openSkills } from '../src/index.js';
import { connectAs, createToken, publish, releaseFolder, startHttp, storeDir, tempFolder } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * A host using this client is told what a skillport registry says of a version at activation: a version held for
 * review (to its publisher) and one no person reviewed whose scan found something, as the server's activate_skill
 * says it; a reviewed or clean version is activated without either. Real `serve --data --auth tokens --policy`,
 * real publishes, real SDK clients in both eras.
 */
const POLICY = `default: none
rules:
  - skills: "acme-*"
    allow: [org:acme]
  - skills: "beta-*"
    allow: [org:beta]
gate:
  block: high
  rules:
    - skills: "acme-*"
      review: medium
`;

const SUDO = { 'scripts/install.md': 'Install the tool:\n\n```bash\nsudo apt-get install -y zyxwv-helper\n```\n' };

describe('the client surfaces a registry version’s review state to the model', () => {
  const tokens: Record<string, string> = {};
  let server: RunningServer;
  const clients: Client[] = [];

  before(async () => {
    const data = storeDir();
    const policy = join(tempFolder('skillport-client-notes-'), 'policy.yaml');
    writeFileSync(policy, POLICY);
    tokens['acme'] = await createToken(data, ['--user', 'acme-ci', '--org', 'acme', '--scope', 'publish']);
    tokens['alice'] = await createToken(data, ['--user', 'alice', '--org', 'acme']);
    tokens['beta'] = await createToken(data, ['--user', 'beta-ci', '--org', 'beta', '--scope', 'publish']);
    server = await startHttp(['--data', data, '--auth', 'tokens', '--policy', policy]);
    const registry = server.url.replace(/\/mcp$/, '');
    const published = [
      await publish([releaseFolder('acme-clean', '1'), '--registry', registry, '--token', tokens['acme']!, '--version', '1.0.0']),
      await publish([releaseFolder('acme-held', '1', SUDO), '--registry', registry, '--token', tokens['acme']!, '--version', '1.0.0']),
      await publish([releaseFolder('beta-tool', '1', SUDO), '--registry', registry, '--token', tokens['beta']!, '--version', '1.0.0']),
    ];
    for (const result of published) assert.equal(result.code, 0, result.stderr);
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await server?.stop();
  });

  const session = async (token: string, era: 'legacy' | 'modern') => {
    const client = await connectAs(server.url, era, token);
    clients.push(client);
    return openSkills([McpSkillSource.fromClient(client, { id: 'registry' })]).session();
  };

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era}: unreviewed with findings carries the scan summary; pending carries the review mark; clean carries neither`, async () => {
      const beta = await (await session(tokens['beta']!, era)).activate('beta-tool');
      assert.match(beta.content, /sudo apt-get install|Release 1/);
      assert.match(
        beta.content,
        /<\/skill_content>\n<skill_scan>No person has reviewed this version\. An automated scan by the registry found: medium: Runs commands as root \(script-sudo\)/,
      );
      assert.doesNotMatch(beta.content, /skill_review/);

      const publisher = await session(tokens['acme']!, era);
      const held = await publisher.activate('acme-held');
      assert.match(held.content, /<skill_review status="pending">pending review, not approved/);
      const clean = await publisher.activate('acme-clean');
      assert.doesNotMatch(clean.content, /skill_review|skill_scan/);

      // A reader of the org is not given the held version at all, and its clean skill is unmarked.
      const reader = await session(tokens['alice']!, era);
      await assert.rejects(reader.activate('acme-held'));
      assert.doesNotMatch((await reader.activate('acme-clean')).content, /skill_review|skill_scan/);
    });
  }
});
