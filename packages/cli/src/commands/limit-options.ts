import type { Command } from 'commander';
import type { RequestLimits } from '@skillport/server';
import { arg } from '../kit.js';
import { parsePositiveInt, parseSize } from '../output.js';

/**
 * The serve options for HTTP request limits (docs/security.md, "Limits"), kept apart from serve.ts. Defaults are the
 * server's (DEFAULT_REQUEST_LIMITS); a flag left out keeps its default.
 */
export interface LimitFlags {
  maxBody?: number;
  maxHeaderSize?: number;
  maxUriLength?: number;
  maxJsonDepth?: number;
  maxBatch?: number;
  headersTimeout?: number;
  requestTimeout?: number;
  maxConnectionsPerClient?: number;
}

export function addLimitOptions(command: Command): Command {
  return command
    .option('--max-body <size>', 'HTTP: largest request body on /mcp (default 4MiB)', arg(parseSize))
    .option('--max-header-size <size>', 'HTTP: largest request line and headers (default 16KiB)', arg(parseSize))
    .option('--max-uri-length <n>', 'longest uri in a request (HTTP and stdio), in characters (default 8192)', arg(parsePositiveInt('--max-uri-length')))
    .option('--max-json-depth <n>', 'HTTP: deepest nesting of a request body (default 64)', arg(parsePositiveInt('--max-json-depth')))
    .option('--max-batch <n>', 'HTTP: most messages in one JSON-RPC batch (default 32)', arg(parsePositiveInt('--max-batch')))
    .option('--headers-timeout <ms>', 'HTTP: time a client has to send its request headers (default 10000)', arg(parsePositiveInt('--headers-timeout')))
    .option(
      '--request-timeout <ms>',
      'HTTP: time a client has to send a whole request, body included (default 120000)',
      arg(parsePositiveInt('--request-timeout')),
    )
    .option(
      '--max-connections-per-client <n>',
      'HTTP: open connections from one address at a time (default 256)',
      arg(parsePositiveInt('--max-connections-per-client')),
    );
}

/** The limits the flags set (the others keep the server's defaults). */
export function limitOptions(flags: LimitFlags): Partial<RequestLimits> {
  const limits: Partial<RequestLimits> = {};
  if (flags.maxBody !== undefined) limits.maxBodyBytes = flags.maxBody;
  if (flags.maxHeaderSize !== undefined) limits.maxHeaderBytes = flags.maxHeaderSize;
  if (flags.maxUriLength !== undefined) limits.maxUriLength = flags.maxUriLength;
  if (flags.maxJsonDepth !== undefined) limits.maxJsonDepth = flags.maxJsonDepth;
  if (flags.maxBatch !== undefined) limits.maxBatch = flags.maxBatch;
  if (flags.headersTimeout !== undefined) limits.headersTimeoutMs = flags.headersTimeout;
  if (flags.requestTimeout !== undefined) limits.requestTimeoutMs = flags.requestTimeout;
  if (flags.maxConnectionsPerClient !== undefined) limits.maxConnectionsPerClient = flags.maxConnectionsPerClient;
  return limits;
}
