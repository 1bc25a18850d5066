import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { DigestCache, discoverSkills } from '@skillport/core';
import type { DiscoveredSkill, FolderProblem, SkillLimits } from '@skillport/core';
import { compareStrings } from '@skillport/core';
import { scanFolder } from './folder-scan.js';
import type { FolderRoot, ScannedFolder } from './folder-scan.js';
import { lowerBound, settled } from './first-page.js';

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
  /**
   * Shard 0 of a cold start that answers its first page early (ADR 0276): the folders are inspected in the order of
   * the lowest URI each can be served at, the page's folders first and by shard 0, which sends them as one `page`
   * message as soon as they decide the page (or `null` when they do not within `maxInspected`), then goes on with the
   * rest while the helpers take folders from the other end.
   */
  firstPage?: { pageSize: number; maxInspected: number };
}

/** To shard 0 once it has said how many skills it found: a port to each helper shard started for them (maybe none). */
export interface ScanHelpers {
  ports: MessagePort[];
}

export type WireFolder = Omit<ScannedFolder, 'root'> & { root: number };

export type ScanMessage =
  | { kind: 'folders'; folders: WireFolder[]; problems: FolderProblem[] }
  | { kind: 'page'; folders: WireFolder[] | null }
  | { kind: 'found'; skills: number }
  | { kind: 'done' };

/**
 * In the first page's order (`ScanRequest.firstPage`): `order` lists the sequence's positions lowest bound first;
 * `claims` holds one flag per position, set by the shard that inspects it.
 */
interface PageOrder {
  order: Int32Array;
  claims: Int32Array;
}

/** Between shards: the discovered folders (per root), a batch of digest-cache lines, the end of a shard's lines. */
type ShardMessage = { kind: 'skills'; lists: DiscoveredSkill[][]; next: Int32Array; page?: PageOrder } | { kind: 'cache'; lines: string } | { kind: 'end' };

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

/** Shard 0's lower bounds of every position (first page only), for the check that the page is settled. */
let bounds: string[] = [];

/**
 * The discovered folders of every root, and the counter (shared by every shard) of the next folder to inspect; in
 * the first page's order, the counter is where the helpers take from (the end, downwards).
 */
async function discovered(): Promise<{ lists: DiscoveredSkill[][]; next: Int32Array; page?: PageOrder | undefined; share: () => Promise<void> }> {
  if (request.shard !== 0) {
    return new Promise((resolve) =>
      request.port!.once(
        'message',
        (message: ShardMessage) =>
          message.kind === 'skills' && resolve({ lists: message.lists, next: message.next, page: message.page, share: () => Promise.resolve() }),
      ),
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
  // The main thread starts helpers when the catalog is worth them (a worker costs more than a few dozen folders);
  // meanwhile, for an early page, every folder's bound from the head of its SKILL.md.
  const helpers = new Promise<ScanHelpers>((resolve) => parentPort!.once('message', resolve));
  let page: PageOrder | undefined;
  if (request.firstPage) {
    bounds = [];
    request.roots.forEach((root, index) => {
      for (const found of lists[index]!) bounds.push(lowerBound(root, found.dir, found.segments, { limits: request.limits, allowFields: request.allowFields }));
    });
    const order = Int32Array.from(bounds.keys()).sort((a, b) => compareStrings(bounds[a]!, bounds[b]!));
    page = { order: new Int32Array(new SharedArrayBuffer(4 * count)), claims: new Int32Array(new SharedArrayBuffer(4 * count)) };
    page.order.set(order);
  }
  const next = new Int32Array(new SharedArrayBuffer(4));
  if (page) next[0] = count;
  let shared: Promise<void> | undefined;
  const share = () =>
    (shared ??= helpers.then((message) => {
      ports = message.ports;
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
      for (const port of ports) port.postMessage({ kind: 'skills', lists, next, ...(page ? { page } : {}) } satisfies ShardMessage);
    }));
  // An early page's folders come first and alone (shard 0): the helpers, started meanwhile, begin once it is out.
  if (page === undefined) await share();
  return { lists, next, page, share };
}

const { lists, next, page, share } = await discovered();
// Every root's folders in one sequence: position p is the p-th folder of the roots in order.
const starts: number[] = [];
let total = 0;
for (const list of lists) {
  starts.push(total);
  total += list.length;
}
let batch: WireFolder[] = [];
let index = 0;
const inspect = (position: number): WireFolder => {
  while (index + 1 < starts.length && starts[index + 1]! <= position) index++;
  while (index > 0 && starts[index]! > position) index--;
  const found = lists[index]![position - starts[index]!]!;
  return { ...scanFolder(request.roots[index]!, found.dir, found.segments, { limits: request.limits, cache, allowFields: request.allowFields }), root: index };
};
const add = async (folder: WireFolder) => {
  batch.push(folder);
  if (batch.length >= BATCH) {
    post({ kind: 'folders', folders: batch, problems: [] });
    batch = [];
    if (ports.length > 0) await new Promise((resolve) => setImmediate(resolve)); // take in the others' cache lines
  }
};
if (page === undefined) {
  for (let first = Atomics.add(next, 0, TAKE); first < total; first = Atomics.add(next, 0, TAKE)) {
    for (let position = first; position < Math.min(first + TAKE, total); position++) await add(inspect(position));
  }
} else if (request.shard === 0) {
  // Upwards from the lowest bound, each folder claimed first (the helpers come down from the other end): once one
  // is taken, every folder above it is too. The page's folders are held until they decide the page.
  const { pageSize, maxInspected } = request.firstPage!;
  let held: WireFolder[] | undefined = [];
  const decide = async (folders: WireFolder[] | null) => {
    post({ kind: 'page', folders });
    held = undefined;
    await share();
  };
  for (let k = 0; k < total; k++) {
    const position = page.order[k]!;
    if (Atomics.compareExchange(page.claims, position, 0, 1) !== 0) break;
    const folder = inspect(position);
    if (held === undefined) {
      await add(folder);
      continue;
    }
    held.push(folder);
    const last = k + 1 === total;
    // A few at a time between checks (a check assembles what is held); with every folder held, it is the whole catalog.
    if (!last && held.length < maxInspected && (held.length <= pageSize || held.length % 8 !== 0)) continue;
    const inspected = held.map((wire) => ({ ...wire, root: request.roots[wire.root]! }));
    if ((last || held.length > pageSize) && settled(inspected, last ? undefined : bounds[page.order[k + 1]!], pageSize, last)) await decide(held);
    else if (last || held.length >= maxInspected) {
      batch.push(...held);
      await decide(null);
    } else if (ports.length > 0) await new Promise((resolve) => setImmediate(resolve));
  }
  if (held !== undefined) {
    // Met the helpers before the page was certain: the whole scan is nearly in, and answers it.
    batch.push(...held);
    await decide(null);
  }
} else {
  for (let k = Atomics.sub(next, 0, 1) - 1; k >= 0; k = Atomics.sub(next, 0, 1) - 1) {
    const position = page.order[k]!;
    // Shard 0 goes up without gaps: a folder it took means it has every folder below.
    if (Atomics.compareExchange(page.claims, position, 0, 1) !== 0) break;
    await add(inspect(position));
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
