// Phase a: readers verifying every byte while the tree and the registry churn; then convergence on a fresh scan.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTree, registryChurn } from './churn.mjs';
import { difference, fingerprint, listing, log, settledMemory, sleep, startServe } from './lib.mjs';
import { addStats, startReaders } from './readers.mjs';
import { memory, summarise } from './report.mjs';

export async function phaseChurn(config, rng) {
  const tree = makeTree(config.skills, rng);
  const data = mkdtempSync(join(tmpdir(), 'skillport-soak-data-'));
  const server = await startServe([tree.root, '--data', data]);
  try {
    // Warm-up: the same kinds of work as the phase, briefly (readers, folder changes, publishes), so that what
    // any first use costs (compiled code, SQLite's page cache, modules loaded on demand) is in the baseline and
    // not counted as what the phase left behind. Its reads are verified like the phase's.
    const started = server.rss();
    const warmRegistry = registryChurn(server.base, rng, 'warm');
    const warm = startReaders(server.url, { clients: config.clients, rng, known: (uri) => tree.known(uri) ?? warmRegistry.known(uri) });
    tree.start(config.intervalMs);
    warmRegistry.start(config.intervalMs);
    await sleep(Math.min(5000, config.duration / 3));
    tree.stop();
    await warmRegistry.stop();
    const warmStats = await warm.stop();
    const before = await settledMemory(server, config.settleMs);

    log(`churn: ${config.clients} readers, a change every ${config.intervalMs} ms in the tree and in the registry, ${config.duration / 1000} s`);
    const registry = registryChurn(server.base, rng);
    const known = (uri) => tree.known(uri) ?? registry.known(uri);
    const readers = startReaders(server.url, { clients: config.clients, rng, known });
    tree.start(config.intervalMs);
    registry.start(config.intervalMs);
    await sleep(config.duration);
    tree.stop();
    await registry.stop();
    const stats = addStats(await readers.stop(), warmStats);
    const quietAt = performance.now();

    // No reader from here on: the listing must converge on the disk by itself.
    const samples = [];
    while (performance.now() - quietAt < 5000) {
      const live = await listing(server.url);
      if (live) samples.push({ at: performance.now() - quietAt, print: fingerprint(live), live });
      await sleep(100);
    }
    const fresh = await startServe([tree.root, '--data', data, '--no-watch']);
    const freshListing = await listing(fresh.url);
    await fresh.stop();
    const finalLive = await listing(server.url);
    const target = fingerprint(freshListing);
    let convergedAt;
    for (let i = samples.length - 1; i >= 0 && samples[i].print === target; i--) convergedAt = samples[i].at;
    const converged = fingerprint(finalLive) === target && convergedAt !== undefined;
    // The listing checks above and the fresh scan are light; then the same settle as before the phase.
    const after = await settledMemory(server, config.settleMs);
    // A second, shorter round of churn: memory that grows again round after round would be a leak; memory that
    // stays where the first round left it is not.
    const registry2 = registryChurn(server.base, rng, 'reg2');
    // Its publishes are known writes too (a read of a version published after the listing and superseded before
    // the next one is not a mismatch).
    const second = startReaders(server.url, { clients: config.clients, rng, known: (uri) => tree.known(uri) ?? registry2.known(uri) });
    tree.start(config.intervalMs);
    registry2.start(config.intervalMs);
    await sleep(config.duration / 2);
    tree.stop();
    await registry2.stop();
    addStats(stats, await second.stop());
    const afterSecond = await settledMemory(server, config.settleMs);
    const result = {
      reads: summarise(stats),
      churn: { ...tree.counts, registry: registry.counts, acknowledgedPublishes: registry.acknowledged.length },
      convergence: {
        converged,
        ms: convergedAt === undefined ? null : Math.round(convergedAt),
        skills: freshListing.size,
        difference: converged ? [] : difference(finalLive, freshListing),
      },
      crashed: server.crashed,
      memory: {
        ...memory(before, after),
        atStartMiB: Math.round(started.rss),
        afterSecondRoundMiB: Math.round(afterSecond.rss),
        secondRoundRatio: Number((afterSecond.rss / after.rss).toFixed(2)),
        secondRoundLiveHeapMiB: afterSecond.liveHeap,
      },
    };
    log(`   ${stats.reads} reads, ${stats.mismatches} mismatches, ${stats.status5xx} 5xx; converged ${converged} in ${result.convergence.ms} ms`);
    return result;
  } finally {
    await server.stop();
    tree.remove();
    rmSync(data, { recursive: true, force: true });
  }
}
