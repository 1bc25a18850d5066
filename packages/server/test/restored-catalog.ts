import { join } from 'node:path';
import { makeTree } from '@skillport/test-kit';
import { DEFAULT_LIMITS } from '@skillport/core';
import { LiveCatalog } from '../src/catalog/live-catalog.js';
import type { LiveCatalogOptions } from '../src/catalog/live-catalog.js';
import { normaliseRoot } from '../src/catalog/folder-scan.js';

/**
 * A catalog of `root` opened cold (which writes the persisted catalog), closed, and opened again from it: restored,
 * not yet checked against the disk, not watching. `extra` options apply to both opens.
 */
export async function restoredCatalog(root: string, extra: Partial<LiveCatalogOptions> = {}): Promise<LiveCatalog> {
  const options: LiveCatalogOptions = {
    roots: [normaliseRoot(root, undefined)],
    limits: DEFAULT_LIMITS,
    scanThreads: 0,
    persistPath: join(makeTree({}), 'catalog.json'),
    perFolderWatch: true,
    watchSlices: { startBudgetMs: 0, sliceMs: 0 },
    ...extra,
  };
  (await LiveCatalog.open(options)).close();
  return LiveCatalog.open(options);
}
