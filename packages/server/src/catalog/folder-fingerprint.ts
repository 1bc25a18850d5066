import { lstatSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import { join } from 'node:path';

/** Names never watched, swept or fingerprinted (discovery does not enter them either). */
export const SKIPPED: ReadonlySet<string> = new Set(['.git', 'node_modules']);
/** A file changed this recently may change again within the same timestamp tick: its folder is looked at again. */
const FRESH_MS = 1000;

const float = new Float64Array(1);
const words = new Uint32Array(float.buffer);
/** The two lanes of the entry being fingerprinted (module state: no closure per entry on a sweep of 100,000 folders). */
let laneX = 0;
let laneY = 0;

function mix(value: number): void {
  float[0] = value;
  laneX = Math.imul(laneX ^ words[0]!, 0x01000193) ^ words[1]!;
  laneY = Math.imul(laneY ^ words[1]!, 0x5bd1e995) ^ words[0]!;
  laneY ^= laneY >>> 13;
}

/**
 * What a folder's entries look like, as one number: for each entry its name, type, inode, mtime and ctime, and for
 * files and links their size too (a write in place moves both times; a rename over a file brings another inode). Summed entry by entry (the listing's order may change),
 * in two independent 32-bit lanes. A file changed within FRESH_MS may be written again within one timestamp tick, so
 * such a folder gets a fingerprint that matches nothing (NaN): it is reported again at its next sweep, until its
 * times can be trusted.
 */
export function fingerprint(dir: string, entries: readonly Dirent[]): number {
  let a = 0;
  let b = 0;
  const now = Date.now();
  let fresh = false;
  for (const entry of entries) {
    if (SKIPPED.has(entry.name)) continue;
    laneX = 0x811c9dc5;
    laneY = 0x01000193;
    for (let i = 0; i < entry.name.length; i++) {
      const c = entry.name.charCodeAt(i);
      laneX = Math.imul(laneX ^ c, 0x01000193);
      laneY = Math.imul(laneY ^ c, 0x5bd1e995) ^ (laneY >>> 15);
    }
    try {
      const stats = lstatSync(join(dir, entry.name));
      mix(stats.mode);
      mix(stats.ino);
      mix(stats.mtimeMs);
      mix(stats.ctimeMs);
      // A folder's times move with its entries, which its own fingerprint covers (they only tell a folder made anew
      // under the same name, maybe on the same inode number); a file's size and times are its bytes' witnesses.
      if (!stats.isDirectory()) {
        mix(stats.size);
        if (now - stats.ctimeMs < FRESH_MS || now - stats.mtimeMs < FRESH_MS) fresh = true;
      }
    } catch {
      mix(-1); // gone since the listing: the next sweep sees the folder without it
    }
    a = (a + laneX) | 0;
    b = (b + laneY) | 0;
  }
  return fresh ? Number.NaN : (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}
