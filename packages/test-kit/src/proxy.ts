import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP proxy in front of a real MCP server: counts the JSON-RPC requests by method (to prove what a client
 * did not fetch) and can rewrite results (to play a tampered server). Handles JSON and SSE responses.
 */
export type Tamper = (method: string, params: Record<string, unknown>, result: Record<string, unknown>) => Record<string, unknown>;

export interface Proxy {
  url: string;
  counts: Record<string, number>;
  total(): number;
  reset(): void;
  tamper: Tamper | undefined;
  stop(): Promise<void>;
}

export async function startProxy(target: string, tamper?: Tamper): Promise<Proxy> {
  const counts: Record<string, number> = {};
  const proxy: Proxy = {
    url: '',
    counts,
    total: () => Object.values(counts).reduce((sum, value) => sum + value, 0),
    reset: () => {
      for (const key of Object.keys(counts)) delete counts[key];
    },
    tamper,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(502);
      response.end(String(error));
    });
  });
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let methods: Array<{ id: unknown; method: string; params: Record<string, unknown> }> = [];
    if (body.length > 0) {
      try {
        const parsed = JSON.parse(body.toString('utf8')) as unknown;
        methods = (Array.isArray(parsed) ? parsed : [parsed])
          .filter((item) => typeof item?.method === 'string')
          .map((item) => ({ id: item.id, method: item.method, params: item.params ?? {} }));
      } catch {
        // not JSON: forwarded as is
      }
    }
    for (const item of methods) if (item.id !== undefined) counts[item.method] = (counts[item.method] ?? 0) + 1;
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(request.headers))
      if (typeof value === 'string' && key !== 'host' && key !== 'content-length' && key !== 'connection') headers[key] = value;
    const upstream = await fetch(new URL(request.url ?? '/', target), { method: request.method ?? 'GET', headers, ...(body.length > 0 ? { body } : {}) });
    const outHeaders: Record<string, string> = {};
    upstream.headers.forEach((value, key) => {
      if (key !== 'content-length' && key !== 'content-encoding' && key !== 'transfer-encoding' && key !== 'connection') outHeaders[key] = value;
    });
    const type = upstream.headers.get('content-type') ?? '';
    const rewrite = (message: Record<string, unknown>) => {
      const asked = methods.find((item) => item.id === message['id']);
      if (!proxy.tamper || !asked || typeof message['result'] !== 'object' || message['result'] === null) return message;
      return { ...message, result: proxy.tamper(asked.method, asked.params, message['result'] as Record<string, unknown>) };
    };
    if (type.includes('application/json')) {
      const text = await upstream.text();
      let out = text;
      try {
        const parsed = JSON.parse(text) as Record<string, unknown> | Array<Record<string, unknown>>;
        out = JSON.stringify(Array.isArray(parsed) ? parsed.map(rewrite) : rewrite(parsed));
      } catch {
        // leave it
      }
      response.writeHead(upstream.status, outHeaders);
      response.end(out);
      return;
    }
    response.writeHead(upstream.status, outHeaders);
    if (!upstream.body) return void response.end();
    const decoder = new TextDecoder();
    let pending = '';
    for await (const chunk of upstream.body as unknown as AsyncIterable<Uint8Array>) {
      if (!type.includes('text/event-stream')) {
        response.write(chunk);
        continue;
      }
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      response.write(
        lines
          .map((line) => {
            if (!line.startsWith('data:')) return line;
            try {
              return `data: ${JSON.stringify(rewrite(JSON.parse(line.slice(5).trim()) as Record<string, unknown>))}`;
            } catch {
              return line;
            }
          })
          .map((line) => `${line}\n`)
          .join(''),
      );
    }
    if (pending) response.write(pending);
    response.end();
  }
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const target2 = new URL(target);
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${target2.pathname}`;
  return proxy;
}
