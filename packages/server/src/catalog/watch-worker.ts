import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { WatchReply, WatchRequest } from './remote-watches.js';

/**
 * Holds the watches of a restored catalog's known folders on a thread of its own (remote-watches.ts): opening
 * ~100,000 of them was a sixth of a warm start's main thread. It only opens, closes and forwards: every decision
 * (what to arm, what an event means) stays with the tree watcher on the main thread.
 */
const port = parentPort!;
const watches = new Map<string, FSWatcher>();
const send = (reply: WatchReply) => port.postMessage(reply);
/** Each watch's folder, for the two listeners every watch shares (a closure pair per watch was most of its memory). */
const dirOf = new WeakMap<FSWatcher, string>();

function changed(this: FSWatcher, _event: string, name: string | Buffer | null): void {
  send({ kind: 'event', dir: dirOf.get(this)!, name: name === null || name === undefined ? null : name.toString() });
}

function failed(this: FSWatcher): void {
  const dir = dirOf.get(this)!;
  this.close();
  if (watches.get(dir) === this) watches.delete(dir);
  send({ kind: 'error', dir });
}

port.on('message', (request: WatchRequest) => {
  if (request.kind === 'close') {
    for (const dir of request.dirs) {
      watches.get(dir)?.close();
      watches.delete(dir);
    }
    return;
  }
  const refused: [string, string][] = [];
  for (const dir of request.dirs) {
    if (watches.has(dir)) continue;
    try {
      const watcher = watch(dir, { persistent: true });
      dirOf.set(watcher, dir);
      watcher.on('change', changed);
      watcher.on('error', failed);
      watches.set(dir, watcher);
    } catch (error) {
      refused.push([dir, (error as NodeJS.ErrnoException).code ?? 'error']);
    }
  }
  send({ kind: 'armed', batch: request.batch, failed: refused });
});
