import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AccessStore } from '@skillport/server';
import { displayPath } from '../output.js';
import type { ExitCode } from '../kit.js';

/**
 * Opens DIR/access.db for one command, runs `work` on it and closes it: the exit code is what `work` returns (0 by
 * default), or 1 with the error on one line when opening or working fails. Loads the server package (SQLite) only here.
 */
export async function withAccessStore(data: string, exit: ExitCode, work: (store: AccessStore) => number | void, options: { create?: boolean } = {}): Promise<void> {
  if (/^postgres(ql)?:\/\//i.test(data)) {
    // Not a folder: say so rather than create one named after the URL (ADR 0024: access data is not on PostgreSQL yet).
    process.stderr.write('skillport: error: tokens and the audit log are kept in DIR/access.db; on PostgreSQL (--data postgres://…) they are not supported yet\n');
    exit.set(2);
    return;
  }
  const { AccessStore, ACCESS_DB } = await import('@skillport/server');
  let store: AccessStore | undefined;
  try {
    // Only `token create` makes the database: a mistyped --data must not leave an empty one behind and list nothing.
    if (!options.create && !existsSync(join(data, ACCESS_DB))) {
      throw new Error(`no access data at ${displayPath(data)} (no ${ACCESS_DB}): check --data, or create a token first (skillport token create --data DIR --user NAME)`);
    }
    store = AccessStore.open(data);
    exit.set(work(store) ?? 0);
  } catch (error) {
    process.stderr.write(`skillport: error: ${(error as Error).message}\n`);
    exit.set(1);
  } finally {
    store?.close();
  }
}
