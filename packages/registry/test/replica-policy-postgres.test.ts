import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { connectAs, createToken, startHttp, tempFolder } from '@skillport/test-kit';
import { testPostgresForFile } from './postgres-server.js';
import { Api, TWO_ORGS, skillArchive } from './write-attack.js';

/**
 * A replica started without --policy serves the policy stored in the shared database, and its start-up line says
 * so (it said "no policy" while hiding what the stored policy hides). Two real servers on one embedded PostgreSQL.
 */
const postgres = testPostgresForFile();

const listed = async (url: string, token: string): Promise<string[]> => {
  const client = await connectAs(url, 'legacy', token);
  try {
    return (await new SkillsClient(client).list()).skills.map((skill) => skill.uri).sort();
  } finally {
    await client.close();
  }
};

describe('a replica without --policy', () => {
  test('names the stored policy, and serves it', { timeout: 240_000 }, async () => {
    const url = await postgres().createDatabase();
    const policy = join(tempFolder('skillport-replica-policy-'), 'policy.yaml');
    writeFileSync(policy, TWO_ORGS);
    const acme = await createToken(url, ['--user', 'acme-ci', '--org', 'acme', '--scope', 'publish']);
    const beta = await createToken(url, ['--user', 'bob', '--org', 'beta']);
    const primary = await startHttp(['--data', url, '--auth', 'tokens', '--policy', policy, '--no-web']);
    let replica: Awaited<ReturnType<typeof startHttp>> | undefined;
    try {
      const api = new Api(primary.url.replace(/\/mcp$/, ''));
      assert.equal((await api.publish(acme, skillArchive('acme-deploy', '1.0.0'))).status, 201);
      replica = await startHttp(['--data', url, '--auth', 'tokens', '--no-web']);
      assert.match(replica.stderr(), /policy: the one stored in the database/, replica.stderr());
      assert.doesNotMatch(replica.stderr(), /no policy/, replica.stderr());
      assert.deepEqual(await listed(replica.url, acme), ['skill://acme-deploy/SKILL.md']);
      assert.deepEqual(await listed(replica.url, beta), [], 'the stored policy hides acme from beta on the replica too');
    } finally {
      await replica?.stop();
      await primary.stop();
    }
  });

  test('of a database that stores none says "no policy"', { timeout: 240_000 }, async () => {
    const url = await postgres().createDatabase();
    const server = await startHttp(['--data', url, '--auth', 'tokens', '--no-web']);
    try {
      assert.match(server.stderr(), /auth: tokens, no policy/, server.stderr());
    } finally {
      await server.stop();
    }
  });
});
