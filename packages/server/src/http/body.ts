import type { IncomingMessage } from 'node:http';

/**
 * A request body, read whole, or undefined when it is larger than `limit` bytes. An over-long body is refused on its
 * Content-Length header before a byte of it is read, or (chunked) as soon as the limit is passed: the rest is never
 * read. The caller answers 413 with `Connection: close` (closeAfter, below), so the connection goes with the answer.
 * Shared by /mcp, the admin API and extra routes.
 */
export function readBodyLimited(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  if (declaredTooLarge(req, limit)) {
    refused.add(req);
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      // Past the limit: stop here. Nothing more is kept, and the connection is closed once the 413 is written.
      req.off('data', onData);
      req.off('end', onEnd);
      req.pause();
      refused.add(req);
      chunks.length = 0;
      resolve(undefined);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

/** Requests whose body was refused unread: their connection cannot carry another request. */
const refused = new WeakSet<IncomingMessage>();

/** True when the request's body was refused before it was read to the end (answer with `Connection: close`). */
export function bodyRefused(req: IncomingMessage): boolean {
  return refused.has(req);
}

/** The Content-Length header says the body is larger than `limit`. */
export function declaredTooLarge(req: IncomingMessage, limit: number): boolean {
  const declared = req.headers['content-length'];
  return declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit;
}
