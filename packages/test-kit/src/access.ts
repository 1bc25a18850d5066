import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ClientOptions, Era } from './cli-process.js';
import { runCli } from './cli-process.js';

/** A real MCP client over Streamable HTTP that presents a bearer token. */
export async function connectAs(url: string, era: Era, token: string | undefined, extra: ClientOptions = {}): Promise<Client> {
  const options: ClientOptions = era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } }, ...extra } : extra;
  const client = new Client({ name: 'skillport-access-test', version: '1.0.0' }, options);
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** `skillport token create` through the real CLI; returns the printed token. */
export async function createToken(data: string, args: string[]): Promise<string> {
  const run = await runCli(['token', 'create', '--data', data, ...args]);
  if (run.code !== 0) throw new Error(`token create failed: ${run.stderr}`);
  const token = run.stdout.trim();
  if (!/^skp_[0-9a-f]{12}_/.test(token)) throw new Error(`unexpected token output: ${run.stdout}`);
  return token;
}

/** JSON and the 2025-era streaming media types, as the SDK client's Accept lists them. */
export const JSON_RPC_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
});

/**
 * The headers and params of a JSON-RPC request shaped as the SDK client shapes it, so the HTTP fast path may take it:
 * in the 2026 era the Mcp-Method/Mcp-Name headers and the `_meta` envelope (members of `params._meta` kept over it).
 */
export function sdkShaped(era: Era, method: string, params: Record<string, unknown>, clientName = 'raw') {
  const headers: Record<string, string> = { ...JSON_RPC_HEADERS };
  let shapedParams = params;
  if (era === 'modern') {
    headers['mcp-protocol-version'] = '2026-07-28';
    headers['mcp-method'] = method;
    if (method === 'resources/read' && typeof params['uri'] === 'string') headers['mcp-name'] = params['uri'];
    if (method === 'tools/call' && typeof params['name'] === 'string') headers['mcp-name'] = params['name'];
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: clientName, version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    shapedParams = { ...params, _meta: { ...envelope, ...(params['_meta'] as object | undefined) } };
  } else {
    headers['mcp-protocol-version'] = '2025-11-25';
  }
  return { headers, params: shapedParams };
}

/** A raw JSON-RPC request as the SDK client shapes it (so the HTTP fast path may take it), with a bearer token. */
export async function rawRequest(url: string, era: Era, token: string | undefined, id: number, method: string, params: Record<string, unknown>) {
  const { headers, params: body } = sdkShaped(era, method, params);
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: body }) });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const json = type.startsWith('text/event-stream') ? JSON.parse(/^data: (.*)$/m.exec(text)![1]!) : JSON.parse(text);
  return { status: response.status, json };
}

/** The outcome of a call, success or failure, as comparable data. */
export async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return { ok: await run() };
  } catch (error) {
    const failure = error as { message?: string; code?: unknown };
    return { error: failure.message, code: failure.code };
  }
}
