import { utimesSync } from 'node:fs';

// The shared parts (the repository's paths, temporary trees, SKILL.md text) come from the test kit.
export { CORPUS, REPO, makeTree, removeTrees, skillMd } from '@skillport/test-kit';
export type { TreeSpec } from '@skillport/test-kit';

/** An mtime safely in the past (DigestCache ignores files modified within the last second). */
export const OLD_TIME = new Date(Date.now() - 3_600_000);

export function makeOld(...paths: string[]): void {
  for (const path of paths) utimesSync(path, OLD_TIME, OLD_TIME);
}

/** Blocks for `ms` milliseconds (for waiting out a coarse filesystem timestamp tick). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
