import type { IncomingMessage } from 'node:http';

/**
 * A request body, read whole, or undefined when it is larger than `limit` bytes. An over-long body is refused on its
 * Content-Length header before a byte of it is read, or (chunked) as soon as the limit is passed: the caller answers
 * 413 at once. What the client still sends is discarded, not kept, so that a client still uploading can read the
 * answer; past twice the limit the connection is cut (discardRest). Shared by /mcp, the admin API and extra routes.
 */
export function readBodyLimited(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  if (declaredTooLarge(req, limit)) {
    discardRest(req, limit);
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
      // Past the limit: answered now, nothing more kept.
      req.off('data', onData);
      req.off('end', onEnd);
      chunks.length = 0;
      discardRest(req, limit, size);
      resolve(undefined);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

/**
 * Reads and drops the rest of a refused body, so the connection stays usable for the answer; a client that goes on
 * sending past twice the limit is cut off (a 100 MB upload costs the server at most that, never its whole size).
 */
export function discardRest(req: IncomingMessage, limit: number, seen = 0): void {
  let discarded = seen;
  const cap = 2 * limit;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > cap) req.socket.destroy();
  });
  req.resume();
}

/** The Content-Length header says the body is larger than `limit`. */
export function declaredTooLarge(req: IncomingMessage, limit: number): boolean {
  const declared = req.headers['content-length'];
  return declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit;
}
