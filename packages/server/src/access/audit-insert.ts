/** One audit row, in `auditValuesOf`'s order (store.ts): the statement both SQLite connections prepare. */
export const AUDIT_INSERT =
  'INSERT INTO audit (time, principal, user, token_id, action, surface, skill, uri, version, digest, file, outcome, detail, count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS INTEGER))';

/**
 * The last batch each audit writer thread committed (audit-worker.ts), by writer: batches commit in the order sent,
 * so a batch numbered at most that was written. A row is removed when its writer closes. Not in the schema version:
 * an older skillport opening the file ignores the table.
 */
export const AUDIT_WRITES_TABLE = 'CREATE TABLE IF NOT EXISTS audit_writes (writer TEXT PRIMARY KEY, seq INTEGER NOT NULL)';
