import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { AUDIT_INSERT, AUDIT_WRITES_TABLE } from './audit-insert.js';

/**
 * The audit trail's inserts on a connection of their own (audit-writer.ts): a batch of rows is one transaction here,
 * off the main thread, and the answer says it committed (or why not). Messages are taken in order, so `close` comes
 * after every batch sent before it.
 */
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const { location, writer, exitAfterCommit } = workerData as { location: string; writer: string; exitAfterCommit?: number };
const db = new Database(location, { timeout: 5000 });
db.pragma('synchronous = NORMAL');
// Appends touch the right-hand edges of the audit's b-trees only.
db.pragma('cache_size = -512');
db.exec(AUDIT_WRITES_TABLE);
const insert = db.prepare(AUDIT_INSERT);
const mark = db.prepare('INSERT INTO audit_writes (writer, seq) VALUES (?, ?) ON CONFLICT (writer) DO UPDATE SET seq = excluded.seq');
// The batch's number is committed with its rows: if this thread dies before its answer arrives, the main thread
// finds the batch written and does not write it again.
const insertAll = db.transaction((seq: number, rows: unknown[][]) => {
  for (const row of rows) insert.run(...row);
  mark.run(writer, seq);
});

parentPort!.on('message', (message: { seq: number; rows: unknown[][] } | { close: true }) => {
  if ('close' in message) {
    db.prepare('DELETE FROM audit_writes WHERE writer = ?').run(writer);
    db.close();
    parentPort!.close();
    return;
  }
  try {
    insertAll(message.seq, message.rows);
    if (message.seq === exitAfterCommit) process.exit(1); // a test's: the thread dies between commit and answer
    parentPort!.postMessage({ seq: message.seq });
  } catch (error) {
    parentPort!.postMessage({ seq: message.seq, error: (error as Error).message });
  }
});
