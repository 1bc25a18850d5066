import { sep } from 'node:path';

/**
 * Whether the folder at real path `outer` holds (or is) the one at real path `inner`. A link to such a folder (`/`,
 * `..`, the home folder above a served tree) would bring in the served tree again and everything around it: walking
 * and watching it never ends on a real disk, so it is not followed.
 */
export function holdsPath(outer: string, inner: string): boolean {
  return outer === inner || outer === sep || inner.startsWith(outer + sep);
}
