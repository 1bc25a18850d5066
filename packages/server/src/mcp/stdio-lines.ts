import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE, isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResponse } from '@modelcontextprotocol/server';
import { clip } from '../http/limits.js';
import type { JsonRpcErrorResponse } from './uri-guard.js';

/** An answer to a line that is no JSON-RPC message: `id` null when none could be read from it (JSON-RPC 2.0, 5). */
export type LineRefusal = Omit<JsonRpcErrorResponse, 'id'> & { id: string | number | null };

/**
 * stdin as the SDK's stdio transport should see it. That transport drops a line that is not JSON, or not a JSON-RPC
 * message, without a word (the client waits for an answer that never comes): here each such line is answered instead,
 * with -32700 (not JSON) or -32600 (not a JSON-RPC message, a batch, which stdio does not carry), or -32602 for a
 * request whose params are an array, as over HTTP (mcp/request-screen.ts). Every other line reaches the transport
 * unchanged, in order. A line longer than `maxLineBytes` never reaches the transport (its read buffer throws and the
 * connection ends): its bytes are dropped as they come, it is answered with -32600 (id null: it was never read) as
 * soon as it passes the bound, `onOverlong` is told, and the next line is read as usual.
 */
export function screenedStdin(
  stdin: Readable,
  refuse: (answer: LineRefusal) => void,
  maxLineBytes = STDIO_DEFAULT_MAX_BUFFER_SIZE,
  onOverlong: (message: string) => void = () => {},
): Readable {
  const out = new PassThrough();
  // The line read so far, in pieces: joined once at its end (a line of many chunks is not copied per chunk).
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let dropping = false; // inside an over-long line: bytes are dropped until its end
  const lineDone = (tail: Buffer) => {
    const line = pending.length === 0 ? tail : Buffer.concat([...pending, tail]);
    pending = [];
    pendingBytes = 0;
    const answer = refusal(line.toString('utf8').replace(/\r?\n$/, ''));
    if (answer === undefined) out.write(line);
    else refuse(answer);
  };
  const onData = (chunk: Buffer) => {
    let data = chunk;
    for (let end = data.indexOf(10); end !== -1; end = data.indexOf(10)) {
      const line = data.subarray(0, end + 1);
      data = data.subarray(end + 1);
      if (dropping) dropping = false;
      else if (pendingBytes + line.length > maxLineBytes)
        overlong(); // with its newline, as the transport counts
      else lineDone(line);
    }
    if (data.length === 0 || dropping) return;
    if (pendingBytes + data.length > maxLineBytes) {
      overlong();
      dropping = true;
      return;
    }
    pending.push(Buffer.from(data));
    pendingBytes += data.length;
  };
  const overlong = () => {
    pending = [];
    pendingBytes = 0;
    const message = `Invalid Request: the line is longer than ${maxLineBytes} bytes; it was not read`;
    refuse({ jsonrpc: '2.0', id: null, error: { code: -32600, message } });
    onOverlong(`stdin: a line longer than ${maxLineBytes} bytes refused (-32600); the next line is read as usual`);
  };
  stdin.on('data', onData);
  // The transport pauses its stdin when it closes, so that the process can end: pass that on.
  out.on('pause', () => {
    if (out.listenerCount('data') > 0) return;
    stdin.off('data', onData);
    stdin.pause();
  });
  stdin.once('end', () => {
    if (pending.length > 0) out.write(Buffer.concat(pending));
    out.end();
  });
  stdin.once('error', (error) => out.destroy(error));
  stdin.once('close', () => {
    if (!out.writableEnded) out.end();
  });
  return out;
}

/** The answer to one line, or undefined when the line goes to the transport. */
export function refusal(line: string): LineRefusal | undefined {
  if (line.trim() === '') return undefined; // blank lines between messages are nothing, as the transport reads them
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not valid JSON' } };
  }
  if (isJSONRPCRequest(message) || isJSONRPCNotification(message) || isJSONRPCResponse(message)) return undefined;
  if (Array.isArray(message)) {
    return {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not supported on stdio; send one message a line' },
    };
  }
  const fields = message !== null && typeof message === 'object' ? (message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown }) : {};
  const id = typeof fields.id === 'string' || (typeof fields.id === 'number' && Number.isSafeInteger(fields.id)) ? fields.id : null;
  if (id !== null && fields.jsonrpc === '2.0' && typeof fields.method === 'string' && Array.isArray(fields.params)) {
    return { jsonrpc: '2.0', id, error: { code: -32602, message: `Invalid params for ${clip(fields.method, 100)}: params must be an object` } };
  }
  return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request: the line is not a valid JSON-RPC 2.0 message' } };
}
