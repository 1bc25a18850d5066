import { parentPort, workerData } from 'node:worker_threads';
import { DigestCache } from '@skillport/core';
import type { FolderProblem, SkillLimits } from '@skillport/core';
import { scanRoot } from './folder-scan.js';
import type { FolderRoot, ScannedFolder } from './folder-scan.js';

/**
 * Scans every root off the main thread (so a server answering from its persisted catalog keeps answering), with
 * the persistent digest cache, and posts the result back. See persisted-catalog.ts.
 */
export interface ScanRequest {
  roots: FolderRoot[];
  limits: SkillLimits;
  digestCachePath?: string;
}

export interface ScanResult {
  folders: Array<Omit<ScannedFolder, 'root'> & { root: number }>;
  problems: FolderProblem[];
}

const request = workerData as ScanRequest;
const cache = new DigestCache(request.digestCachePath);
const result: ScanResult = { folders: [], problems: [] };
request.roots.forEach((root, index) => {
  const { folders, problems } = scanRoot(root, { limits: request.limits, cache });
  result.problems.push(...problems);
  for (const folder of folders) result.folders.push({ ...folder, root: index });
});
cache.save();
parentPort?.postMessage(result);
