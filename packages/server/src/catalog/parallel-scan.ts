import { Worker } from 'node:worker_threads';
import type { CacheEntries, FolderProblem, SkillLimits } from '@skillport/core';
import type { FolderRoot, ScannedFolder } from './folder-scan.js';
import type { ScanMessage, ScanRequest } from './scan-worker.js';

export interface ParallelScan {
  folders: ScannedFolder[];
  problems: FolderProblem[];
  /** Digest-cache entries to merge and save (from several shards; a single shard saves its own). */
  cache: CacheEntries[];
}

/** Scans every root in `shards` worker threads. One by default: measured on 2 cores, a second shard made a 10k-skill scan slower (file-system calls, not CPU, bound it), while one worker already keeps the parser garbage off the main heap. */
/** How far a full scan has got: skill folders found (so far), inspected, and the files hashed in them. */
export interface ScanProgress {
  found: number;
  scanned: number;
  files: number;
}

export async function scanInWorkers(
  roots: FolderRoot[],
  limits: SkillLimits,
  digestCachePath: string | undefined,
  shards = 1,
  onProgress?: (progress: ScanProgress) => void,
  allowFields?: readonly string[],
): Promise<ParallelScan> {
  const result: ParallelScan = { folders: [], problems: [], cache: [] };
  const progress: ScanProgress = { found: 0, scanned: 0, files: 0 };
  await Promise.all(
    Array.from({ length: Math.max(1, shards) }, (_, shard) => {
      const request: ScanRequest = {
        roots,
        limits,
        shard,
        shards: Math.max(1, shards),
        ...(digestCachePath ? { digestCachePath } : {}),
        ...(allowFields?.length ? { allowFields: [...allowFields] } : {}),
      };
      return new Promise<void>((resolve, reject) => {
        // A small young generation keeps the worker's garbage (YAML parsing) from inflating memory.
        const worker = new Worker(new URL('./scan-worker.js', import.meta.url), { workerData: request, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
        let done = false;
        worker.on('message', (message: ScanMessage) => {
          if (message.kind === 'found') {
            progress.found += message.skills;
            onProgress?.(progress);
          } else if (message.kind === 'folders') {
            result.problems.push(...message.problems);
            for (const folder of message.folders) {
              result.folders.push({ ...folder, root: roots[folder.root]! });
              progress.files += folder.inspection.skill?.files.length ?? 0;
            }
            progress.scanned += message.folders.length;
            if (message.folders.length > 0) onProgress?.(progress);
          } else {
            if (message.cache !== undefined) result.cache.push(message.cache);
            done = true;
          }
        });
        worker.once('error', reject);
        worker.once('exit', (code) => (done && code === 0 ? resolve() : reject(new Error(`scan worker ${shard} exited with code ${code}`))));
      });
    }),
  );
  return result;
}
