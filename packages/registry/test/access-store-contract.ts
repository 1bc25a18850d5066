import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TokenCache, copyAccess } from '@skillport/server';
import type { AccessChange, AccessStore, AuditEvent } from '@skillport/server';

/**
 * The contract every access store keeps (tokens, audit, policy, change feed), run unchanged against SQLite
 * (DIR/access.db) and PostgreSQL (access-store.test.ts). `reopen` opens a second handle on the same data: another
 * process, or another replica.
 */
export interface OpenedAccessStore {
  store: AccessStore;
  reopen: () => Promise<AccessStore>;
  cleanup: () => Promise<void>;
}

export function accessStoreContract(engine: string, open: () => Promise<OpenedAccessStore>): void {
  describe(`access store contract: ${engine}`, () => {
    async function using(work: (opened: OpenedAccessStore) => Promise<void>): Promise<void> {
      const opened = await open();
      try {
        await work(opened);
      } finally {
        await opened.store.close();
        await opened.cleanup();
      }
    }

    test('a token is created, listed, checked, revoked once; only its hash is kept', () =>
      using(async ({ store }) => {
        const { token, record } = await store.createToken({ user: 'alice', orgs: ['acme', 'acme'], scopes: ['read', 'publish'], description: 'ci' });
        assert.match(token, /^skp_[0-9a-f]{12}_/);
        assert.deepEqual(record.orgs, ['acme']);
        assert.deepEqual(await store.token(record.id), record);
        assert.deepEqual(await store.listTokens(), [record]);
        const entry = (await store.tokenEntry(record.id))!;
        assert.notEqual(entry.hash, token);
        assert.equal(JSON.stringify(await store.tokenEntries()).includes(token), false);
        const cache = new TokenCache(store);
        const checked = await cache.check(token);
        assert.ok('principal' in checked);
        assert.equal(checked.principal.user, 'alice');
        assert.deepEqual([...checked.principal.scopes].sort(), ['publish', 'read']);
        // The same principal object while the record is unchanged (per-principal state is keyed on it).
        assert.equal(((await cache.check(token)) as { principal: unknown }).principal, checked.principal);
        assert.deepEqual(await cache.check(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`), { error: 'invalid' });
        assert.deepEqual(await cache.check('skp_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), { error: 'invalid' });
        assert.deepEqual(await cache.check('not a token'), { error: 'invalid' });
        assert.equal(await store.revokeToken(record.id), true);
        assert.equal(await store.revokeToken(record.id), false);
        assert.equal(await store.revokeToken('ffffffffffff'), false);
        assert.ok((await store.token(record.id))!.revokedAt);
        cache.invalidate(record.id);
        assert.deepEqual(await cache.check(token), { error: 'revoked' });
        assert.equal(await new TokenCache(store).stillValid(record.id), false);
      }));

    test('expiry is honoured from the clock, without any change in the store; bad fields are refused', () =>
      using(async ({ store }) => {
        const soon = new Date(Date.now() + 60_000);
        const { token, record } = await store.createToken({ user: 'bob', expiresAt: soon });
        const cache = new TokenCache(store);
        assert.ok('principal' in (await cache.check(token)));
        assert.deepEqual(await cache.check(token, soon.getTime() + 1), { error: 'expired' });
        assert.equal(await cache.stillValid(record.id, soon.getTime() + 1), false);
        await assert.rejects(store.createToken({ user: 'carol', scopes: ['root' as 'read'] }), /scope "root"/);
        await assert.rejects(store.createToken({ user: 'has space' }));
        assert.equal((await store.listTokens()).length, 1);
      }));

    test('audit events are appended in batches and queried by time, user and skill (name or URI), latest first cut, oldest first shown', () =>
      using(async ({ store }) => {
        const event = (minute: number, user: string, skill: string, extra: Partial<AuditEvent> = {}): AuditEvent => ({
          time: `2026-11-30T10:${String(minute).padStart(2, '0')}:00.000Z`,
          principal: `user:${user}`,
          user,
          action: 'read',
          surface: 'resources/read',
          skill,
          uri: `skill://${skill}/SKILL.md`,
          outcome: 'ok',
          ...extra,
        });
        assert.deepEqual(await store.queryAudit(), []);
        await store.appendAudit([
          event(1, 'alice', 'pdf', { tokenId: 'abcdefabcdef', version: '1.0.0', digest: 'sha256:00', file: 'SKILL.md', detail: 'x' }),
          event(2, 'bob', 'pdf'),
          event(3, 'alice', 'csv', { action: 'activate', outcome: 'not_found' }),
        ]);
        await store.appendAudit([event(4, 'alice', 'pdf')]);
        await store.appendAudit([]);
        const all = await store.queryAudit();
        assert.deepEqual(
          all.map((e) => e.time.slice(14, 16)),
          ['01', '02', '03', '04'],
        );
        assert.deepEqual(all[0], event(1, 'alice', 'pdf', { tokenId: 'abcdefabcdef', version: '1.0.0', digest: 'sha256:00', file: 'SKILL.md', detail: 'x' }));
        assert.equal(all[1]!.tokenId, undefined);
        assert.deepEqual(
          (await store.queryAudit({ user: 'alice' })).map((e) => e.time.slice(14, 16)),
          ['01', '03', '04'],
        );
        assert.deepEqual(
          (await store.queryAudit({ skill: 'pdf' })).map((e) => e.time.slice(14, 16)),
          ['01', '02', '04'],
        );
        assert.deepEqual(
          (await store.queryAudit({ skill: 'skill://csv/SKILL.md' })).map((e) => e.action),
          ['activate'],
        );
        assert.deepEqual(
          (await store.queryAudit({ since: '2026-11-30T10:02:00.000Z', user: 'alice' })).map((e) => e.time.slice(14, 16)),
          ['03', '04'],
        );
        assert.deepEqual(
          (await store.queryAudit({ limit: 2 })).map((e) => e.time.slice(14, 16)),
          ['03', '04'],
        );
        assert.deepEqual(await store.queryAudit({ user: 'nobody' }), []);
        const first = await store.auditAfter(0, 3);
        assert.equal(first.length, 3);
        const rest = await store.auditAfter(first.at(-1)!.position, 3);
        assert.deepEqual(
          rest.map((row) => row.event.time.slice(14, 16)),
          ['04'],
        );
      }));

    test('audit rows carry a count (repeats folded into one row), are pruned before a time in batches, and the log has a size', () =>
      using(async ({ store }) => {
        const at = (day: number, extra: Partial<AuditEvent> = {}): AuditEvent => ({
          time: `2026-11-${String(day).padStart(2, '0')}T10:00:00.000Z`,
          principal: 'user:mallory',
          user: 'mallory',
          action: 'read',
          surface: 'resources/read',
          skill: 'skill://nothing/SKILL.md',
          outcome: 'not_found',
          ...extra,
        });
        await store.appendAudit([at(1, { count: 250 }), at(2), at(3, { count: 1 }), ...Array.from({ length: 7 }, () => at(10)), at(20, { count: 3 })]);
        const all = await store.queryAudit();
        assert.deepEqual(
          all.map((event) => event.count),
          [250, undefined, undefined, ...Array(7).fill(undefined), 3],
        );
        const sizeBefore = await store.auditBytes();
        assert.ok(sizeBefore > 0, `${sizeBefore}`);
        // Pruned in batches of at most `limit` rows, oldest first: 10 rows are before the 15th, 3 at a time.
        const deleted: number[] = [];
        for (let n = await store.pruneAudit('2026-11-15T00:00:00.000Z', 3); n > 0; n = await store.pruneAudit('2026-11-15T00:00:00.000Z', 3)) deleted.push(n);
        assert.deepEqual(deleted, [3, 3, 3, 1]);
        assert.deepEqual(
          (await store.queryAudit()).map((event) => [event.time.slice(8, 10), event.count]),
          [['20', 3]],
        );
        assert.equal(await store.pruneAudit('2026-11-15T00:00:00.000Z', 3), 0);
      }));

    test('the policy text is stored whole, with the digest of the file it came from', () =>
      using(async ({ store }) => {
        assert.equal(await store.policy(), undefined);
        await store.savePolicy('default: public\n', 'sha256:aa');
        assert.deepEqual({ ...(await store.policy())!, updatedAt: '' }, { text: 'default: public\n', sourceDigest: 'sha256:aa', updatedAt: '' });
        await store.savePolicy('default: none\n');
        const stored = (await store.policy())!;
        assert.equal(stored.text, 'default: none\n');
        assert.equal(stored.sourceDigest, undefined);
      }));

    test('a revocation and a policy edit made through another handle are told to watchers; the cache then refuses the token', () =>
      using(async ({ store, reopen }) => {
        const { token, record } = await store.createToken({ user: 'dora' });
        const cache = new TokenCache(store);
        assert.ok('principal' in (await cache.check(token)));
        const changes: AccessChange[] = [];
        const stop = store.watch((change) => {
          changes.push(change);
          if (change.kind === 'token') cache.invalidate(change.id);
          if (change.kind === 'all') cache.invalidateAll();
        });
        const other = await reopen();
        try {
          assert.equal(await other.revokeToken(record.id), true);
          await waitFor(() => changes.some((change) => (change.kind === 'token' && change.id === record.id) || change.kind === 'all'), 'the revocation');
          assert.deepEqual(await cache.check(token), { error: 'revoked' });
          changes.length = 0;
          await other.savePolicy('default: none\n');
          await waitFor(() => changes.some((change) => change.kind === 'policy' || change.kind === 'all'), 'the policy edit');
          assert.equal((await store.policy())!.text, 'default: none\n');
        } finally {
          stop();
          await other.close();
        }
      }));

    test('copyAccess moves tokens (same secrets), the policy and the audit log; a second copy adds nothing', () =>
      using(async ({ store }) => {
        const target = await open();
        try {
          const { token } = await store.createToken({ user: 'erin', scopes: ['admin'] });
          const revoked = await store.createToken({ user: 'finn' });
          await store.revokeToken(revoked.record.id);
          await store.savePolicy('default: public\n');
          await store.appendAudit([
            {
              time: '2026-11-30T10:00:00.000Z',
              principal: 'user:erin',
              user: 'erin',
              action: 'activate',
              surface: 'activate_skill',
              skill: 'pdf',
              outcome: 'ok',
            },
          ]);
          const first = await copyAccess(store, target.store);
          assert.deepEqual(first, { tokens: { copied: 2, existing: 0 }, audit: { copied: 1 }, policy: 'copied' });
          const cache = new TokenCache(target.store);
          assert.equal(((await cache.check(token)) as { principal: { user: string } }).principal.user, 'erin');
          assert.deepEqual(await cache.check(revoked.token), { error: 'revoked' });
          assert.equal((await target.store.policy())!.text, 'default: public\n');
          const again = await copyAccess(store, target.store);
          assert.deepEqual(again.tokens, { copied: 0, existing: 2 });
          assert.equal(again.audit.copied, 0);
          assert.match(again.audit.skipped ?? '', /already holds/);
          assert.equal(again.policy, 'kept');
          assert.equal((await target.store.queryAudit()).length, 1);
        } finally {
          await target.store.close();
          await target.cleanup();
        }
      }));
  });
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
