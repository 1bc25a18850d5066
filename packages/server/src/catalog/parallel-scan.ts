import { MessageChannel, Worker } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { FolderProblem, SkillLimits } from '@skillport/core';
import type { FolderRoot, ScannedFolder } from './folder-scan.js';
import type { ScanHelpers, ScanMessage, ScanRequest } from './scan-worker.js';

export interface ParallelScan {
  folders: ScannedFolder[];
  problems: FolderProblem[];
  /** How many workers inspected the folders (helpers are started only for a large enough catalog). */
  shards: number;
}

/** How far a full scan has got: skill folders found (so far), inspected, and the files hashed in them. */
export interface ScanProgress {
  found: number;
  scanned: number;
  files: number;
}

/** A cold scan that answers its first page early (ADR 0276): shard 0 inspects the page's folders first. */
export interface ScanFirstPage {
  pageSize: number;
  maxInspected: number;
  /** Told once: the page's folders (each also one of the scan's, after `take`), or undefined when there is none. */
  onPage: (folders: ScannedFolder[] | undefined) => void;
}

/** A helper shard is started for at least this many skills each: a worker (an isolate, the scanner loaded again) costs more than inspecting a few hundred folders. */
const MIN_SKILLS_PER_SHARD = 500;

/**
 * Scans every root in up to `shards` worker threads (one by default). `take` is given each folder as it arrives and
 * what it returns is kept (the live catalog packs it there: a batch's copies die young instead of all of them
 * surviving to the end of the scan). The tree is walked once (by shard 0) whatever the
 * count: two shards each walking it, as before, cost a second walk of CPU, which on 2 shared cores ate the gain.
 */
export async function scanInWorkers(
  roots: FolderRoot[],
  limits: SkillLimits,
  digestCachePath: string | undefined,
  shards = 1,
  onProgress?: (progress: ScanProgress) => void,
  allowFields?: readonly string[],
  take: (folder: ScannedFolder) => ScannedFolder = (folder) => folder,
  firstPage?: ScanFirstPage,
  signal?: AbortSignal,
  background = false,
): Promise<ParallelScan> {
  let told = false;
  const tell = (folders: ScannedFolder[] | undefined) => {
    if (told) return;
    told = true;
    firstPage?.onPage(folders);
  };
  const result: ParallelScan = { folders: [], problems: [], shards: 1 };
  const progress: ScanProgress = { found: 0, scanned: 0, files: 0 };
  const workers: Worker[] = [];
  const runs: Array<Promise<void>> = [];
  const base = {
    roots,
    limits,
    ...(digestCachePath ? { digestCachePath } : {}),
    ...(allowFields?.length ? { allowFields: [...allowFields] } : {}),
    ...(background ? { background } : {}),
  };
  const run = (request: ScanRequest, transferList: MessagePort[] = []) => {
    const shard = request.shard;
    const running = new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(new Error('the scan was cancelled'));
      // A small young generation keeps the worker's garbage (YAML parsing) from inflating memory.
      const worker = new Worker(new URL('./scan-worker.js', import.meta.url), {
        workerData: request,
        transferList,
        resourceLimits: { maxYoungGenerationSizeMb: 8 },
      });
      workers.push(worker);
      let done = false;
      worker.on('message', (message: ScanMessage) => {
        if (message.kind === 'found') {
          progress.found += message.skills;
          onProgress?.(progress);
          // Shard 0 has walked the tree: helpers for the rest of the cores when there is enough to share.
          const helpers = message.skills >= MIN_SKILLS_PER_SHARD * 2 ? Math.min(Math.max(1, shards), Math.floor(message.skills / MIN_SKILLS_PER_SHARD)) - 1 : 0;
          result.shards = helpers + 1;
          const channels = Array.from({ length: helpers }, () => new MessageChannel());
          channels.forEach((channel, index) => runs.push(run({ ...base, shard: index + 1, shards: helpers + 1, port: channel.port2 }, [channel.port2])));
          const ports = channels.map((channel) => channel.port1);
          worker.postMessage({ ports } satisfies ScanHelpers, ports);
        } else if (message.kind === 'page') {
          const folders = message.folders?.map((folder) => {
            progress.files += folder.inspection.skill?.files.length ?? 0;
            const taken = take({ ...folder, root: roots[folder.root]! });
            result.folders.push(taken);
            return taken;
          });
          progress.scanned += folders?.length ?? 0;
          if (folders !== undefined && folders.length > 0) onProgress?.(progress);
          tell(folders);
        } else if (message.kind === 'folders') {
          result.problems.push(...message.problems);
          for (const folder of message.folders) {
            progress.files += folder.inspection.skill?.files.length ?? 0;
            result.folders.push(take({ ...folder, root: roots[folder.root]! }));
          }
          progress.scanned += message.folders.length;
          if (message.folders.length > 0) onProgress?.(progress);
        } else done = true;
      });
      worker.once('error', reject);
      worker.once('exit', (code) => (done && code === 0 ? resolve() : reject(new Error(`scan worker ${shard} exited with code ${code}`))));
    });
    // Awaited in turns (below): a helper that fails before the turn that awaits it is that turn's failure, not unhandled.
    running.catch(() => {});
    return running;
  };
  const page = firstPage ? { firstPage: { pageSize: firstPage.pageSize, maxInspected: firstPage.maxInspected } } : {};
  // Cancelled (a start that failed, a catalog closed mid-scan): no worker outlives it, nor is a helper started after.
  const cancel = () => {
    for (const worker of workers) void worker.terminate();
  };
  signal?.addEventListener('abort', cancel, { once: true });
  runs.push(run({ ...base, ...page, shard: 0, shards: 1 }));
  try {
    // Helpers join `runs` while shard 0 runs (once it has walked the tree), so wait until no new one came.
    for (let waited = 0; waited < runs.length; ) {
      const now = runs.length;
      await Promise.all(runs);
      waited = now;
    }
  } catch (error) {
    // One shard failing leaves the others waiting for it (its list, its end): none outlives the scan.
    for (const worker of workers) void worker.terminate();
    throw signal?.aborted ? new Error('the scan was cancelled') : error;
  } finally {
    signal?.removeEventListener('abort', cancel);
    tell(undefined);
  }
  return result;
}

/**
 * A cold scan with an early first page, started before the catalog that takes its folders exists (app.ts starts it
 * ahead of the access store and the plugins): `take` is given later; the few folders that arrive before it are
 * packed with the rest at the end of the scan (live-catalog.ts `#scanAll`).
 */
export class EarlyScan {
  readonly page: Promise<ScannedFolder[] | undefined>;
  readonly scan: Promise<ParallelScan>;
  #take: ((folder: ScannedFolder) => ScannedFolder) | undefined;
  readonly #abort = new AbortController();

  constructor(
    readonly roots: FolderRoot[],
    readonly digestCachePath: string | undefined,
    options: {
      limits: SkillLimits;
      shards: number;
      pageSize: number;
      maxInspected: number;
      allowFields?: readonly string[] | undefined;
      onProgress?: ((progress: ScanProgress) => void) | undefined;
    },
  ) {
    let onPage!: (folders: ScannedFolder[] | undefined) => void;
    this.page = new Promise((resolve) => (onPage = resolve));
    this.scan = scanInWorkers(
      roots,
      options.limits,
      digestCachePath,
      options.shards,
      options.onProgress,
      options.allowFields,
      (folder) => this.#take?.(folder) ?? folder,
      {
        pageSize: options.pageSize,
        maxInspected: options.maxInspected,
        onPage,
      },
      this.#abort.signal,
    );
    // Unhandled otherwise when the start fails before a catalog awaits it.
    this.scan.catch(() => {});
  }

  take(take: (folder: ScannedFolder) => ScannedFolder): void {
    this.#take = take;
  }

  /** Terminates its workers (`scan` rejects): whoever started it and does not use it must, or they run to the end. */
  cancel(): void {
    this.#abort.abort();
  }
}
