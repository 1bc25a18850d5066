import type { Socket } from 'node:net';

/**
 * The write timeout: a connection whose answer waits for a client that stopped reading is cut once `timeoutMs` pass
 * without the kernel taking a byte of it, so a reader that stalls holds its socket for a bounded time. Progress is a
 * write completing, or libuv's queue for the socket shrinking (a large write is taken piece by piece: node's
 * `writableLength` counts it whole until it completes). A connection with nothing to write is never cut here (idle
 * keep-alive connections have their own timeout; an open stream writes keep-alives, which a stalled reader does not
 * take either).
 */
interface Watched {
  completed: number;
  queued: number;
  since: number;
}

export class WriteStalls {
  #sockets = new Map<Socket, Watched>();
  #timer: NodeJS.Timeout | undefined;
  /** Connections cut for not reading, since start. */
  dropped = 0;

  constructor(readonly timeoutMs: number) {}

  watch(socket: Socket): void {
    this.#sockets.set(socket, { completed: 0, queued: 0, since: Date.now() });
    socket.once('close', () => this.#sockets.delete(socket));
    if (this.#timer === undefined) {
      // Checked a few times per timeout: a stalled reader is cut between 1 and 1.25 timeouts after its last byte.
      this.#timer = setInterval(() => this.#check(), Math.max(50, Math.min(1000, Math.floor(this.timeoutMs / 4))));
      this.#timer.unref();
    }
  }

  /** Bytes waiting in this process for clients to read them (node's buffers plus libuv's queues). */
  queuedBytes(): number {
    let total = 0;
    for (const socket of this.#sockets.keys()) total += socket.writableLength;
    return total;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #check(): void {
    const now = Date.now();
    for (const [socket, seen] of this.#sockets) {
      const queued = libuvQueue(socket);
      const completed = socket.bytesWritten - socket.writableLength;
      if ((queued === 0 && socket.writableLength === 0) || completed > seen.completed || queued < seen.queued) {
        seen.completed = completed;
        seen.queued = queued;
        seen.since = now;
        continue;
      }
      seen.queued = queued;
      if (now - seen.since >= this.timeoutMs) {
        this.dropped++;
        this.#sockets.delete(socket);
        socket.destroy();
      }
    }
  }
}

/** Bytes libuv still holds for the socket (what node's own `bufferSize` once reported). */
function libuvQueue(socket: Socket): number {
  const handle = (socket as Socket & { _handle?: { writeQueueSize?: number } | null })._handle;
  return typeof handle?.writeQueueSize === 'number' ? handle.writeQueueSize : 0;
}
