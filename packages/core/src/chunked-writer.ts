import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes a large JSON document in pieces to a temporary file and renames it into place: no single string of the
 * whole document is ever built (it would double peak memory for a big catalog), and readers see the old file or
 * the new one, never half of one.
 */
export class ChunkedFileWriter {
  #fd: number;
  #temp: string;
  #parts: string[] = [];
  #pending = 0;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.#temp = `${path}.${process.pid}.tmp`;
    this.#fd = openSync(this.#temp, 'w');
  }

  write(text: string): void {
    this.#parts.push(text);
    this.#pending += text.length;
    if (this.#pending >= 1 << 20) this.#flush();
  }

  commit(): void {
    this.#flush();
    closeSync(this.#fd);
    renameSync(this.#temp, this.path);
  }

  abandon(): void {
    try {
      closeSync(this.#fd);
    } catch {
      // already closed
    }
    rmSync(this.#temp, { force: true });
  }

  #flush(): void {
    if (this.#parts.length === 0) return;
    writeSync(this.#fd, this.#parts.join(''));
    this.#parts = [];
    this.#pending = 0;
  }
}
