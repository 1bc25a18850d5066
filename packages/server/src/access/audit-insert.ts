/** One audit row, in `auditValuesOf`'s order (store.ts): the statement both SQLite connections prepare. */
export const AUDIT_INSERT =
  'INSERT INTO audit (time, principal, user, token_id, action, surface, skill, uri, version, digest, file, outcome, detail, count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS INTEGER))';
