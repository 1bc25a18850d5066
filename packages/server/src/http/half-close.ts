import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The HTTP server is half-open (http-server.ts): after a client's FIN, the requests it already sent are answered,
 * then the connection closes. An open-ended answer (an event stream) would never end so, and a client that closed
 * its side cannot be told apart from one that is gone until a write fails: such an answer ends with the FIN, as
 * node's default ended every answer.
 */
const openEnded = new WeakMap<Socket, Set<ServerResponse>>();

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
