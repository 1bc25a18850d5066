import { isPlainSkillUri, parseSkillUri } from '@skillport/core';
import { clip } from '../http/limits.js';

/**
 * The SDK's resources/read handler parses the requested URI with `new URL()`, which resolves `.`, `..` and their
 * percent-encoded forms before the skill source sees it, so `skill://a/x/../b/SKILL.md` would read skill `b`. The
 * serving rules refuse every such path trick, so resources/read requests are checked on their raw URI, before
 * the SDK, on every transport: HTTP calls `refusal` from its request handler, stdio wraps its transport.
 */
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: string | number;
  error: { code: number; message: string; data?: unknown };
}

/** The error to answer instead of the SDK, or undefined when the message may go on. */
export function refusal(message: unknown): JsonRpcErrorResponse | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const { method, id, params } = message as { method?: unknown; id?: unknown; params?: { uri?: unknown } };
  if (method !== 'resources/read' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  const uri = params?.uri;
  if (typeof uri !== 'string' || !/^skill:/i.test(uri) || isPlainSkillUri(uri)) return undefined;
  // Judged as the SDK will read it: `new URL()` lowercases the scheme, so `SKILL://a/x/../b/SKILL.md` reads
  // `skill://a/b/SKILL.md` and must be refused like its lowercase spelling.
  const parsed = parseSkillUri(`skill:${uri.slice('skill:'.length)}`);
  if (parsed !== 'traversal' && parsed !== 'syntax') return undefined;
  // The same answer as for any URI that names nothing served.
  return { jsonrpc: '2.0', id, error: { code: -32602, message: `Resource not found: ${clip(uri)}`, data: { uri: clip(uri) } } };
}
