import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sha256Digest } from '@skillport/core';
import { RegistryError } from '../src/model.js';
import type { RegistryStore } from '../src/store.js';
import { files, newVersion } from './fixtures.js';

/**
 * The contract every RegistryStore must meet. Run it with a factory that opens a fresh, empty store
 * (`storeContract('sqlite', async () => ...)`); a PostgreSQL store runs the same suite unchanged.
 * `reopen`, when given, opens the same store again (durability across restarts).
 */
export interface StoreFactory {
  open(): Promise<{ store: RegistryStore; reopen?: () => Promise<RegistryStore>; cleanup(): Promise<void> }>;
}

export function storeContract(label: string, factory: StoreFactory): void {
  const withStore = async (work: (store: RegistryStore, reopen?: () => Promise<RegistryStore>) => Promise<void>) => {
    const opened = await factory.open();
    try {
      await work(opened.store, opened.reopen);
    } finally {
      await opened.store.close();
      await opened.cleanup();
    }
  };
  const publish = async (store: RegistryStore, name: string, version: string, content = files(name), tags: string[] = ['latest']) => {
    const { record, blobs } = newVersion(name, version, content);
    for (const [digest, bytes] of blobs) await store.putBlob(digest, bytes);
    return store.commitVersion(record, tags);
  };

  describe(`RegistryStore contract: ${label}`, () => {
    test('blobs are content-addressed: stored once, read back, refused when the bytes do not match the digest', () =>
      withStore(async (store) => {
        const bytes = Buffer.from('hello blob');
        const digest = sha256Digest(bytes);
        assert.equal(await store.hasBlob(digest), false);
        await store.putBlob(digest, bytes);
        await store.putBlob(digest, bytes);
        assert.equal(await store.hasBlob(digest), true);
        assert.deepEqual(Buffer.from(await store.readBlob(digest, bytes.byteLength)), bytes);
        await assert.rejects(store.readBlob(digest, bytes.byteLength + 1));
        await assert.rejects(store.putBlob(sha256Digest('other'), bytes));
        await assert.rejects(store.readBlob(sha256Digest('missing'), 3));
      }));

    test('commit makes a version visible with its tags; the same bytes again is "exists", other bytes "conflict"', () =>
      withStore(async (store) => {
        const first = await publish(store, 'alpha', '1.0.0');
        assert.equal(first.status, 'created');
        assert.equal(first.version.name, 'alpha');
        assert.deepEqual(
          (await store.tags('alpha')).map((t) => [t.tag, t.version]),
          [['latest', '1.0.0']],
        );
        const again = await publish(store, 'alpha', '1.0.0');
        assert.equal(again.status, 'exists');
        const other = await publish(store, 'alpha', '1.0.0', files('alpha', { 'extra.md': 'changed' }));
        assert.equal(other.status, 'conflict');
        assert.equal(other.version.packageDigest, first.version.packageDigest);
        assert.equal((await store.listVersions('alpha')).length, 1);
      }));

    test('a version whose blobs are not all stored is refused and leaves nothing behind', () =>
      withStore(async (store) => {
        const { record, blobs } = newVersion('beta', '1.0.0', files('beta', { 'ref.md': 'reference' }));
        await store.putBlob(blobs[0]![0], blobs[0]![1]);
        await assert.rejects(store.commitVersion(record, ['latest']));
        assert.equal(await store.getVersion('beta', '1.0.0'), undefined);
        assert.deepEqual(await store.tags('beta'), []);
      }));

    test('listing: names sorted, versions in publish order, records round-trip', () =>
      withStore(async (store) => {
        await publish(store, 'zeta', '1.0.0');
        await publish(store, 'alpha', '2.0.0');
        await publish(store, 'alpha', '1.0.0', files('alpha', { 'a.md': 'a' }));
        assert.deepEqual(await store.listNames(), ['alpha', 'zeta']);
        const versions = await store.listVersions('alpha');
        assert.deepEqual(
          versions.map((v) => v.version),
          ['2.0.0', '1.0.0'],
        );
        const got = await store.getVersion('alpha', '1.0.0');
        assert.equal(got?.manifest.files.length, 2);
        assert.equal(got?.review, 'unreviewed');
        assert.deepEqual(await store.listVersions('nobody'), []);
      }));

    test('tags: set, move, remove; only on live versions', () =>
      withStore(async (store) => {
        await publish(store, 'gamma', '1.0.0');
        await publish(store, 'gamma', '1.1.0', files('gamma', { 'b.md': 'b' }));
        await store.setTag('gamma', 'beta', '1.0.0');
        await store.setTag('gamma', 'beta', '1.1.0');
        assert.deepEqual(
          (await store.tags('gamma')).map((t) => [t.tag, t.version]),
          [
            ['beta', '1.1.0'],
            ['latest', '1.1.0'],
          ],
        );
        assert.equal(await store.removeTag('gamma', 'beta'), true);
        assert.equal(await store.removeTag('gamma', 'beta'), false);
        await assert.rejects(store.setTag('gamma', 'beta', '9.9.9'), (error: unknown) => error instanceof RegistryError && error.status === 404);
      }));

    test("yank removes the version's tags and moves latest to the highest live release; revoke the same, with a reason", () =>
      withStore(async (store) => {
        await publish(store, 'delta', '1.0.0');
        await publish(store, 'delta', '1.2.0', files('delta', { 'c.md': 'c' }));
        await publish(store, 'delta', '2.0.0-rc.1', files('delta', { 'd.md': 'd' }), []);
        await publish(store, 'delta', '1.1.0', files('delta', { 'e.md': 'e' }));
        await store.setTag('delta', 'stable', '1.1.0');
        const yanked = await store.yank('delta', '1.1.0', '2026-11-30T01:00:00.000Z');
        assert.equal(yanked.yankedAt, '2026-11-30T01:00:00.000Z');
        assert.deepEqual(
          (await store.tags('delta')).map((t) => [t.tag, t.version]),
          [['latest', '1.2.0']],
        );
        const revoked = await store.revoke('delta', '1.2.0', 'leaks a credential', '2026-11-30T02:00:00.000Z');
        assert.deepEqual(revoked.revoked, { at: '2026-11-30T02:00:00.000Z', reason: 'leaks a credential' });
        assert.deepEqual(
          (await store.tags('delta')).map((t) => [t.tag, t.version]),
          [['latest', '1.0.0']],
        );
        await assert.rejects(store.setTag('delta', 'x', '1.2.0'), (error: unknown) => error instanceof RegistryError && error.status === 409);
        await store.revoke('delta', '1.0.0', 'bad', '2026-11-30T03:00:00.000Z');
        // Only a prerelease is left: it becomes latest rather than leaving the skill unserved.
        assert.deepEqual(
          (await store.tags('delta')).map((t) => [t.tag, t.version]),
          [['latest', '2.0.0-rc.1']],
        );
        await assert.rejects(store.yank('delta', '3.0.0', 'x'), (error: unknown) => error instanceof RegistryError && error.status === 404);
      }));

    test('unyank lists a version again and gives latest back when it is the highest live release; never for a revoked one', () =>
      withStore(async (store) => {
        await publish(store, 'zeta', '1.0.0');
        await publish(store, 'zeta', '2.0.0', files('zeta', { 'b.md': 'b' }));
        await store.yank('zeta', '2.0.0', '2026-11-30T01:00:00.000Z');
        assert.deepEqual(
          (await store.tags('zeta')).map((t) => [t.tag, t.version]),
          [['latest', '1.0.0']],
        );
        const before = await store.revision();
        const restored = await store.unyank('zeta', '2.0.0');
        assert.equal(restored.yankedAt, undefined);
        assert.ok((await store.revision()) > before, 'an unyank is a change');
        assert.deepEqual(
          (await store.tags('zeta')).map((t) => [t.tag, t.version]),
          [['latest', '2.0.0']],
        );
        // Unyanking a lower version leaves latest where it is; unyanking a live version changes nothing.
        await store.yank('zeta', '1.0.0', '2026-11-30T02:00:00.000Z');
        await store.unyank('zeta', '1.0.0');
        assert.deepEqual(
          (await store.tags('zeta')).map((t) => [t.tag, t.version]),
          [['latest', '2.0.0']],
        );
        assert.equal((await store.unyank('zeta', '1.0.0')).yankedAt, undefined);
        await store.revoke('zeta', '1.0.0', 'bad', '2026-11-30T03:00:00.000Z');
        await assert.rejects(store.unyank('zeta', '1.0.0'), (error: unknown) => error instanceof RegistryError && error.status === 409);
        await assert.rejects(store.unyank('zeta', '9.0.0'), (error: unknown) => error instanceof RegistryError && error.status === 404);
      }));

    test('review status is recorded', () =>
      withStore(async (store) => {
        await publish(store, 'eps', '1.0.0');
        assert.equal((await store.setReview('eps', '1.0.0', 'approved')).review, 'approved');
        assert.equal((await store.getVersion('eps', '1.0.0'))?.review, 'approved');
      }));

    test('a review decision records the gate and moves tags in one step; a rejection drops its tags and re-points latest', () =>
      withStore(async (store) => {
        await publish(store, 'gated', '1.0.0');
        const gate = {
          scannedAt: '2026-12-01T00:00:00.000Z',
          counts: { low: 0, medium: 1, high: 0 },
          findings: [],
          decision: 'held' as const,
          reasons: ['r'],
          requestedTags: ['latest', 'stable'],
        };
        const { record, blobs } = newVersion('gated', '1.1.0');
        for (const [digest, bytes] of blobs) await store.putBlob(digest, bytes);
        const held = await store.commitVersion({ ...record, review: 'pending', gate }, []);
        assert.equal(held.status, 'created');
        assert.deepEqual(held.version.gate, gate);
        assert.deepEqual(await store.tags('gated'), [{ name: 'gated', tag: 'latest', version: '1.0.0' }]);
        const approved = await store.decideReview('gated', '1.1.0', 'approved', { ...gate, reviewedBy: 'lead', reviewedAt: 'now' }, ['latest', 'stable']);
        assert.equal(approved.review, 'approved');
        assert.equal(approved.gate?.reviewedBy, 'lead');
        assert.deepEqual(
          (await store.tags('gated')).map((t) => `${t.tag}=${t.version}`),
          ['latest=1.1.0', 'stable=1.1.0'],
        );
        const rejected = await store.decideReview('gated', '1.1.0', 'rejected', { ...gate, reviewReason: 'no' }, []);
        assert.equal(rejected.review, 'rejected');
        assert.deepEqual(
          (await store.tags('gated')).map((t) => `${t.tag}=${t.version}`),
          ['latest=1.0.0'],
        );
        await assert.rejects(
          store.decideReview('gated', '9.9.9', 'approved', gate, []),
          (error: unknown) => error instanceof RegistryError && error.status === 404,
        );
      }));

    test('revision grows with every change and changesSince returns exactly what changed', () =>
      withStore(async (store) => {
        const start = await store.revision();
        await publish(store, 'theta', '1.0.0');
        const afterPublish = await store.revision();
        assert.ok(afterPublish > start);
        await publish(store, 'iota', '1.0.0');
        const changes = await store.changesSince(afterPublish);
        assert.deepEqual(
          changes.versions.map((v) => v.name),
          ['iota'],
        );
        assert.deepEqual(changes.tags.map((t) => t.name).sort(), ['iota', 'theta']);
        await store.yank('theta', '1.0.0', '2026-11-30T00:00:00.000Z');
        const later = await store.changesSince(changes.revision);
        assert.deepEqual(
          later.versions.map((v) => `${v.name}@${v.version}`),
          ['theta@1.0.0'],
        );
        assert.ok(later.revision > changes.revision);
        const same = await store.changesSince(later.revision);
        assert.equal(same.versions.length, 0);
        assert.equal(same.revision, later.revision);
      }));

    test('check: consistent store, orphaned blobs reported and kept', () =>
      withStore(async (store) => {
        await publish(store, 'kappa', '1.0.0');
        const orphan = Buffer.from('written but never committed');
        await store.putBlob(sha256Digest(orphan), orphan);
        const report = await store.check({ verifyBlobs: true });
        assert.equal(report.consistent, true, report.problems.join('\n'));
        assert.equal(report.versions, 1);
        assert.deepEqual(report.orphanBlobs, [sha256Digest(orphan)]);
        assert.equal(await store.hasBlob(sha256Digest(orphan)), true);
      }));

    test('what was committed survives closing and reopening the store', async () => {
      const opened = await factory.open();
      if (opened.reopen === undefined) {
        await opened.store.close();
        await opened.cleanup();
        return;
      }
      try {
        await publish(opened.store, 'lambda', '1.0.0');
        await opened.store.close();
        const again = await opened.reopen();
        try {
          assert.equal((await again.getVersion('lambda', '1.0.0'))?.version, '1.0.0');
          assert.deepEqual(
            (await again.tags('lambda')).map((t) => t.tag),
            ['latest'],
          );
        } finally {
          await again.close();
        }
      } finally {
        await opened.cleanup();
      }
    });
  });
}
