import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DIGEST_PATTERN, sha256Digest } from '@skillport/core';

/**
 * Content-addressed blob files: `DIR/blobs/sha256/<first two hex>/<hex>`. A blob is written to `DIR/blobs/tmp/`,
 * fsynced, renamed into place and its folder fsynced, so a blob file that exists under its name is complete and
 * durable. A blob is never rewritten or deleted by the store.
 *
 * A writer killed mid-write leaves its temporary file behind; opening the folder removes those of writers that are
 * gone (`removeDeadTemps`). Temporary names carry the writer's host and pid because other live processes may write
 * into the same folder at the same time (`publish --data DIR` beside `serve --data DIR`): only a file whose writer
 * is known to be dead (same host, pid not running), or that is older than any write takes, is removed.
 */
export class BlobDirectory {
  readonly root: string;
  readonly #tmp: string;

  /** `keepTemps`: leave every temporary file alone (`store check` changes nothing). */
  constructor(dir: string, options: { keepTemps?: boolean } = {}) {
    this.root = join(dir, 'blobs', 'sha256');
    this.#tmp = join(dir, 'blobs', 'tmp');
    mkdirSync(this.root, { recursive: true });
    mkdirSync(this.#tmp, { recursive: true });
    this.removedTemps = options.keepTemps ? 0 : this.#removeDeadTemps();
  }

  /** How many temporary files of dead writers the constructor removed. */
  readonly removedTemps: number;

  pathOf(digest: string): string {
    if (!DIGEST_PATTERN.test(digest)) throw new Error(`not a sha256 digest: ${digest.slice(0, 80)}`);
    const hex = digest.slice('sha256:'.length);
    return join(this.root, hex.slice(0, 2), hex);
  }

  has(digest: string): boolean {
    return existsSync(this.pathOf(digest));
  }

  /**
   * Writes the blob durably unless a complete copy is already there. Asynchronous (the thread pool), so the blobs
   * of one publish are written and fsynced side by side rather than one after another.
   */
  async put(digest: string, bytes: Uint8Array): Promise<void> {
    if (sha256Digest(bytes) !== digest) throw new Error(`blob bytes do not match ${digest}`);
    const target = this.pathOf(digest);
    try {
      if ((await stat(target)).size === bytes.byteLength) return;
    } catch {
      // not there yet
    }
    const folder = join(target, '..');
    await mkdir(folder, { recursive: true });
    const temp = join(this.#tmp, `${TEMP_OWNER}.${digest.slice(7, 23)}-${randomBytes(6).toString('hex')}`);
    const handle = await open(temp, 'wx', 0o644);
    try {
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
    } catch (error) {
      // A failed write (a full disk) must not leave its partial file behind to keep the disk full.
      await rm(temp, { force: true }).catch(() => undefined);
      throw error;
    }
    await syncFolder(folder);
  }

  async read(digest: string, size: number): Promise<Uint8Array> {
    const bytes = await readFile(this.pathOf(digest));
    if (bytes.byteLength !== size) throw new Error(`blob ${digest} is ${bytes.byteLength} bytes, expected ${size}`);
    return bytes;
  }

  /** Every blob file's digest (for the consistency check). */
  list(): string[] {
    const found: string[] = [];
    for (const prefix of safeReaddir(this.root)) {
      for (const name of safeReaddir(join(this.root, prefix))) {
        if (/^[0-9a-f]{64}$/.test(name) && name.startsWith(prefix)) found.push(`sha256:${name}`);
      }
    }
    return found.sort();
  }

  tempFiles(): string[] {
    return safeReaddir(this.#tmp).map((name) => join(this.#tmp, name));
  }

  #removeDeadTemps(): number {
    let removed = 0;
    const now = Date.now();
    for (const name of safeReaddir(this.#tmp)) {
      const path = join(this.#tmp, name);
      let stale: boolean;
      try {
        stale = now - statSync(path).mtimeMs > STALE_TEMP_MS;
      } catch {
        continue; // renamed into place meanwhile
      }
      if (!stale && !writerIsDead(name)) continue;
      try {
        rmSync(path, { force: true });
        removed++;
      } catch {
        // A read-only folder: `store check` still reports it.
      }
    }
    return removed;
  }

  sizeOf(digest: string): number | undefined {
    try {
      return statSync(this.pathOf(digest)).size;
    } catch {
      return undefined;
    }
  }
}

/** `<host>~<pid>`: who writes a temporary file (host names hold no `~`; `.` separates it from the rest). */
const TEMP_OWNER = `${hostname().replace(/[^A-Za-z0-9-]/g, '_')}~${process.pid}`;
/** A temporary file this old is abandoned whoever wrote it: one blob write takes seconds, not an hour. */
const STALE_TEMP_MS = 60 * 60 * 1000;

/** True when the temporary file was written by a process of this host that no longer runs. */
function writerIsDead(name: string): boolean {
  const match = /^([^.~]+)~(\d+)\./.exec(name);
  if (!match || match[1] !== TEMP_OWNER.split('~')[0]) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return false; // another store in this process may be writing it now
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch {
    // Some file systems cannot fsync a folder; the rename is still atomic.
  } finally {
    await handle?.close();
  }
}
