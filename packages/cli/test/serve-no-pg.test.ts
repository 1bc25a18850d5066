import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXAMPLES, runCli, startHttp } from '@skillport/test-kit';
import { storeDir } from '@skillport/test-kit';

// The embedded default needs no database driver: `serve --data DIR` never loads `pg`; a postgres:// URL does.
const trace = { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${new URL('./load-trace.js', import.meta.url).href}`.trim() };

test('serve with folders and --data DIR does not load the PostgreSQL driver; a postgres:// URL does', { timeout: 120_000 }, async () => {
  const server = await startHttp(['--data', storeDir(), EXAMPLES], trace);
  await server.stop();
  assert.doesNotMatch(server.stderr(), /trace: loaded pg/);
  // The control: the same trace sees the driver when a URL is given (nothing listens on port 1: a clear error).
  const check = await runCli(['store', 'check', '--data', 'postgres://nobody@127.0.0.1:1/none'], trace);
  assert.match(check.stderr, /trace: loaded pg/);
  assert.equal(check.code, 1);
  assert.match(check.stderr, /registry database is unreachable/);
});
