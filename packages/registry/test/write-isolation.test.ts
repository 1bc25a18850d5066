import { describe } from 'node:test';
import { storeDir } from '@skillport/test-kit';
import { attackTests } from './write-attack.js';

/**
 * Write isolation on a folder store: every write is authorised against the name it writes (from the archive as well
 * as from the path), through real `serve --http --auth tokens --policy` processes and real HTTP.
 */
describe('the cross-organisation write attack, on a folder store', () => {
  attackTests(async () => storeDir());
});
