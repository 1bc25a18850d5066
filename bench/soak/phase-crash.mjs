// Phase b: SIGKILL under load at random moments, the cache folder kept and the tree changed while the server is
// down; every restart must come to serve exactly what a --no-cache start serves. Then the cache files are damaged
// three ways (torn, garbage, one digest changed inside well-formed JSON) and each restart must still be identical.
import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTree } from './churn.mjs';
import { difference, fingerprint, listing, log, settledMemory, sleep, startServe, until } from './lib.mjs';
import { addStats, newStats, startReaders } from './readers.mjs';
import { memory, summarise } from './report.mjs';

const DAMAGE = {
  torn(path) {
    truncateSync(path, Math.floor(readFileSync(path).byteLength / 2));
  },
  garbage(path) {
    const bytes = readFileSync(path);
    for (let i = 0; i < bytes.byteLength; i += 97) bytes[i] = 0xff;
    writeFileSync(path, bytes);
  },
  // Well-formed, but one file's digest is another's: only a check of the content itself can tell.
  digest(path) {
    const text = readFileSync(path, 'utf8');
    writeFileSync(
      path,
      text.replace(/sha256:([0-9a-f])/, (_, c) => `sha256:${c === '0' ? '1' : '0'}`),
    );
  },
};

export async function phaseCrash(config, rng) {
  const tree = makeTree(config.skills, rng);
  const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-soak-cache-'));
  const stats = newStats();
  const restarts = [];
  let server = await startServe([tree.root], { cacheDir });
  let crashed = false;
  const fresh = async () => {
    const probe = await startServe([tree.root, '--no-watch']);
    const skills = await listing(probe.url);
    await probe.stop();
    return skills;
  };
  try {
    const warm = startReaders(server.url, { clients: Math.max(4, config.clients / 4), rng, known: tree.known });
    await sleep(2000);
    addStats(stats, await warm.stop());
    const before = await settledMemory(server, config.settleMs);
    const damages = Object.keys(DAMAGE);
    const total = config.kills + damages.length;
    for (let i = 0; i < total; i++) {
      const damage = i >= config.kills ? damages[i - config.kills] : undefined;
      const readers = startReaders(server.url, { clients: Math.max(4, config.clients / 4), rng, known: tree.known });
      await sleep(300 + rng.int(1500));
      await server.kill();
      const during = await readers.stop();
      // Reads cut by the kill are transport errors, expected here; everything that answered is verified.
      addStats(stats, { ...during, transport: 0 });
      // Changed while down: the persisted catalog is now stale.
      tree.step();
      tree.step();
      let damaged = [];
      if (damage) {
        // The catalog's base and its journal of changes (catalog-….json.log) alike.
        damaged = readdirSync(cacheDir).filter((name) => name.endsWith('.json') || name.endsWith('.json.log'));
        for (const name of damaged) DAMAGE[damage](join(cacheDir, name));
      }
      const expected = fingerprint(await fresh());
      const restartAt = performance.now();
      server = await startServe([tree.root], { cacheDir });
      const first = await listing(server.url);
      const firstAt = performance.now() - restartAt;
      const same = await until(async () => {
        const now = await listing(server.url);
        return now && fingerprint(now) === expected ? performance.now() - restartAt : undefined;
      }, 10_000);
      const identical = same !== undefined;
      // Reads after the restart verify too.
      const after = startReaders(server.url, { clients: 4, rng, known: tree.known });
      await sleep(500);
      addStats(stats, await after.stop());
      restarts.push({
        damage: damage ?? 'none',
        damagedFiles: damaged.length,
        startMs: Math.round(server.startMs),
        identicalAtFirstListing: first !== undefined && fingerprint(first) === expected,
        firstListingMs: Math.round(firstAt),
        identical,
        identicalMs: identical ? Math.round(same) : null,
        difference: identical
          ? []
          : difference(await listing(server.url), new Map(expected.split('\n').map((line) => [line.split(' ')[0], { digest: line.split(' ')[1] }]))),
      });
      log(`   restart ${i + 1}/${total}${damage ? ` (cache ${damage})` : ''}: identical ${identical} after ${restarts.at(-1).identicalMs} ms`);
      if (server.crashed) crashed = true;
    }
    // The last restarted process (after its readers) against the first: a restart from the cache folder must not
    // cost more than the cold start did.
    const after = await settledMemory(server, config.settleMs);
    return {
      reads: summarise(stats),
      kills: config.kills,
      restarts: restarts.length,
      identical: restarts.filter((r) => r.identical).length,
      identicalAtFirstListing: restarts.filter((r) => r.identicalAtFirstListing).length,
      maxIdenticalMs: Math.max(...restarts.map((r) => r.identicalMs ?? Infinity)),
      // From the start-up line (serving) to a listing identical to a fresh scan: the background check's share.
      maxIdenticalAfterStartMs: Math.max(...restarts.map((r) => (r.identicalMs ?? Infinity) - r.startMs)),
      details: restarts,
      crashed,
      memory: memory(before, after),
    };
  } finally {
    await server.stop();
    tree.remove();
    rmSync(cacheDir, { recursive: true, force: true });
  }
}
