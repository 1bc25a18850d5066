import { close, closeSync, constants, fstatSync, open as openFile, openSync, read, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createHash } from 'node:crypto';

/**
 * Reading skill files safely: never through a symlink in the last path component (O_NOFOLLOW), never blocking on a
 * FIFO or device (O_NONBLOCK), and never more bytes than the caller allows. Every failure is an
 * `UnreadableFileError` with a short reason, so one bad file never becomes an unexpected crash.
 */
const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const CHUNK = 1024 * 1024;

export class UnreadableFileError extends Error {
  override name = 'UnreadableFileError';
}

/** Opens `path`, runs `use` on the descriptor, closes it; any failure becomes an UnreadableFileError. */
function withFileSync<T>(path: string, use: (fd: number) => T): T {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch (error) {
    throw new UnreadableFileError(describeOpenError(error));
  }
  try {
    return use(fd);
  } catch (error) {
    if (error instanceof UnreadableFileError) throw error;
    throw new UnreadableFileError(describeOpenError(error));
  } finally {
    closeSync(fd);
  }
}

/** Reads `length` bytes from the start of `fd` into `buffer` (fewer at end of file); returns how many. */
function readFully(fd: number, buffer: Buffer, length: number): number {
  let offset = 0;
  while (offset < length) {
    const read = readSync(fd, buffer, offset, length - offset, offset);
    if (read === 0) break;
    offset += read;
  }
  return offset;
}

/** A regular file's bytes; refused when it is not a regular file or is larger than `maxBytes`. */
export function readRegularFileSync(path: string, maxBytes: number): Buffer {
  return withFileSync(path, (fd) => {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UnreadableFileError('not a regular file');
    if (stat.size > maxBytes) throw new UnreadableFileError(`larger than ${maxBytes} bytes`);
    const buffer = Buffer.allocUnsafe(stat.size);
    return buffer.subarray(0, readFully(fd, buffer, stat.size));
  });
}

/**
 * A file's bytes when it still has `expectedSize` bytes: three system calls (open, read, close), no fstat. A file
 * that grew or shrank reads back with another length, which the caller treats as a change. For the serving hot
 * path, where the size is already known from the manifest. `own`: in an ArrayBuffer of its own (never a slice of
 * node's shared pool), one byte longer than the file, so it can be handed to another thread as it is.
 */
export function readKnownFileSync(path: string, expectedSize: number, own = false): Buffer {
  return withFileSync(path, (fd) => {
    const buffer = own ? Buffer.from(new ArrayBuffer(expectedSize + 1)) : Buffer.allocUnsafe(expectedSize + 1);
    return buffer.subarray(0, readFully(fd, buffer, buffer.length));
  });
}

/**
 * The asynchronous form of readKnownFileSync, for the serving hot path: open and read in the thread pool (two round
 * trips, through the callback API: the promise API's FileHandle costs more per call), never a synchronous system
 * call on the caller's thread, so a read the page cache cannot answer (a large catalog read from disk) holds up no
 * other request. The descriptor is closed without waiting for it.
 */
export function readKnownFile(path: string, expectedSize: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    openFile(path, FLAGS, (openError, fd) => {
      if (openError) {
        reject(new UnreadableFileError(describeOpenError(openError)));
        return;
      }
      const buffer = Buffer.allocUnsafe(expectedSize + 1);
      const next = (offset: number): void => {
        read(fd, buffer, offset, buffer.length - offset, offset, (readError, bytesRead) => {
          // A regular file reads short only at its end: a read that fills less than asked is the last one.
          if (readError || bytesRead === 0 || offset + bytesRead >= buffer.length || bytesRead < buffer.length - offset) {
            close(fd, () => {});
            if (readError) reject(new UnreadableFileError(describeOpenError(readError)));
            else resolve(buffer.subarray(0, offset + bytesRead));
            return;
          }
          next(offset + bytesRead);
        });
      };
      next(0);
    });
  });
}

let scratch: Buffer | undefined;

/**
 * The sha256 digest and size of a regular file, read in chunks through one reused buffer (no per-file
 * allocation, so scanning a large tree keeps a small, flat memory footprint). `expectedSize` comes from the
 * caller's lstat: the file is read up to one byte past it, so a file that grew or shrank since is noticed as a
 * size change without another stat.
 */
export function hashRegularFileSync(path: string, expectedSize: number): { digest: string; size: number } {
  return withFileSync(path, (fd) => {
    scratch ??= Buffer.allocUnsafe(CHUNK);
    const hash = createHash('sha256');
    let size = 0;
    const limit = expectedSize + 1;
    while (size < limit) {
      const read = readSync(fd, scratch, 0, Math.min(CHUNK, limit - size), size);
      if (read === 0) break;
      hash.update(scratch.subarray(0, read));
      size += read;
    }
    return { digest: `sha256:${hash.digest('hex')}`, size };
  });
}

/** The asynchronous form of readRegularFileSync, for large files on a serving path. */
export async function readRegularFile(path: string, maxBytes: number): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, FLAGS);
  } catch (error) {
    throw new UnreadableFileError(describeOpenError(error));
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new UnreadableFileError('not a regular file');
    if (stat.size > maxBytes) throw new UnreadableFileError(`larger than ${maxBytes} bytes`);
    const buffer = Buffer.allocUnsafe(stat.size);
    let offset = 0;
    while (offset < stat.size) {
      const { bytesRead } = await handle.read(buffer, offset, stat.size - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    return buffer.subarray(0, offset);
  } catch (error) {
    if (error instanceof UnreadableFileError) throw error;
    throw new UnreadableFileError(describeOpenError(error));
  } finally {
    await handle.close();
  }
}

function describeOpenError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ELOOP') return 'is a symbolic link';
  if (code === 'ENOENT') return 'no longer exists';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a folder';
  if (code === 'EAGAIN') return 'not a regular file';
  return error instanceof Error ? error.message : String(error);
}
