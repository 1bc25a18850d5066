import type { IncomingMessage } from 'node:http';

/**
 * A request body, read whole, or undefined when it is larger than `limit` bytes (the rest is drained, not kept,
 * so the answer can still be written on the same connection). Shared by /mcp, the admin API and extra routes.
 */
export function readBodyLimited(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
