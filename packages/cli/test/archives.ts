import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from './helpers.js';

/**
 * The archive writers of the core tests (zip and tar written from the format specifications, hostile entries
 * included), loaded from core's compiled tests so that both packages build their archives the same way.
 */
type Builders = typeof import('../../core/test/archive-builders.js');
export const { makeTar, makeTarGz, makeZip, makeOverlappingZipBomb, paxPath } = (await import(
  pathToFileURL(join(REPO, 'packages/core/dist/test/archive-builders.js')).href
)) as Builders;
