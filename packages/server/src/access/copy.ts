import type { AccessStore } from './store.js';

/**
 * Copies access data from one store into another (`skillport store copy --from DIR --to postgres://…`): every
 * token as it is (its hash, scopes, expiry and revocation: the same secrets keep working), the stored policy when
 * the target has none, and the audit log when the target's is empty (a second copy must not double it; a target
 * that already holds events is reported and its log left alone). Idempotent: tokens already there are skipped.
 */
export interface AccessCopyResult {
  tokens: { copied: number; existing: number };
  audit: { copied: number; skipped?: string };
  policy: 'copied' | 'kept' | 'none';
}

const PAGE = 5000;

export async function copyAccess(from: AccessStore, to: AccessStore, options: { onProgress?: (line: string) => void } = {}): Promise<AccessCopyResult> {
  const result: AccessCopyResult = { tokens: { copied: 0, existing: 0 }, audit: { copied: 0 }, policy: 'none' };
  for (const entry of await from.tokenEntries()) {
    if (await to.importToken(entry)) result.tokens.copied++;
    else result.tokens.existing++;
  }
  const policy = await from.policy();
  if (policy !== undefined) {
    if ((await to.policy()) === undefined) {
      await to.savePolicy(policy.text, policy.sourceDigest);
      result.policy = 'copied';
    } else result.policy = 'kept';
  }
  if ((await to.auditAfter(0, 1)).length > 0) {
    result.audit.skipped = 'the target already holds audit events; its log was left alone';
    return result;
  }
  for (let position = 0; ; ) {
    const page = await from.auditAfter(position, PAGE);
    if (page.length === 0) break;
    await to.appendAudit(page.map((row) => row.event));
    result.audit.copied += page.length;
    position = page.at(-1)!.position;
    options.onProgress?.(`copying the audit log: ${result.audit.copied} events`);
  }
  return result;
}
