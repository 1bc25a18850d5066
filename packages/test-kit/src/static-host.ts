import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real static HTTP host on 127.0.0.1 for the remote-source tests: routes answer with bytes, or with a handler for
 * the hostile cases (redirects, slow answers, failures). Every request is recorded (path, query, headers).
 */
export type Route = Uint8Array | string | ((req: IncomingMessage, res: ServerResponse, count: number) => void);

export interface SeenRequest {
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
}

export interface StaticHost {
  url: string;
  origin: string;
  routes: Map<string, Route>;
  requests: SeenRequest[];
  /** Requests to one path. */
  count(path: string): number;
  close(): Promise<void>;
}

export async function startStaticHost(routes: Record<string, Route> = {}): Promise<StaticHost> {
  const table = new Map(Object.entries(routes));
  const requests: SeenRequest[] = [];
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://host');
    requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
    const count = (counts.get(url.pathname) ?? 0) + 1;
    counts.set(url.pathname, count);
    const route = table.get(url.pathname);
    if (route === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (typeof route === 'function') return route(req, res, count);
    const body = typeof route === 'string' ? Buffer.from(route) : Buffer.from(route);
    const type = url.pathname.endsWith('.json') ? 'application/json' : url.pathname.endsWith('.md') ? 'text/markdown' : 'application/octet-stream';
    res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body);
  });
  // Slow-answer routes keep sockets open: close them with the server.
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/`,
    origin,
    routes: table,
    requests,
    count: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
