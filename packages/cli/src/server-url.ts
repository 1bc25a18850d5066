/**
 * One URL for every command: a skillport server's base URL (`http://127.0.0.1:3333`) or its MCP endpoint (`…/mcp`).
 * Client commands need the MCP endpoint, registry commands the base: each is found from the other. A URL with
 * another path is taken as given (another MCP server's endpoint). Nothing is cached: a probe is one GET of
 * `/healthz`, made only when the URL alone does not say.
 */
export interface ServerUrls {
  /** Where /healthz and /api/v1 live. */
  base: string;
  /** The Streamable HTTP endpoint. */
  mcp: string;
}

const PROBE_MS = 5000;

/** The base URL of a skillport server URL: a trailing `/mcp` or `/api/v1` dropped, no query or fragment. */
export function baseUrl(url: string): string {
  const parsed = new URL(url);
  parsed.pathname = parsed.pathname.replace(/\/+$/, '').replace(/\/(mcp|api\/v1)$/, '');
  parsed.search = '';
  parsed.hash = '';
  return parsed.href.replace(/\/$/, '');
}

/** What a server's /healthz says, or undefined when it is not a skillport server (or does not answer). */
export async function probeHealth(base: string, headers: Record<string, string> = {}): Promise<Record<string, unknown> | undefined> {
  try {
    const response = await fetch(`${base}/healthz`, { headers: { accept: 'application/json', ...headers }, signal: AbortSignal.timeout(PROBE_MS) });
    const type = response.headers.get('content-type') ?? '';
    if (!type.includes('json')) return undefined;
    const value = (await response.json()) as unknown;
    return value !== null && typeof value === 'object' && 'status' in value ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The MCP endpoint for a URL a user gave: `…/mcp` as it is; a URL at the root of a skillport server (its /healthz
 * answers) gets `/mcp`; anything else is taken as the endpoint itself.
 */
export async function mcpEndpoint(url: string): Promise<string> {
  const parsed = new URL(url);
  const path = parsed.pathname.replace(/\/+$/, '');
  if (/\/mcp$/.test(path)) return url;
  if (path !== '' && path !== '/api/v1') return url;
  const base = baseUrl(url);
  return (await probeHealth(base)) !== undefined ? `${base}/mcp` : url;
}

/**
 * An error text with any HTML page in it replaced by one line: a web page answering where MCP or JSON was expected
 * (a wrong path, a proxy's error page) is named, never printed whole.
 */
export function withoutHtml(message: string, url?: string): string {
  const at = message.search(/<!doctype html|<html[\s>]/i);
  if (at < 0) return message;
  const title = /<title>([^<]{0,120})<\/title>/i.exec(message.slice(at))?.[1]?.trim();
  const head = message.slice(0, at).replace(/[\s:]+$/, '');
  const hint = url !== undefined ? `; is ${url} an MCP endpoint? (a skillport server's is <base URL>/mcp)` : '';
  return `${head}: the server answered with a web page${title ? ` ("${title}")` : ''}, not MCP${hint}`;
}
