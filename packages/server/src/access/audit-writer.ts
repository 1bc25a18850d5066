import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/**
 * The writer thread stopped (or never started): the caller inserts the rows itself, unless the thread committed
 * them before it died (batch `seq` of `writer` in the audit_writes table, audit-insert.ts); `seq` 0: never sent.
 */
export class AuditWriterGone extends Error {
  override name = 'AuditWriterGone';
  constructor(
    readonly writer: string,
    readonly seq: number,
  ) {
    super('the audit writer stopped');
  }
}

/** Tests only: the thread exits right after committing this batch, before it answers. */
export const auditWriterTesting: { exitAfterCommit?: number | undefined } = {};

interface Waiting {
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * The SQLite access store's audit inserts on a thread of their own (audit-worker.ts), with a second connection to
 * the same WAL database: a read's row costs the main thread a share of one message instead of four b-tree inserts.
 * `append` resolves once the rows are committed, so a query on the main connection after it sees them. Referenced
 * only while batches are in flight.
 */
export class AuditWriter {
  readonly #worker: Worker;
  readonly #id = randomUUID();
  #waiting = new Map<number, Waiting>();
  #seq = 0;
  #stopped = false;
  /** Held from close until the thread exited (ref and unref are a switch, not a count). */
  #closing = false;
  #exited: Promise<void>;

  constructor(location: string) {
    this.#worker = new Worker(new URL('./audit-worker.js', import.meta.url), {
      workerData: { location, writer: this.#id, exitAfterCommit: auditWriterTesting.exitAfterCommit },
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    this.#worker.on('message', ({ seq, error }: { seq: number; error?: string }) => {
      const waiting = this.#waiting.get(seq);
      if (waiting === undefined) return;
      this.#waiting.delete(seq);
      if (this.#waiting.size === 0 && !this.#closing) this.#worker.unref();
      if (error === undefined) waiting.resolve();
      else waiting.reject(new Error(error));
    });
    this.#worker.once('error', () => this.#stop());
    this.#exited = new Promise((resolve) => this.#worker.once('exit', () => resolve()));
    void this.#exited.then(() => this.#stop());
    this.#worker.unref();
  }

  append(rows: unknown[][]): Promise<void> {
    if (this.#stopped) return Promise.reject(new AuditWriterGone(this.#id, 0));
    return new Promise((resolve, reject) => {
      const seq = ++this.#seq;
      if (this.#waiting.size === 0) this.#worker.ref();
      this.#waiting.set(seq, { resolve, reject });
      this.#worker.postMessage({ seq, rows });
    });
  }

  /** Writes what was sent, then stops the thread and its connection. */
  async close(): Promise<void> {
    if (!this.#stopped) {
      this.#closing = true;
      this.#worker.ref();
      this.#worker.postMessage({ close: true });
    }
    await this.#exited;
  }

  #stop(): void {
    this.#stopped = true;
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const [seq, { reject }] of waiting) reject(new AuditWriterGone(this.#id, seq));
  }
}
