import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AccessStore } from '@skillport/server';
import { displayPath } from '../output.js';
import type { ExitCode } from '../kit.js';

export const isPostgresData = (data: string): boolean => /^postgres(ql)?:\/\//i.test(data);

/**
 * Opens the access data of `--data` for one command (DIR/access.db, or the tables of a PostgreSQL database), runs
 * `work` on it and closes it: the exit code is what `work` returns (0 by default), or 1 with the error on one line
 * when opening or working fails. Loads SQLite (or the registry package and `pg`, for a URL) only here.
 */
export async function withAccessStore(
  data: string,
  exit: ExitCode,
  work: (store: AccessStore) => Promise<number | void>,
  options: { create?: boolean } = {},
): Promise<void> {
  let store: AccessStore | undefined;
  try {
    if (isPostgresData(data)) {
      const { openAccessStore } = await import('@skillport/registry');
      store = await openAccessStore(data);
    } else {
      const { SqliteAccessStore, ACCESS_DB } = await import('@skillport/server');
      // Only `token create` makes the database: a mistyped --data must not leave an empty one behind and list nothing.
      if (!options.create && !existsSync(join(data, ACCESS_DB))) {
        throw new Error(
          `no access data at ${displayPath(data)} (no ${ACCESS_DB}): check --data, or create a token first (skillport token create --data DIR --user NAME)`,
        );
      }
      store = SqliteAccessStore.open(data);
    }
    exit.set((await work(store)) ?? 0);
  } catch (error) {
    process.stderr.write(`skillport: error: ${(error as Error).message}\n`);
    exit.set(1);
  } finally {
    await store?.close().catch(() => undefined);
  }
}
