#!/usr/bin/env node
// bench/hostile-memory: which hostile HTTP case leaves memory behind in the server, and whether it grows round after
// round (a leak) or levels off (the allocator keeping freed memory). The cases of the soak's phase e
// (bench/soak/phase-hostile.mjs), one case or a few at a time, `--rounds` times against one `skillport serve --http`
// of the bundled examples (with a registry, for the upload case); after every `--every` rounds and `--settle` seconds
// without requests, the server's RSS and, from the soak's probe (bench/soak/memprobe.cjs), memory outside V8's heap,
// the live heap after a full collection, arrayBuffers, external, and the handles the event loop holds (sockets,
// timers) and open file descriptors. `slowloris` is a case too: the soak's slow connections (1000 by default, each
// trickling a header line a second) held for `--slow-seconds`, then closed.
// Usage: node bench/hostile-memory.mjs [--case <text>[,<text>...]] [--each] [--rounds 10] [--every 5] [--settle 20]
//        [--slow 1000] [--slow-seconds 10] [--list] [--json]
//   --case: the cases whose name contains one of the texts (case-insensitive; default every case);
//   --each: each selected case on a server of its own, one after the other (default: all selected cases in each round).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { options, measuredCommit } from './args.mjs';
import { repo, rss, sleep, startServe, log, seeded } from './soak/lib.mjs';
import { startReaders } from './soak/readers.mjs';
import { cases, slowConnections } from './soak/phase-hostile.mjs';

const flags = options();
const rounds = Number(flags.value('rounds', '10'));
const every = Math.max(1, Number(flags.value('every', '5')));
const settleMs = Number(flags.value('settle', '20')) * 1000;
const wanted = flags
  .value('case', '')
  .split(',')
  .map((text) => text.trim().toLowerCase())
  .filter(Boolean);
const slow = Number(flags.value('slow', '1000'));
const slowMs = Number(flags.value('slow-seconds', '10')) * 1000;
const SLOWLORIS = `slowloris (${slow} slow connections, ${slowMs / 1000} s)`;
/** The soak's cases, and slowloris: each [name, send(port, rng)] resolving with an HTTP status (0 when none). */
const allCases = (port) => [
  ...cases(port).map(([name, send]) => [name, async () => (await send()).status]),
  [
    SLOWLORIS,
    async (rng) => {
      const connections = slowConnections(port, slow, rng);
      await sleep(slowMs);
      connections.stop();
      return 0;
    },
  ],
];
const names = allCases(0).map(([name]) => name);
const selected = names.filter((name) => wanted.length === 0 || wanted.some((text) => name.toLowerCase().includes(text)));
if (flags.flag('list')) {
  for (const name of names) process.stdout.write(`${name}\n`);
  process.exit(0);
}
if (selected.length === 0) {
  log(`no case matches ${JSON.stringify(wanted)}; --list names them`);
  process.exit(2);
}

/** Memory after `settleMs` without requests: RSS as it is first (the target's figure), then the probe. */
async function measure(server, round) {
  await sleep(settleMs);
  const resident = rss(server.pid);
  const probed = await server.probe();
  const a = probed?.afterGc ?? {};
  return {
    round,
    rss: Math.round(resident.rss * 10) / 10,
    outsideHeap: a.outsideHeap,
    liveHeap: a.heapUsed,
    heapTotal: probed?.asIs.heapTotal,
    // Full collections since the last measurement (the idle collector's are forced): count, forced, seconds ago.
    majors: probed?.asIs.majorCollections,
    young: probed?.asIs.spaces?.new_space?.[0],
    // As the process holds them (garbage not yet collected included), then after the probe's full collection.
    arrayBuffersAsIs: probed?.asIs.arrayBuffers,
    arrayBuffers: a.arrayBuffers,
    external: a.external,
    rssAfterGc: a.rss,
    rssAnon: a.rssAnon,
    fds: a.fds,
    resources: a.resources,
  };
}

async function run(caseNames) {
  const rng = seeded(17017);
  const data = mkdtempSync(join(tmpdir(), 'skillport-hostile-memory-'));
  const server = await startServe([join(repo, 'examples/skills'), '--data', data]);
  try {
    const port = Number(new URL(server.url).port);
    const chosen = allCases(port).filter(([name]) => caseNames.includes(name));
    // Warm-up as the soak's phase e does: readers for 2 s, so that first use is in the baseline.
    const warm = startReaders(server.url, { clients: 8, rng });
    await sleep(2000);
    await warm.stop();
    const rows = [await measure(server, 0)];
    log(`  ${caseNames.join(' + ')}: baseline RSS ${rows[0].rss} MiB`);
    const statuses = new Set();
    for (let round = 1; round <= rounds; round++) {
      for (const [, send] of chosen) statuses.add(await send(rng));
      if (round % every === 0 || round === rounds) {
        rows.push(await measure(server, round));
        const last = rows.at(-1);
        log(
          `  round ${round}: RSS ${last.rss} MiB (${last.rssAfterGc} after a full collection; full collections since the last figure ${JSON.stringify(last.majors)}), outside V8's heap ${last.outsideHeap}, live heap ${last.liveHeap}, arrayBuffers ${last.arrayBuffersAsIs} → ${last.arrayBuffers}`,
        );
      }
    }
    return { cases: caseNames, statuses: [...statuses], crashed: server.crashed, rows };
  } finally {
    await server.stop();
    rmSync(data, { recursive: true, force: true });
  }
}

const started = performance.now();
const groups = flags.flag('each') ? selected.map((name) => [name]) : [selected];
const results = [];
for (const group of groups) results.push(await run(group));
const report = { commit: measuredCommit(), rounds, every, settleSeconds: settleMs / 1000, seconds: Math.round((performance.now() - started) / 1000), results };

if (flags.flag('json')) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  process.stdout.write(`hostile cases and memory, commit ${report.commit}, ${rounds} rounds, settle ${settleMs / 1000} s, ${report.seconds} s\n`);
  for (const result of results) {
    process.stdout.write(
      `\n${result.cases.length === names.length ? 'every case' : result.cases.join(' + ')} (answered ${result.statuses.join(', ')}${result.crashed ? '; CRASHED' : ''})\n`,
    );
    process.stdout.write('round  RSS MiB  V8 heap (young)  outside V8  live heap  arrayBuffers  external  RSS after GC  fds  handles\n');
    for (const row of result.rows) {
      const handles = Object.entries(row.resources ?? {})
        .map(([kind, count]) => `${kind} ${count}`)
        .join(', ');
      process.stdout.write(
        `${String(row.round).padStart(5)}  ${String(row.rss).padStart(7)}  ${`${row.heapTotal} (${row.young})`.padStart(15)}  ${String(row.outsideHeap).padStart(10)}  ${String(row.liveHeap).padStart(9)}  ${`${row.arrayBuffersAsIs} → ${row.arrayBuffers}`.padStart(12)}  ${String(row.external).padStart(8)}  ${String(row.rssAfterGc).padStart(12)}  ${String(row.fds).padStart(3)}  ${handles}\n`,
      );
    }
    const [first, last] = [result.rows[0], result.rows.at(-1)];
    process.stdout.write(
      `after / before: RSS ${(last.rss / first.rss).toFixed(2)}x, outside V8's heap ${(last.outsideHeap - first.outsideHeap).toFixed(1)} MiB more\n`,
    );
  }
}
