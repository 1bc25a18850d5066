import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { DigestCache, discoverSkills } from '@skillport/core';
import type { DiscoveredSkill, FolderProblem, SkillLimits } from '@skillport/core';
import { scanFolder } from './folder-scan.js';
import type { FolderRoot, ScannedFolder } from './folder-scan.js';

/**
 * One shard of a scan, off the main thread. Shard 0 discovers the skill folders (one walk of the tree) and hands the
 * list to the helper shards the main thread starts then (when the catalog is large enough), over a port each; the shards
 * then take the next few folders from one shared counter until none is left (a fixed split left one shard idle while
 * the other, started later or given the larger folders, still worked), so two workers use both cores and the tree is
 * walked once. Shard 0 also writes the digest cache file as it goes: the others send it
 * their lines over the same ports (one file, never a copy of the whole cache through the main thread). Results
 * stream back in batches, so neither side ever holds a whole copy of the catalog in flight. The worker's heap (YAML
 * parsing is garbage-heavy) is released when it exits, which keeps the server's steady memory low.
 */
export interface ScanRequest {
  roots: FolderRoot[];
  limits: SkillLimits;
  allowFields?: string[];
  digestCachePath?: string;
  /** 0: the shard that walks the tree (it learns how many shards there are once it has, see `ScanHelpers`). */
  shard: number;
  shards: number;
  /** Any other shard: its port to shard 0. */
  port?: MessagePort;
}

/** To shard 0 once it has said how many skills it found: a port to each helper shard started for them (maybe none). */
export interface ScanHelpers {
  ports: MessagePort[];
}

export type WireFolder = Omit<ScannedFolder, 'root'> & { root: number };

export type ScanMessage = { kind: 'folders'; folders: WireFolder[]; problems: FolderProblem[] } | { kind: 'found'; skills: number } | { kind: 'done' };

/** Between shards: the discovered folders (per root), a batch of digest-cache lines, the end of a shard's lines. */
type ShardMessage = { kind: 'skills'; lists: DiscoveredSkill[][]; next: Int32Array } | { kind: 'cache'; lines: string } | { kind: 'end' };

const BATCH = 200;
/** Folders taken from the shared counter at once: small enough to even out the shards' ends, large enough to be rare. */
const TAKE = 8;
const request = workerData as ScanRequest;
const post = (message: ScanMessage) => parentPort!.postMessage(message);
let ports: MessagePort[] = [];
const cache = new DigestCache(request.digestCachePath);
if (request.shard === 0) cache.streamSave();
else cache.streamSave((lines) => request.port!.postMessage({ kind: 'cache', lines } satisfies ShardMessage));
let others: Array<Promise<void>> = [];

/** The discovered folders of every root, and the counter (shared by every shard) of the next folder to inspect. */
async function discovered(): Promise<{ lists: DiscoveredSkill[][]; next: Int32Array }> {
  if (request.shard !== 0) {
    return new Promise((resolve) =>
      request.port!.once('message', (message: ShardMessage) => message.kind === 'skills' && resolve({ lists: message.lists, next: message.next })),
    );
  }
  const lists: DiscoveredSkill[][] = [];
  let count = 0;
  for (const root of request.roots) {
    const discovery = discoverSkills(root.dir);
    lists.push(discovery.skills);
    count += discovery.skills.length;
    if (discovery.problems.length > 0) post({ kind: 'folders', folders: [], problems: discovery.problems });
  }
  post({ kind: 'found', skills: count });
  // The main thread starts helpers when the catalog is worth them (a worker costs more than a few dozen folders).
  ports = (await new Promise<ScanHelpers>((resolve) => parentPort!.once('message', resolve))).ports;
  // The helpers' cache lines are written as they come (between batches), not held until the end.
  others = ports.map(
    (port) =>
      new Promise<void>((resolve) =>
        port.on('message', (message: ShardMessage) => {
          if (message.kind === 'cache') cache.writeStreamed(message.lines);
          else if (message.kind === 'end') {
            port.close();
            resolve();
          }
        }),
      ),
  );
  const next = new Int32Array(new SharedArrayBuffer(4));
  for (const port of ports) port.postMessage({ kind: 'skills', lists, next } satisfies ShardMessage);
  return { lists, next };
}

const { lists, next } = await discovered();
// Every root's folders in one sequence: position p is the p-th folder of the roots in order.
const starts: number[] = [];
let total = 0;
for (const list of lists) {
  starts.push(total);
  total += list.length;
}
let batch: WireFolder[] = [];
let index = 0;
for (let first = Atomics.add(next, 0, TAKE); first < total; first = Atomics.add(next, 0, TAKE)) {
  for (let position = first; position < Math.min(first + TAKE, total); position++) {
    while (index + 1 < starts.length && starts[index + 1]! <= position) index++;
    const found = lists[index]![position - starts[index]!]!;
    const folder = scanFolder(request.roots[index]!, found.dir, found.segments, { limits: request.limits, cache, allowFields: request.allowFields });
    batch.push({ ...folder, root: index });
    if (batch.length >= BATCH) {
      post({ kind: 'folders', folders: batch, problems: [] });
      batch = [];
      if (ports.length > 0) await new Promise((resolve) => setImmediate(resolve)); // take in the others' cache lines
    }
  }
}
if (batch.length > 0) post({ kind: 'folders', folders: batch, problems: [] });
// Shard 0 commits the cache file once every other shard's lines are in it; the others hand over their last lines.
if (request.shard === 0) {
  await Promise.all(others);
  cache.save();
} else {
  cache.save();
  request.port!.postMessage({ kind: 'end' } satisfies ShardMessage);
}
post({ kind: 'done' });
