import { describe } from 'node:test';
import { testPostgresForFile } from './postgres-server.js';
import { pendingTests } from './pending-review.js';

/**
 * Versions held for review over MCP on PostgreSQL (pending-review.ts): tokens, the policy and the registry in one
 * database; the stdio server is a second replica of it.
 */
const postgres = testPostgresForFile();

describe('versions held for review over MCP: their publisher and reviewers only (PostgreSQL)', () => {
  pendingTests(() => postgres().createDatabase());
});
