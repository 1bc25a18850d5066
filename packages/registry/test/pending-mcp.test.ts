import { describe } from 'node:test';
import { storeDir } from '@skillport/test-kit';
import { pendingTests } from './pending-review.js';

/** Versions held for review over MCP on a folder store (pending-review.ts). */
describe('versions held for review over MCP: their publisher and reviewers only (folder store)', () => {
  pendingTests(async () => storeDir());
});
