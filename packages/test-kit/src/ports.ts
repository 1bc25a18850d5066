import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (a server given it may still lose a race: retry on EADDRINUSE). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
