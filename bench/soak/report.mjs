// Figures for bench/soak.mjs: reader counters summarised, memory, and the printed report.
import { percentile } from './lib.mjs';

export function summarise(stats) {
  const { latencies, samples, ...counters } = stats;
  return { ...counters, p50Ms: Number(percentile(latencies, 50).toFixed(1)), p99Ms: Number(percentile(latencies, 99).toFixed(1)), samples };
}

/** The 10 % target of issue 17: RSS after the phase (and the settle) at most this much of RSS before it. */
export const MEMORY_TARGET = 1.1;

/**
 * Memory before and after a phase, each measured by `settledMemory` (MiB): RSS as the process holds it, its ratio
 * (the target), the peak, and the probe's breakdown (live heap after a forced collection, V8's heap pages, what is
 * resident outside V8's heap) that says what holds the difference.
 */
export function memory(before, after) {
  const round = (value) => (value === undefined ? null : Math.round(value * 10) / 10);
  const ratio = (a, b) => (a && b ? Number((b / a).toFixed(2)) : null);
  const rssRatio = ratio(before.rss, after.rss);
  return {
    beforeMiB: Math.round(before.rss),
    afterMiB: Math.round(after.rss),
    ratio: rssRatio,
    withinTarget: rssRatio !== null && rssRatio <= MEMORY_TARGET,
    peakMiB: Math.round(after.peak),
    liveHeapMiB: [round(before.liveHeap), round(after.liveHeap)],
    liveHeapRatio: ratio(before.liveHeap, after.liveHeap),
    heapTotalMiB: [round(before.heapTotal), round(after.heapTotal)],
    youngMiB: [round(before.young), round(after.young)],
    outsideHeapMiB: [round(before.outsideHeap), round(after.outsideHeap)],
    rssAfterGcMiB: [round(before.rssAfterGc), round(after.rssAfterGc)],
  };
}

/** Totals across phases: the issue's targets in one place. */
export function totals(results) {
  const t = { phasesFailed: 0, requests: 0, reads: 0, mismatches: 0, status5xx: 0, crashes: 0, otherErrors: 0 };
  const visit = (value) => {
    if (!value || typeof value !== 'object') return;
    if ('mismatches' in value && 'reads' in value) {
      t.requests += value.requests;
      t.reads += value.reads;
      t.mismatches += value.mismatches;
      t.status5xx += value.status5xx;
      t.otherErrors += Object.values(value.otherErrors ?? {}).reduce((a, b) => a + b, 0);
      return;
    }
    if (value.crashed === true) t.crashes++;
    for (const child of Object.values(value)) visit(child);
  };
  visit(results.phases);
  // Hostile requests are counted apart from reads: their 5xx count too.
  t.status5xx += results.phases.hostile?.status5xx ?? 0;
  t.phasesFailed = Object.values(results.phases).filter((phase) => phase.failed).length;
  return t;
}

const mem = (m) =>
  m
    ? `RSS ${m.beforeMiB} → ${m.afterMiB} MiB (${m.ratio}x: ${m.withinTarget ? 'within' : 'NOT within'} 10 %; peak ${m.peakMiB}); live heap ${m.liveHeapMiB.join(' → ')} MiB (${m.liveHeapRatio}x), V8 heap pages ${m.heapTotalMiB.join(' → ')} (young generation ${m.youngMiB.join(' → ')}), outside V8's heap ${m.outsideHeapMiB.join(' → ')}${m.afterSecondRoundMiB ? `; after a second round of churn RSS ${m.afterSecondRoundMiB} MiB (${m.secondRoundRatio}x the first), live heap ${m.secondRoundLiveHeapMiB}` : ''}${m.afterEachRoundOfCasesMiB ? `; RSS after each of ${m.afterEachRoundOfCasesMiB.length} rounds of the hostile cases ${m.afterEachRoundOfCasesMiB.join(', ')} MiB (live heap ${m.liveHeapEachRoundMiB.join(', ')}${m.rssAfterGcEachRoundMiB ? `; RSS after a full collection ${m.rssAfterGcEachRoundMiB.map(Math.round).join(', ')}, outside V8's heap ${m.outsideHeapEachRoundMiB.join(', ')}` : ''})` : ''}`
    : '';
const reads = (r) =>
  r
    ? `${r.reads} reads (${r.verified} verified against their listing, ${r.changedDuringRead} changed during the read and matched the next listing, ${r.matchedWritten} an intermediate write), ${r.mismatches} digest mismatches, ${r.status5xx} 5xx, ${r.retryable} retryable -32011, ${r.gone} gone, ${r.transport} cut, p50/p99 ${r.p50Ms}/${r.p99Ms} ms`
    : '';

/** One line per figure, by phase; `--json` prints everything instead. */
export function printReport(results) {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const { config, phases } = results;
  const t = results.totals ?? totals(results);
  out(
    `### Soak (commit ${results.commit}, ${config.short ? 'short' : 'long'}: ${config.clients} clients, ${config.duration / 1000} s of churn, seed ${config.seed}; ${results.seconds} s in all)`,
  );
  out();
  out(`| figure | value |\n|---|---|`);
  out(
    `| totals | ${t.reads} reads, ${t.requests} requests; ${t.mismatches} digest mismatches, ${t.status5xx} 5xx, ${t.crashes} crashes, ${t.otherErrors} unexpected errors, ${t.phasesFailed} phases failed |`,
  );
  const a = phases.churn;
  if (a?.reads) {
    out(`| a. churn: reads (under load) | ${reads(a.reads)} |`);
    out(
      `| a. churn: changes | ${Object.entries(a.churn)
        .filter(([, v]) => typeof v === 'number')
        .map(([k, v]) => `${v} ${k}`)
        .join(
          ', ',
        )}; registry ${a.churn.registry.published} published, ${a.churn.registry.tagged} tagged, ${a.churn.registry.yanked} yanked, ${a.churn.registry.revoked} revoked |`,
    );
    out(
      `| a. churn: listing equal to a fresh scan | ${a.convergence.converged ? `yes, ${a.convergence.ms} ms after the churn stopped (no readers)` : `NO: ${a.convergence.difference.join('; ')}`} |`,
    );
    out(`| a. churn: memory | ${mem(a.memory)}; at start ${a.memory.atStartMiB} MiB, before the warm-up |`);
  }
  const b = phases.crash;
  if (b?.reads) {
    out(
      `| b. crash: restarts identical to a --no-cache start | ${b.identical}/${b.restarts} (${b.kills} SIGKILLs under load, then torn, garbage and one-digest-changed cache files); identical at the first listing ${b.identicalAtFirstListing}/${b.restarts}; slowest ${b.maxIdenticalMs} ms from the restart, ${b.maxIdenticalAfterStartMs} ms after its start-up line |`,
    );
    out(`| b. crash: reads | ${reads(b.reads)} |`);
    out(`| b. crash: memory (the last restarted process vs the first) | ${mem(b.memory)} |`);
  }
  const c = phases.registry;
  const fault = (f) =>
    f.skipped
      ? `skipped: ${f.skipped}`
      : `publishes ${JSON.stringify(f.publishes)}; acknowledged ${f.acknowledged}, lost ${f.lost.length}, partial ${f.partial.length}; store check ${f.storeConsistent ? 'consistent' : 'INCONSISTENT'}; temporary files after a restart ${f.tempFilesAfterRestart}${f.crashed ? '; CRASHED' : ''}`;
  if (c?.kills) {
    out(
      `| c. registry: ${c.kills.kills} SIGKILLs under 4 publishers | ${fault(c.kills)}; first acknowledged publish after each restart ${c.kills.recoveryMs.join(', ')} ms |`,
    );
    out(`| c. registry: full disk (tmpfs) | ${fault(c.diskFull)} |`);
    if (c.postgres)
      out(
        `| c. registry: PostgreSQL stopped ${c.postgres.downMs} ms | ${fault(c.postgres)}; /readyz ${c.postgres.readyzWhileDown} while down; first publish ${c.postgres.publishBackMs} ms and ready ${c.postgres.readyBackMs} ms after it returned |`,
      );
  }
  const d = phases.replicas;
  if (d?.reads) {
    out(`| d. replicas: one of 3 SIGKILLed | the others: ${reads(d.reads)}; failed ${d.killed.othersFailed}; killed one back in ${d.killed.restartMs} ms |`);
    out(
      `| d. replicas: one cut from PostgreSQL ${d.partition.cutMs} ms | /readyz ${d.partition.readyzWhileCut} while cut, served reads ${d.partition.servedWhileCut}; ${d.partition.newVersionsPublished} versions published meanwhile, caught up ${d.partition.caughtUpMs} ms after reconnecting |`,
    );
    out(`| d. replicas: memory | ${mem(d.memory)} |`);
  }
  const e = phases.hostile;
  if (e?.cases) {
    out(`| e. hostile: refused with a 4xx and one line | ${e.refusedClearly}/${e.requests}; 5xx ${e.status5xx}; alive after: ${e.aliveAfter} |`);
    for (const item of e.cases)
      out(
        `| e. ${item.name} | ${item.status} ${item.message.replace(/\|/g, '\\|')} (${item.answerBytes} bytes answered${item.bodyBytesSentBeforeAnswer > 100_000 ? `, after ${(item.bodyBytesSentBeforeAnswer / 1048576).toFixed(1)} MiB sent` : ''})${item.ok ? '' : ' **NOT OK**'} |`,
      );
    out(
      `| e. slowloris: ${e.slowloris.slowConnections} slow connections | other clients' p99 ${e.slowloris.under.p99Ms} ms vs ${e.slowloris.baseline.p99Ms} ms without (${e.slowloris.p99Ratio}x); ${e.slowloris.under.reads} reads, ${e.slowloris.under.mismatches} mismatches |`,
    );
    out(`| e. hostile: memory (cases and slowloris) | ${mem(e.memory)} |`);
    if (e.memory.afterReadersOnlyWarmUp) out(`| e. hostile: memory against a warm-up of readers only | ${mem(e.memory.afterReadersOnlyWarmUp)} |`);
    if (e.memory.slowloris) out(`| e. slowloris alone: memory | ${mem(e.memory.slowloris)} |`);
  }
  for (const [name, phase] of Object.entries(phases)) if (phase.failed) out(`| ${name} | FAILED: ${phase.failed.split('\n')[0]} |`);
}
