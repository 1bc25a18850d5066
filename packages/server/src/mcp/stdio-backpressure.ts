import { PassThrough } from 'node:stream';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * Backpressure over stdio. The SDK's transport reads every line of stdin as it comes and writes every answer to
 * stdout at once, so a client that sends requests and never reads its stdout had every answer queued in the server:
 * a hundred reads of an 11 MB file, +2.7 GB. Here stdin reaches the transport a line at a time, and the next request
 * is handed over only while stdout holds less than `maxQueuedBytes` not yet taken by the client and fewer than
 * `maxInFlight` requests are unanswered; otherwise stdin is paused (the client's writes then block on the pipe) until
 * the client reads and the answers drain. `subscriptions/listen` requests stay open by design and are not counted;
 * a cancelled request is settled by its `notifications/cancelled`; a request unanswered after `staleMs` no longer
 * counts (so a request the SDK never answers cannot wedge the connection).
 */
export interface StdioBackpressureOptions {
  maxQueuedBytes?: number;
  maxInFlight?: number;
  staleMs?: number;
  /** Longest line gathered whole; a longer one is passed on as it comes (the transport refuses it). */
  maxLineBytes?: number;
  /** Bytes of request lines read ahead and held while the gate is shut; past them stdin is paused. */
  maxHeldBytes?: number;
}

export class StdioBackpressure {
  readonly maxQueuedBytes: number;
  readonly maxInFlight: number;
  readonly staleMs: number;
  readonly maxLineBytes: number;
  readonly maxHeldBytes: number;
  /** Unanswered requests: id (typed, so 1 and "1" differ) → when each copy was handed over. */
  #pending = new Map<string, number[]>();
  #wake: (() => void) | undefined;

  constructor(
    readonly stdout: Writable,
    options: StdioBackpressureOptions = {},
  ) {
    this.maxQueuedBytes = options.maxQueuedBytes ?? 1024 * 1024;
    this.maxInFlight = options.maxInFlight ?? 4;
    this.staleMs = options.staleMs ?? 120_000;
    this.maxLineBytes = options.maxLineBytes ?? 10 * 1024 * 1024;
    this.maxHeldBytes = options.maxHeldBytes ?? 64 * 1024;
    stdout.on('drain', () => this.#wake?.());
  }

  /** Whether another request may be handed over now. */
  get open(): boolean {
    if (this.stdout.writableLength >= this.maxQueuedBytes) return false;
    return this.#inFlight() < this.maxInFlight;
  }

  /** Called with every message written to stdout: an answer settles its request. */
  sent(message: unknown): void {
    if (message === null || typeof message !== 'object') return;
    const { id, method } = message as { id?: unknown; method?: unknown };
    if (method !== undefined || (typeof id !== 'string' && typeof id !== 'number')) return;
    this.#settle(id);
    // Written synchronously by the transport: look again once this tick's writes are queued.
    queueMicrotask(() => this.#wake?.());
  }

  /** stdin, handed over a line at a time while the gate is open. */
  lines(stdin: Readable): Readable {
    const out = new PassThrough();
    const queue: Buffer[] = [];
    // Bytes of lines held back: stdin is read on until they reach maxHeldBytes, so a client that sent a few
    // requests and hung up is heard to hang up ('end' comes only from a stdin that is read) while its answers wait.
    let held = 0;
    let partial: Buffer | undefined;
    let passing = false; // inside an over-long line: its bytes go through as they come
    let ended = false;
    let retry: NodeJS.Timeout | undefined;
    const pump = () => {
      while (queue.length > 0 && this.open) {
        const line = queue.shift()!;
        held -= line.length;
        this.#admit(line);
        out.write(line);
      }
      // Held back by requests that may never be answered: look again later (they go stale after staleMs).
      if (queue.length > 0 && retry === undefined) {
        retry = setTimeout(() => {
          retry = undefined;
          this.#wake?.();
        }, 1000);
        retry.unref();
      }
      if (queue.length === 0 && ended) out.end();
      else if (held < this.maxHeldBytes && stdin.isPaused() && !ended) stdin.resume();
    };
    this.#wake = pump;
    stdin.on('data', (chunk: Buffer) => {
      let data = partial === undefined ? chunk : Buffer.concat([partial, chunk]);
      partial = undefined;
      for (let end = data.indexOf(10); end !== -1; end = data.indexOf(10)) {
        const line = data.subarray(0, end + 1);
        data = data.subarray(end + 1);
        if (passing) {
          passing = false;
          out.write(line);
        } else {
          queue.push(Buffer.from(line));
          held += line.length;
        }
      }
      if (data.length > 0) {
        if (passing || data.length > this.maxLineBytes) {
          passing = true;
          out.write(data);
        } else partial = Buffer.from(data);
      }
      pump();
      if (held >= this.maxHeldBytes) stdin.pause();
    });
    stdin.once('end', () => {
      if (partial !== undefined) {
        queue.push(partial);
        held += partial.length;
      }
      partial = undefined;
      ended = true;
      pump();
    });
    stdin.once('error', (error) => out.destroy(error));
    // The transport pauses what it reads when it closes, so that the process can end: pass that on.
    out.on('pause', () => {
      if (out.listenerCount('data') > 0) return;
      this.#wake = undefined;
      stdin.pause();
    });
    return out;
  }

  #admit(line: Buffer): void {
    let message: unknown;
    try {
      message = JSON.parse(line.toString('utf8'));
    } catch {
      return; // answered by the line screen, at once
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) return;
    const { id, method, params } = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
    if (typeof method !== 'string') return;
    if (method === 'notifications/cancelled') {
      const cancelled = params?.requestId;
      if (typeof cancelled === 'string' || typeof cancelled === 'number') this.#settle(cancelled);
      return;
    }
    if (method === 'subscriptions/listen' || (typeof id !== 'string' && typeof id !== 'number')) return;
    const key = keyOf(id);
    this.#pending.set(key, [...(this.#pending.get(key) ?? []), Date.now()]);
  }

  #settle(id: string | number): void {
    const key = keyOf(id);
    const times = this.#pending.get(key);
    if (times === undefined) return;
    times.shift();
    if (times.length === 0) this.#pending.delete(key);
  }

  #inFlight(): number {
    const oldest = Date.now() - this.staleMs;
    let count = 0;
    for (const [key, times] of this.#pending) {
      const live = times.filter((at) => at >= oldest);
      if (live.length === 0) this.#pending.delete(key);
      else if (live.length !== times.length) this.#pending.set(key, live);
      count += live.length;
    }
    return count;
  }
}

function keyOf(id: string | number): string {
  return `${typeof id}:${id}`;
}

/** The SDK's stdio transport, telling the gate of every message it writes. */
export class GatedStdioTransport extends StdioServerTransport {
  constructor(
    private readonly gate: StdioBackpressure,
    stdin: Readable,
  ) {
    super(stdin, gate.stdout);
  }

  override send(message: JSONRPCMessage): Promise<void> {
    const written = super.send(message);
    this.gate.sent(message);
    return written;
  }
}
