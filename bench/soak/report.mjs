// Figures for bench/soak.mjs: reader counters summarised, memory, and the printed report.
import { percentile } from './lib.mjs';

export function summarise(stats) {
  const { latencies, samples, ...counters } = stats;
  return { ...counters, p50Ms: Number(percentile(latencies, 50).toFixed(1)), p99Ms: Number(percentile(latencies, 99).toFixed(1)), samples };
}

/** RSS before a phase (after its warm-up), the process's peak, and after it (MiB); `ratio` after / before. */
export function memory(before, after) {
  return { beforeMiB: Math.round(before.rss), peakMiB: Math.round(after.peak), afterMiB: Math.round(after.rss), ratio: before.rss ? Number((after.rss / before.rss).toFixed(2)) : null };
}

/** Totals across phases: the targets in one place. */
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

export function printReport(results) {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const { config } = results;
  out(`### Soak (commit ${results.commit}, ${config.short ? 'short' : 'long'}: ${config.clients} clients, ${config.duration / 1000} s churn, seed ${config.seed}, ${results.seconds} s in all)`);
  out();
  const t = totals(results);
  out(`requests ${t.requests}, reads ${t.reads}, digest mismatches ${t.mismatches}, 5xx ${t.status5xx}, crashes ${t.crashes}, unexpected errors ${t.otherErrors}`);
  for (const [name, phase] of Object.entries(results.phases)) {
    out();
    out(`#### ${name} (${phase.seconds} s)`);
    out('```');
    out(JSON.stringify(phase, (key, value) => (key === 'seconds' ? undefined : value), 1).replace(/\n\s*/g, ' ').replace(/(.{1,150})(\s|$)/g, '$1\n').trimEnd());
    out('```');
  }
}
