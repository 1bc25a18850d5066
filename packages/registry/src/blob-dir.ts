import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { mkdir, open, readFile, rename, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { DIGEST_PATTERN, sha256Digest } from '@skillport/core';

/**
 * Content-addressed blob files: `DIR/blobs/sha256/<first two hex>/<hex>`. A blob is written to `DIR/blobs/tmp/`,
 * fsynced, renamed into place and its folder fsynced, so a blob file that exists under its name is complete and
 * durable. A blob is never rewritten or deleted by the store.
 */
export class BlobDirectory {
  readonly root: string;
  readonly #tmp: string;

  constructor(dir: string) {
    this.root = join(dir, 'blobs', 'sha256');
    this.#tmp = join(dir, 'blobs', 'tmp');
    mkdirSync(this.root, { recursive: true });
    mkdirSync(this.#tmp, { recursive: true });
  }

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
    const temp = join(this.#tmp, `${digest.slice(7, 23)}-${randomBytes(6).toString('hex')}`);
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
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

  sizeOf(digest: string): number | undefined {
    try {
      return statSync(this.pathOf(digest)).size;
    } catch {
      return undefined;
    }
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

