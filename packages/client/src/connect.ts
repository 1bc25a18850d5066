import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
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
      await client.connect(new StreamableHTTPClientTransport(server.url));
    } else {
      await client.connect(
        new StdioClientTransport({
          command: server.command,
          args: server.args,
          env: { ...(process.env as Record<string, string>), ...options.env },
          stderr: options.stderr ?? 'ignore',
        }),
      );
    }
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new SkillError('unavailable', `cannot connect to ${server.id}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return client;
}
