import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The HTTP server is half-open (http-server.ts): after a client's FIN, the requests it already sent are answered,
 * then the connection closes. An open-ended answer (an event stream) would never end so, and a client that closed
 * its side cannot be told apart from one that is gone until a write fails: such an answer ends with the FIN, as
 * node's default ended every answer.
 */
const openEnded = new WeakMap<Socket, Set<ServerResponse>>();

/**
 * `res` is open-ended once its headers say it is an event stream: registered then, not when the request arrives, so
 * that a refusal (401, 405, 429), and an answer still queued behind an earlier one on the connection, is answered
 * after the FIN like any other. Headers passed as an array to writeHead are not looked at (nothing here does so).
 */
export function endOnClientFinOnceStreaming(res: ServerResponse, started?: (res: ServerResponse) => void): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    res.writeHead = writeHead;
    const result = (writeHead as (...all: unknown[]) => ServerResponse).apply(this, args);
    if (contentType(res, args).startsWith('text/event-stream')) {
      endOnClientFin(res);
      started?.(res);
    }
    return result;
  } as ServerResponse['writeHead'];
}

function contentType(res: ServerResponse, args: unknown[]): string {
  let value: unknown = res.getHeader('content-type');
  const headers = args.find((arg) => typeof arg === 'object' && arg !== null && !Array.isArray(arg)) as Record<string, unknown> | undefined;
  for (const [name, given] of Object.entries(headers ?? {})) if (name.toLowerCase() === 'content-type') value = given;
  return String(value ?? '').toLowerCase();
}

/** `res` is open-ended: its connection is closed when the client half-closes (at once if it already has). */
export function endOnClientFin(res: ServerResponse): void {
  const socket = res.req.socket;
  if (socket.readableEnded) {
    socket.destroy();
    return;
  }
  let open = openEnded.get(socket);
  if (open === undefined) {
    const held = new Set<ServerResponse>();
    openEnded.set(socket, held);
    socket.once('end', () => {
      if (held.size > 0) socket.destroy();
    });
    open = held;
  }
  const held = open;
  held.add(res);
  res.once('close', () => held.delete(res));
}
