import { parentPort, workerData } from 'node:worker_threads';
import { firstPageFolders } from './first-page.js';
import type { FirstPageOptions } from './first-page.js';
import type { WireFolder } from './scan-worker.js';

/**
 * The first-page pass (first-page.ts) off the main thread, which meanwhile loads the HTTP stack and the web catalog;
 * with the stack of a scan worker, so the inspections give the scan's verdicts. Its folders go back with their
 * root as an index (the main thread's root objects are the ones served).
 */
const options = workerData as FirstPageOptions;
const folders = await firstPageFolders(options);
const wire: WireFolder[] | undefined = folders?.map((folder) => ({ ...folder, root: options.roots.indexOf(folder.root) }));
parentPort!.postMessage(wire ?? null);
