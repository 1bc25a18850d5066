/**
 * Test-only: loaded with `node --import` into a real `skillport serve` process by registry-crash.test.ts, never by
 * the product. With SKILLPORT_CRASH_PAUSE_AT=<point> (`after-blob-N`, `before-commit`, `after-commit`) it gives
 * each RegistryService the `pause` hook its constructor takes, so that a publish reaching that point prints
 * `skillport: test pause at <point>` on stderr and waits for ever: the test SIGKILLs the process exactly there.
 * The same module instance is shared with the CLI (both resolve @skillport/registry to the same file).
 * `blob-rename` pauses inside a blob write, after its temporary file is written and fsynced and before it is renamed
 * into place (fs/promises' rename is wrapped and the built-in ESM exports re-synced, so blob-dir.ts's import sees it):
 * a kill there leaves the temporary file a real crash leaves.
 * `pg-blob-chunk` pauses a PostgreSQL blob write inside its transaction (before its first chunk row), so the
 * connection is checked out of the pool when the test stops the database.
 */
import fsPromises from 'node:fs/promises';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { RegistryService } from '../src/index.js';

const wanted = process.env['SKILLPORT_CRASH_PAUSE_AT'];
if (wanted === 'pg-blob-chunk') {
  // The same `pg` the registry loads (one copy in node_modules), patched before any connection exists.
  const pg = createRequire(import.meta.url)('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    if (typeof args[0] === 'string' && args[0].startsWith('INSERT INTO blob_chunks')) {
      process.stderr.write('skillport: test pause at pg-blob-chunk\n');
      return new Promise<never>(() => {});
    }
    return query.apply(this, args);
  };
} else if (wanted === 'blob-rename') {
  const rename = fsPromises.rename;
  fsPromises.rename = async (from, to) => {
    if (String(from).includes('/blobs/tmp/')) {
      process.stderr.write('skillport: test pause at blob-rename\n');
      await new Promise<never>(() => {});
    }
    return rename(from, to);
  };
  syncBuiltinESMExports();
} else if (wanted !== undefined && wanted !== '') {
  const publish = RegistryService.prototype.publish;
  RegistryService.prototype.publish = function (this: RegistryService, ...args: Parameters<RegistryService['publish']>) {
    (this.options as { pause?: (point: string) => Promise<void> }).pause ??= async (point) => {
      if (point !== wanted) return;
      process.stderr.write(`skillport: test pause at ${point}\n`);
      await new Promise<never>(() => {});
    };
    return publish.apply(this, args);
  };
}
