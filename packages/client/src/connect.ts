import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { McpSubscription, Transport } from '@modelcontextprotocol/client';
import type { AvailableCapabilities } from '@skillport/core';
import { SkillError } from './errors.js';

/**
 * A server address as users write it: an `http(s)://` URL (Streamable HTTP) or `stdio:COMMAND ARGS` (a process
 * started and spoken to over its stdin/stdout). Arguments split on spaces; single or double quotes keep spaces.
 */
export type ServerSpec = { kind: 'http'; url: URL; id: string } | { kind: 'stdio'; command: string; args: string[]; id: string };

export function parseServerSpec(spec: string): ServerSpec {
  const text = spec.trim();
  if (/^https?:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new SkillError('invalid', `'${text}' is not a valid URL`);
    }
    return { kind: 'http', url, id: url.href };
  }
  if (text.startsWith('stdio:')) {
    const words = splitWords(text.slice('stdio:'.length));
    const [command, ...args] = words;
    if (!command) throw new SkillError('invalid', `'${text}' names no command; write stdio:COMMAND ARGS`);
    return { kind: 'stdio', command, args, id: `stdio:${words.join(' ')}` };
  }
  throw new SkillError('invalid', `'${text}' is not a server: use an http(s):// URL or stdio:COMMAND ARGS`);
}

export function splitWords(text: string): string[] {
  const words: string[] = [];
  let current = '';
  let quote: string | undefined;
  let started = false;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      started = true;
    } else if (/\s/.test(char)) {
      if (started || current) words.push(current);
      current = '';
      started = false;
    } else {
      current += char;
    }
  }
  if (quote) throw new SkillError('invalid', `unclosed ${quote} in '${text}'`);
  if (started || current) words.push(current);
  return words;
}

/** A short, stable origin name for a server: host:port for URLs, the command's file name for stdio. */
export function defaultOrigin(spec: ServerSpec): string {
  if (spec.kind === 'http') return spec.url.host;
  const base = spec.command.split(/[\\/]/).pop() ?? spec.command;
  const script = spec.args.find((arg) => !arg.startsWith('-'));
  return /^(node|npx|python3?|uvx|deno|bun)$/.test(base) && script ? `${base}-${script.split(/[\\/]/).pop()}` : base;
}

export interface ConnectOptions {
  clientName?: string;
  clientVersion?: string;
  /** Extra environment for a stdio server. */
  env?: Record<string, string>;
  /**
   * Protocol era: `auto` probes for 2026-07-28 (which carries `ttlMs`/`cacheScope`) and falls back to the
   * 2025-11-25 handshake; `legacy` skips the probe; a version string pins it. Default: `auto` over HTTP, `legacy`
   * over stdio (the SDK's stdio probe starts the server process twice).
   */
  protocol?: 'auto' | 'legacy' | string;
  /** Called when the server announces that its resources (hence its skills) changed. */
  onResourcesChanged?: () => void;
  /** Where a stdio server's stderr goes (default: ignored). */
  stderr?: 'inherit' | 'ignore' | 'pipe';
  /** Called with a stdio server's stderr as it comes (it is then piped, whatever `stderr` says). */
  onStderr?: (text: string) => void;
  /** Headers for every HTTP request (e.g. `Authorization: Bearer …`); never part of any message. */
  headers?: Record<string, string>;
  /**
   * What the host has (its MCP servers, tools, agent name): sent as the `dev.skillport/available` hint in the
   * `_meta` of skills/list, skills/get and the list_skills / activate_skill tool calls, so a skillport server judges
   * each skill's availability for this host (docs/api.md, "Requirements and availability"). Other servers ignore it.
   */
  available?: AvailableCapabilities;
}

const HINTED_METHODS = new Set(['skills/list', 'skills/get']);
const HINTED_TOOLS = new Set(['list_skills', 'activate_skill']);

/** Adds the host's hint to the `_meta` of the requests it concerns, as they are sent. */
function withHint<T extends Transport>(transport: T, available: AvailableCapabilities | undefined): T {
  if (available === undefined) return transport;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const request = message as { method?: unknown; params?: Record<string, unknown> };
    const hinted =
      typeof request.method === 'string' &&
      (HINTED_METHODS.has(request.method) || (request.method === 'tools/call' && HINTED_TOOLS.has(String(request.params?.['name']))));
    if (!hinted) return send(message, options);
    const params = request.params ?? {};
    const meta = params['_meta'] !== null && typeof params['_meta'] === 'object' ? (params['_meta'] as Record<string, unknown>) : {};
    return send({ ...message, params: { ...params, _meta: { ...meta, 'dev.skillport/available': available } } } as typeof message, options);
  };
  return transport;
}

/** Connects a real MCP client (the SDK's) to a server spec. */
export async function connectServer(spec: ServerSpec | string, options: ConnectOptions = {}): Promise<Client> {
  const server = typeof spec === 'string' ? parseServerSpec(spec) : spec;
  const protocol = options.protocol ?? (server.kind === 'http' ? 'auto' : 'legacy');
  const client = new Client(
    { name: options.clientName ?? 'skillport-client', version: options.clientVersion ?? '0.1.0' },
    {
      versionNegotiation: { mode: protocol === 'auto' || protocol === 'legacy' ? protocol : { pin: protocol } },
      ...(options.onResourcesChanged
        ? { listChanged: { resources: { autoRefresh: false, debounceMs: 100, onChanged: () => options.onResourcesChanged?.() } } }
        : {}),
    },
  );
  try {
    if (server.kind === 'http') {
      await client.connect(
        withHint(new StreamableHTTPClientTransport(server.url, options.headers ? { requestInit: { headers: options.headers } } : {}), options.available),
      );
    } else {
      const transport = new StdioClientTransport({
        command: server.command,
        args: server.args,
        env: { ...(process.env as Record<string, string>), ...options.env },
        stderr: options.onStderr ? 'pipe' : (options.stderr ?? 'ignore'),
      });
      if (options.onStderr) transport.stderr?.on('data', (chunk: Buffer) => options.onStderr?.(chunk.toString('utf8')));
      await client.connect(withHint(transport, options.available));
    }
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new SkillError('unavailable', `cannot connect to ${server.id}: ${explainConnectError(error, server)}`, { cause: error });
  }
  if (options.onResourcesChanged) keepListening(client);
  return client;
}

/**
 * What went wrong when connecting, in words a person knows: "connection refused" rather than "fetch failed", and
 * what a closed stdio pipe usually means. Other messages pass through.
 */
export function explainConnectError(error: unknown, server: ServerSpec): string {
  const codes: string[] = [];
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 6; cause = cause.cause, depth++) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (typeof code === 'string') codes.push(code);
    for (const inner of (cause as { errors?: unknown[] }).errors ?? [])
      if (typeof (inner as NodeJS.ErrnoException)?.code === 'string') codes.push((inner as NodeJS.ErrnoException).code!);
  }
  const where = server.kind === 'http' ? server.url.host : server.command;
  if (codes.includes('ECONNREFUSED')) return `connection refused by ${where} (is the server running, on that port?)`;
  if (codes.includes('ENOTFOUND') || codes.includes('EAI_AGAIN')) return `host ${server.kind === 'http' ? server.url.hostname : where} not found`;
  if (codes.includes('ETIMEDOUT') || codes.includes('UND_ERR_CONNECT_TIMEOUT')) return `connection to ${where} timed out`;
  if (codes.includes('ECONNRESET') || codes.includes('UND_ERR_SOCKET')) return `${where} closed the connection`;
  if (codes.includes('ENOENT') && server.kind === 'stdio') return `command not found: ${server.command}`;
  if (codes.includes('EACCES') && server.kind === 'stdio') return `${server.command} is not executable (permission denied)`;
  let message = (error instanceof Error ? error.message : String(error)).replace(/^Version negotiation probe failed: /, '');
  let innermost: unknown = error;
  while (innermost instanceof Error && innermost.cause instanceof Error) innermost = innermost.cause;
  if (/fetch failed$/.test(message) && innermost instanceof Error && innermost !== error) message = `${message} (${innermost.message})`;
  if (server.kind === 'stdio' && /^(MCP error -?\d+: )?Connection closed/i.test(message))
    return 'the server process exited (or closed its output) before answering';
  const status = /\b(401|403)\b/.exec(message)?.[1];
  if (server.kind === 'http' && status === '401') return 'unauthorized (HTTP 401): the server wants a bearer token, and none or an unknown one was sent';
  if (server.kind === 'http' && status === '403') return 'forbidden (HTTP 403): the token lacks the scope this needs';
  return message;
}

/**
 * A server may end an idle subscriptions/listen stream gracefully (skillport's --stream-lifetime): the SDK does not
 * listen again by itself, so a watching client does, with the same filter, for as long as it is connected.
 */
function keepListening(client: Client): void {
  const follow = (subscription: McpSubscription | undefined): void => {
    void subscription?.closed.then((cause) => {
      if (cause !== 'graceful') return;
      client.listen({ resourcesListChanged: true }).then(follow, () => undefined);
    });
  };
  follow(client.autoOpenedSubscription);
}
