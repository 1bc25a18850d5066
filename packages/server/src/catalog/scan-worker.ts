import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { DigestCache, discoverSkills, folderStep } from '@skillport/core';
import type { DiscoveredSkill, FolderProblem, SkillLimits } from '@skillport/core';
import { compareStrings } from '@skillport/core';
import { scanFolder } from './folder-scan.js';
import type { FolderRoot, ScannedFolder } from './folder-scan.js';
import { BoundQueue, lowerBound, parentBound, settled } from './first-page.js';

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
   * Shard 0 of a cold start that answers its first page early (ADR 0276): it inspects folders in the order of the
   * lowest URI each can be served at (first-page.ts), so the page's folders come first, and sends them as one `page`
   * message as soon as they decide the page (or `null` when they do not within `maxInspected`); the helpers take
   * folders from the other end of the walk's order meanwhile. Every folder is inspected once, by whoever claims it.
   */
  firstPage?: { pageSize: number; maxInspected: number };
  /** Work the server does while it already answers (a restored catalog's check): the thread yields the cores to requests. */
  background?: boolean;
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

/** Between shards: the discovered folders (per root), a batch of digest-cache lines, the end of a shard's lines. */
type ShardMessage = { kind: 'skills'; lists: DiscoveredSkill[][]; next: Int32Array; claims?: Int32Array } | { kind: 'cache'; lines: string } | { kind: 'end' };

const BATCH = 200;
/** Folders taken from the shared counter at once: small enough to even out the shards' ends, large enough to be rare. */
const TAKE = 8;
const request = workerData as ScanRequest;
/** A background check's nice value: below requests and the rest of the machine's foreground work, never stopped. */
const BACKGROUND_NICE = 10;
// On Linux a nice value is a thread's own: 0 names this worker's thread, so the server's main thread keeps its priority.
if (request.background === true) {
  try {
    setPriority(0, BACKGROUND_NICE);
  } catch {
    // not permitted here (or not supported): the check runs at the usual priority
  }
}
const post = (message: ScanMessage) => parentPort!.postMessage(message);
let ports: MessagePort[] = [];
const cache = new DigestCache(request.digestCachePath);
if (request.shard === 0) cache.streamSave();
else cache.streamSave((lines) => request.port!.postMessage({ kind: 'cache', lines } satisfies ShardMessage));
let others: Array<Promise<void>> = [];

/**
 * The discovered folders of every root, and the counter (shared by every shard) of the next folder to inspect. With
 * an early page, `claims` holds a flag per position, set by the shard that inspects it, and the counter goes down
 * from the end (the helpers'; shard 0 goes its own way, see below).
 */
async function discovered(): Promise<{ lists: DiscoveredSkill[][]; next: Int32Array; claims?: Int32Array | undefined }> {
  if (request.shard !== 0) {
    return new Promise((resolve) =>
      request.port!.once(
        'message',
        (message: ShardMessage) => message.kind === 'skills' && resolve({ lists: message.lists, next: message.next, claims: message.claims }),
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
  const claims = request.firstPage ? new Int32Array(new SharedArrayBuffer(4 * count)) : undefined;
  if (claims) next[0] = count;
  if (claims && early !== undefined) {
    const sent = new Set(early.map((folder) => `${folder.root}\n${folder.dir}`));
    let offset = 0;
    lists.forEach((list, root) => {
      list.forEach((found, at) => {
        if (sent.has(`${root}\n${found.dir}`)) claims[offset + at] = 1;
      });
      offset += list.length;
    });
  }
  for (const port of ports) port.postMessage({ kind: 'skills', lists, next, ...(claims ? { claims } : {}) } satisfies ShardMessage);
  return { lists, next, claims };
}

/**
 * The first page found walking best-first (ADR 0288): a folder not yet read stands for everything below it with the
 * bound of its parent path, so only the page's corner of the tree is read before the page is sent, not the whole
 * tree (at 100,000 skills that walk was the first answer's 8-20 s). Undefined (the walk-first way decides then) when
 * a folder reached through a symbolic link would have to be read before the page is settled (which path a linked
 * folder is taken at depends on the whole walk's order), or the page is not settled within the budget.
 */
function bestFirstPage(): WireFolder[] | undefined {
  const { pageSize, maxInspected } = request.firstPage!;
  type Item = { root: number; dir: string; segments: string[]; insideSkill: boolean; folder: boolean; link?: boolean };
  const items: Item[] = [];
  const queue = new BoundQueue();
  const add = (item: Item, bound: string, read = false) => {
    items.push(item);
    queue.push({ bound, position: items.length - 1, read });
  };
  const unused: FolderProblem[] = [];
  request.roots.forEach((root, index) => add({ root: index, dir: root.dir, segments: [], insideSkill: false, folder: false }, parentBound(root, [])));
  const held: WireFolder[] = [];
  // Folders read without being a page's (a tree of folders that hold no skill): past this the walk-first way goes on.
  let budget = 64 * maxInspected;
  for (let entry = queue.pop(); entry !== undefined; entry = queue.pop()) {
    const item = items[entry.position]!;
    const root = request.roots[item.root]!;
    if (!item.folder) {
      // A linked folder is needed before the page is settled: which path it is taken at needs the whole walk.
      if (item.link || --budget < 0) return undefined;
      const step = folderStep(item.dir, item.segments, item.insideSkill, 0, unused);
      if (step === undefined) continue;
      if (step.isSkill) add({ ...item, folder: true }, parentBound(root, item.segments));
      for (const next of step.next)
        add(
          { root: item.root, dir: next.dir, segments: next.segments, insideSkill: next.insideSkill, folder: false, link: next.link },
          parentBound(root, next.segments),
        );
      continue;
    }
    if (!entry.read) {
      queue.push({ ...entry, read: true, bound: lowerBound(root, item.dir, item.segments, { limits: request.limits, allowFields: request.allowFields }) });
      continue;
    }
    held.push({ ...scanFolder(root, item.dir, item.segments, { limits: request.limits, cache, allowFields: request.allowFields }), root: item.root });
    const limit = queue.peek()?.bound;
    const last = limit === undefined;
    if (!last && held.length < maxInspected && (held.length <= pageSize || held.length % 8 !== 0)) continue;
    const inspected = held.map((wire) => ({ ...wire, root: request.roots[wire.root]! }));
    if ((last || held.length > pageSize) && settled(inspected, limit, pageSize, last)) return held;
    if (last || held.length >= maxInspected) return undefined;
  }
  return undefined;
}

// Shard 0 of an early page: the page first, from the tree's corner it is in; the folders it holds are not inspected
// again (claimed below, before any helper starts).
const early = request.shard === 0 && request.firstPage ? bestFirstPage() : undefined;
if (early !== undefined) post({ kind: 'page', folders: early });
const { lists, next, claims } = await discovered();
// Every root's folders in one sequence: position p is the p-th folder of the roots in order.
const starts: number[] = [];
let total = 0;
for (const list of lists) {
  starts.push(total);
  total += list.length;
}
let batch: WireFolder[] = [];
let index = 0;
/** The root of a position in the sequence (positions come in any order with an early page). */
const whichRoot = (position: number): number => {
  while (index + 1 < starts.length && starts[index + 1]! <= position) index++;
  while (index > 0 && starts[index]! > position) index--;
  return index;
};
const inspect = (position: number): WireFolder => {
  const index = whichRoot(position);
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
const claim = (position: number) => Atomics.compareExchange(claims!, position, 0, 1) === 0;
/**
 * The walk-first way to the first page, when `bestFirstPage` could not decide it: best first by bound (the helpers
 * inspect from the walk's end meanwhile): every folder starts with the bound of
 * the folders above it, and the head of its SKILL.md is read only when that bound is the lowest left, so only the
 * folders near the first page's are read twice; then the lowest, claimed first, is inspected. The page's folders
 * are held until they decide the page.
 */
async function walkFirstPage(claims: Int32Array): Promise<void> {
  const queue = new BoundQueue();
  request.roots.forEach((root, index) => {
    lists[index]!.forEach((found, at) => queue.push({ bound: parentBound(root, found.segments), position: starts[index]! + at, read: false }));
  });
  const { pageSize, maxInspected } = request.firstPage!;
  let held: WireFolder[] | undefined = [];
  // The lowest bound of a folder a helper took: no URI from there on is certain to shard 0.
  let taken: string | undefined;
  const decide = (folders: WireFolder[] | null) => {
    post({ kind: 'page', folders });
    if (folders === null) batch.push(...held!);
    held = undefined;
  };
  for (let entry = queue.pop(); entry !== undefined && held !== undefined; entry = queue.pop()) {
    if (!entry.read && Atomics.load(claims, entry.position) === 0) {
      const root = whichRoot(entry.position);
      const found = lists[root]![entry.position - starts[root]!]!;
      queue.push({
        ...entry,
        read: true,
        bound: lowerBound(request.roots[root]!, found.dir, found.segments, { limits: request.limits, allowFields: request.allowFields }),
      });
      continue;
    }
    if (!claim(entry.position)) {
      taken ??= entry.bound;
      continue;
    }
    held.push(inspect(entry.position));
    const next = queue.peek()?.bound;
    const last = next === undefined;
    // A few at a time between checks (a check assembles what is held); with every folder held, it is the whole catalog.
    if (!last && held.length < maxInspected && (held.length <= pageSize || held.length % 8 !== 0)) continue;
    const all = last && taken === undefined;
    const limit = taken !== undefined && (next === undefined || compareStrings(taken, next) < 0) ? taken : next;
    const inspected = held.map((wire) => ({ ...wire, root: request.roots[wire.root]! }));
    if ((all || held.length > pageSize) && settled(inspected, limit, pageSize, all)) decide(held);
    else if (last || held.length >= maxInspected) decide(null);
    else if (ports.length > 0) await new Promise((resolve) => setImmediate(resolve));
  }
  if (held !== undefined) decide(null);
}

if (claims === undefined) {
  for (let first = Atomics.add(next, 0, TAKE); first < total; first = Atomics.add(next, 0, TAKE)) {
    for (let position = first; position < Math.min(first + TAKE, total); position++) await add(inspect(position));
  }
} else if (request.shard === 0) {
  if (early === undefined) await walkFirstPage(claims);
  // The rest in the walk's order, up to where the helpers have come down.
  for (let position = 0; position < total; position++) if (claim(position)) await add(inspect(position));
} else {
  // Down from the end of the walk's order: shard 0 comes up in the bounds' order, and takes what is left.
  for (let position = Atomics.sub(next, 0, 1) - 1; position >= 0; position = Atomics.sub(next, 0, 1) - 1) if (claim(position)) await add(inspect(position));
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
