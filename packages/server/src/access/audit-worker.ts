import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { AUDIT_INSERT } from './audit-insert.js';

/**
 * The audit trail's inserts on a connection of their own (audit-writer.ts): a batch of rows is one transaction here,
 * off the main thread, and the answer says it committed (or why not). Messages are taken in order, so `close` comes
 * after every batch sent before it.
 */
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const db = new Database((workerData as { location: string }).location, { timeout: 5000 });
db.pragma('synchronous = NORMAL');
// Appends touch the right-hand edges of the audit's b-trees only.
db.pragma('cache_size = -512');
const insert = db.prepare(AUDIT_INSERT);
const insertAll = db.transaction((rows: unknown[][]) => {
  for (const row of rows) insert.run(...row);
});

parentPort!.on('message', (message: { seq: number; rows: unknown[][] } | { close: true }) => {
  if ('close' in message) {
    db.close();
    parentPort!.close();
    return;
  }
  try {
    insertAll(message.rows);
    parentPort!.postMessage({ seq: message.seq });
  } catch (error) {
    parentPort!.postMessage({ seq: message.seq, error: (error as Error).message });
  }
});
