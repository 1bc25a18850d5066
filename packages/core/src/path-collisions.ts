import reserved from './windows-reserved-names.json' with { type: 'json' };

/**
 * File and folder names that differ only by case or Unicode normalisation (`A.md` and `a.md`, `SKILL.md` beside
 * `skill.md`, `café` in NFC and in NFD): distinct on Linux, but one name on macOS (APFS compares canonically
 * equivalent, case-folded names) and Windows (NTFS is case-insensitive, and Win32 drops a name's trailing dots and
 * spaces: `a.md.` is `a.md`), so installing such a skill there loses a file or mixes two.
 */
export interface PathCollision {
  /** The spelling met first in code-point order. */
  first: string;
  /** The spelling that collides with it (reported against this one). */
  second: string;
  kind: 'file' | 'folder';
}

/** How many collisions are listed; past it, one line says how many more there are (a hostile archive can hold many). */
export const MAX_LISTED_COLLISIONS = 20;

/** The collisions among `paths` (`/`-separated, relative): the highest folder where two spellings meet, once each. */
export function pathCollisions(paths: Iterable<string>): PathCollision[] {
  const files = new Set(paths);
  const byKey = new Map<string, string>();
  const spellings = new Set<string>();
  const found: PathCollision[] = [];
  for (const path of [...files].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (let end = path.indexOf('/'); ; end = path.indexOf('/', end + 1)) {
      const spelling = end < 0 ? path : path.slice(0, end);
      if (!spellings.has(spelling)) {
        spellings.add(spelling);
        const key = spelling.split('/').map(comparable).join('/');
        const other = byKey.get(key);
        if (other === undefined) byKey.set(key, spelling);
        // Two spellings under differently spelled folders were reported at those folders already.
        else if (parentOf(other) === parentOf(spelling)) found.push({ first: other, second: spelling, kind: end < 0 && files.has(other) ? 'file' : 'folder' });
      }
      if (end < 0) break;
    }
  }
  return found;
}

/** One name as macOS and Windows compare it: canonically composed, case-folded, trailing dots and spaces dropped. */
function comparable(name: string): string {
  return name
    .normalize('NFC')
    .toLowerCase()
    .replace(/[. ]+$/, '');
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/**
 * The collisions as one-line warnings (at most MAX_LISTED_COLLISIONS, then a count), each naming both spellings, and
 * the names Windows cannot hold (a character it refuses in a name): served with the warning, refused at publish.
 */
export function collisionWarnings(paths: Iterable<string>): Array<{ path: string; message: string }> {
  const list = [...paths];
  const found = pathCollisions(list);
  const lines = found.slice(0, MAX_LISTED_COLLISIONS).map((collision) => ({ path: collision.second, message: collisionMessage(collision) }));
  lines.push(...windowsCharacterWarnings(list).slice(0, MAX_LISTED_COLLISIONS));
  if (found.length > MAX_LISTED_COLLISIONS)
    lines.push({ path: '', message: `${found.length - MAX_LISTED_COLLISIONS} more names collide by case or Unicode normalisation (not listed)` });
  return lines;
}

/** Says how the two differ: two spellings in other normalisations look the same on a terminal, so they are named. */
function collisionMessage({ first, second, kind }: PathCollision): string {
  if (first.normalize('NFC') === second.normalize('NFC'))
    return `'${first}' (${form(first)}) and '${second}' (${form(second)}) are one name in two Unicode normalisations: one ${kind} on macOS (rename one)`;
  if (first.normalize('NFC').toLowerCase() !== second.normalize('NFC').toLowerCase())
    return `'${first}' and '${second}' are one name on Windows, which drops trailing dots and spaces: one ${kind} there (rename one)`;
  if (first.toLowerCase() === second.toLowerCase()) return `'${first}' and '${second}' differ only in case: one ${kind} on macOS and Windows (rename one)`;
  return `'${first}' (${form(first)}) and '${second}' (${form(second)}) differ only in case and Unicode normalisation: one ${kind} on macOS (rename one)`;
}

function form(name: string): string {
  return name === name.normalize('NFC') ? 'NFC' : name === name.normalize('NFD') ? 'NFD' : 'mixed';
}

/** Windows' device names (windows-reserved-names.json), uppercase. */
const RESERVED = new Set((reserved.names as string[]).map((name) => name.toUpperCase()));

/**
 * The device name a path segment is on Windows (`CON` for `con.md`, `Nul.tar.gz`, `aux. `, `COM1 .txt`), or
 * undefined: Win32 drops trailing dots and spaces, and what comes before the first dot (spaces before it dropped
 * too) names the device whatever the extension.
 */
export function windowsDeviceName(segment: string): string | undefined {
  const trimmed = segment.replace(/[. ]+$/, '');
  const dot = trimmed.indexOf('.');
  const stem = (dot < 0 ? trimmed : trimmed.slice(0, dot)).replace(/ +$/, '').toUpperCase();
  return RESERVED.has(stem) ? stem : undefined;
}

/**
 * The files and folders among `paths` named for a Windows device, once each at the highest such folder, as errors
 * (at most MAX_LISTED_COLLISIONS, then a count): such a skill cannot be installed on Windows (the file is not created,
 * or writing it writes to the device), so it is refused like an unsafe path, for serving and publishing alike.
 */
export function reservedNameErrors(paths: Iterable<string>): Array<{ path: string; message: string }> {
  const found: Array<{ path: string; message: string }> = [];
  const reported = new Set<string>();
  let more = 0;
  for (const path of paths) {
    const segments = path.split('/');
    for (let at = 0; at < segments.length; at++) {
      const device = windowsDeviceName(segments[at]!);
      if (device === undefined) continue;
      const named = segments.slice(0, at + 1).join('/');
      if (reported.has(named)) break;
      reported.add(named);
      const kind = at < segments.length - 1 ? 'folder' : 'file';
      if (found.length < MAX_LISTED_COLLISIONS) {
        found.push({
          path: named,
          message: `'${named}' is named for the ${device} device on Windows (reserved with any extension, in any case): the ${kind} cannot be created there (rename it)`,
        });
      } else more++;
      break;
    }
  }
  if (more > 0) found.push({ path: '', message: `${more} more files or folders are named for Windows devices (not listed)` });
  return found;
}

/** Characters Win32 refuses in a file or folder name (`:` inside a path also names an NTFS alternate data stream). */
const WINDOWS_REFUSED = /[<>:"|?*]/;

/** A warning per path holding a name Windows cannot create, naming the character. */
function windowsCharacterWarnings(paths: readonly string[]): Array<{ path: string; message: string }> {
  const found: Array<{ path: string; message: string }> = [];
  for (const path of paths) {
    const char = WINDOWS_REFUSED.exec(path)?.[0];
    if (char === undefined) continue;
    const why = char === ':' ? ' (there it names an alternate data stream of another file)' : '';
    found.push({ path, message: `'${path}' holds '${char}', which Windows does not allow in a name${why}: it cannot be created there (rename it)` });
  }
  return found;
}
