import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { fingerprint } from './folder-fingerprint.js';
import type { SweepReply, SweepRequest } from './remote-sweep.js';

/**
 * Lists the folders the tree watcher sweeps (remote-sweep.ts) over and over, in slices as the main thread did, and
 * says which ones changed. At a lower priority: a change waits a little longer to be found, answers never wait for it.
 */
const port = parentPort!;
const swept = new Map<string, number>();
const send = (reply: SweepReply) => port.postMessage(reply);
let sliceMs = 5;
let intervalMs = 45;
let at: IterableIterator<[string, number]> | undefined;
let cycleStarted = 0;
let timer: NodeJS.Timeout | undefined;

try {
  setPriority(0, 10); // this thread only (Linux): the sweep gives way to the server's own threads
} catch {
  // not permitted here: the sweep runs at the server's priority
}

port.on('message', (request: SweepRequest) => {
  if (request.kind === 'pace') {
    sliceMs = request.sliceMs;
    intervalMs = request.intervalMs;
    return;
  }
  for (const op of request.ops) {
    if (op.kind === 'add') swept.set(op.dir, op.print);
    else swept.delete(op.dir);
  }
  soon();
});

function soon(): void {
  if (timer !== undefined || swept.size === 0) return;
  timer = setTimeout(() => {
    timer = undefined;
    slice();
  }, intervalMs);
}

function slice(): void {
  const started = performance.now();
  let count = 0;
  for (;;) {
    if (at === undefined) {
      at = swept.entries();
      cycleStarted = performance.now();
    }
    const next = at.next();
    if (next.done === true) {
      at = undefined;
      send({ kind: 'cycle', ms: performance.now() - cycleStarted });
      break;
    }
    const [dir, print] = next.value;
    let now: number;
    try {
      now = fingerprint(dir, readdirSync(dir, { withFileTypes: true }));
    } catch {
      now = -1; // gone or unreadable: the tree watcher finds out which when it lists it
    }
    // NaN (a file written this moment) matches nothing: such a folder is told again at every sweep until it settles.
    if (now !== print) {
      swept.set(dir, now);
      send({ kind: 'changed', dir, print: now });
    }
    if ((++count & 7) === 0 && performance.now() - started > sliceMs) break;
  }
  soon();
}
