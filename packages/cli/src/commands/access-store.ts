import type { AccessStore } from '@skillport/server';
import type { ExitCode } from '../main.js';

/**
 * Opens DIR/access.db for one command, runs `work` on it and closes it: the exit code is what `work` returns (0 by
 * default), or 1 with the error on one line when opening or working fails. Loads the server package (SQLite) only here.
 */
export async function withAccessStore(data: string, exit: ExitCode, work: (store: AccessStore) => number | void): Promise<void> {
  if (/^postgres(ql)?:\/\//i.test(data)) {
    // Not a folder: say so rather than create one named after the URL (ADR 0024: access data is not on PostgreSQL yet).
    process.stderr.write('skillport: error: tokens and the audit log are kept in DIR/access.db; on PostgreSQL (--data postgres://…) they are not supported yet\n');
    exit.set(2);
    return;
  }
  const { AccessStore } = await import('@skillport/server');
  let store: AccessStore | undefined;
  try {
    store = AccessStore.open(data);
    exit.set(work(store) ?? 0);
  } catch (error) {
    process.stderr.write(`skillport: error: ${(error as Error).message}\n`);
    exit.set(1);
  } finally {
    store?.close();
  }
}
