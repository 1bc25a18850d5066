import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * One full garbage collection, for the moments after a large one-off job (the first scan, the background check of
 * a restored catalog) when megabytes of parser output and transfer copies have just become garbage: V8 would
 * otherwise keep that heap (and its resident pages) around for a long while. Never called on a request path.
 */
let gc: (() => void) | undefined;

export function collectGarbage(): void {
  try {
    if (gc === undefined) {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as () => void;
    }
    gc();
  } catch {
    // not available on this runtime: only memory is at stake
  }
}
