import { parentPort, workerData } from 'node:worker_threads';
import { DigestCache, discoverSkills } from '@skillport/core';
import type { CacheEntries, FolderProblem, SkillLimits } from '@skillport/core';
import { scanFolder } from './folder-scan.js';
import type { FolderRoot, ScannedFolder } from './folder-scan.js';

/**
 * One shard of a scan, off the main thread: every worker discovers the same (sorted) skill folders and inspects
 * every `shards`-th one, so two workers use both cores without talking to each other. Results stream back in
 * batches, so neither side ever holds a whole copy of the catalog in flight. The worker's heap (YAML parsing is
 * garbage-heavy) is released when it exits, which keeps the server's steady memory low.
 */
export interface ScanRequest {
  roots: FolderRoot[];
  limits: SkillLimits;
  allowFields?: string[];
  digestCachePath?: string;
  shard: number;
  shards: number;
}

export type WireFolder = Omit<ScannedFolder, 'root'> & { root: number };

export type ScanMessage =
  | { kind: 'folders'; folders: WireFolder[]; problems: FolderProblem[] }
  | { kind: 'found'; skills: number }
  | { kind: 'done'; cache?: CacheEntries };

const BATCH = 200;
const request = workerData as ScanRequest;
const cache = new DigestCache(request.digestCachePath);
// One shard sees every folder: it writes the cache as it goes (see streamSave) and saves it itself at the end.
if (request.shards === 1) cache.streamSave();
const post = (message: ScanMessage) => parentPort!.postMessage(message);

let batch: WireFolder[] = [];
request.roots.forEach((root, index) => {
  const discovery = discoverSkills(root.dir);
  // Every shard discovers the same folders: one of them says how many, for the progress line.
  if (request.shard === 0) post({ kind: 'found', skills: discovery.skills.length });
  if (request.shard === 0 && discovery.problems.length > 0) post({ kind: 'folders', folders: [], problems: discovery.problems });
  discovery.skills.forEach((found, position) => {
    if (position % request.shards !== request.shard) return;
    const folder = scanFolder(root, found.dir, found.segments, { limits: request.limits, cache, allowFields: request.allowFields });
    batch.push({ ...folder, root: index });
    if (batch.length >= BATCH) {
      post({ kind: 'folders', folders: batch, problems: [] });
      batch = [];
    }
  });
});
if (batch.length > 0) post({ kind: 'folders', folders: batch, problems: [] });
// One shard saw every folder: it saves the digest cache itself. Handing the entries back (tens of megabytes at
// 10,000 skills) was a structured copy into the main heap and a save on the main thread; shards are merged there.
if (request.shards === 1) {
  cache.save();
  post({ kind: 'done' });
} else post({ kind: 'done', cache: cache.exportUsed() });
