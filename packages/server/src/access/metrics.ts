/**
 * Counters and a latency histogram for `GET /metrics`, in the Prometheus text exposition format (0.0.4). Labels
 * never carry skill names, users or URIs: the figures are safe to show any operator, and their cardinality is fixed.
 */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const METHODS = new Set([
  'initialize',
  'server/discover',
  'skills/list',
  'skills/get',
  'resources/read',
  'resources/list',
  'resources/directory/read',
  'resources/templates/list',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'subscriptions/listen',
  'ping',
]);

class Histogram {
  readonly counts = new Array<number>(BUCKETS.length).fill(0);
  sum = 0;
  count = 0;
  observe(seconds: number): void {
    this.sum += seconds;
    this.count++;
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) this.counts[i]!++;
  }
}

export class Metrics {
  readonly #activations = new Map<string, number>();
  readonly #reads = new Map<string, number>();
  readonly #errors = new Map<string, number>();
  readonly #latency = new Map<string, Histogram>();
  readonly #answers = new Map<string, number>();
  #auditFolded = 0;
  #auditPruned = 0;
  #auditBytes: number | undefined;

  activation(outcome: string): void {
    bump(this.#activations, outcome);
    if (outcome !== 'ok') this.error(outcome);
  }

  read(outcome: string): void {
    bump(this.#reads, outcome);
    if (outcome !== 'ok') this.error(outcome);
  }

  /** An error by kind: `not_found`, `stale`, `unauthorized`, `forbidden`, `bad_request`, `internal`, ... */
  error(kind: string): void {
    bump(this.#errors, kind);
  }

  /** One /mcp POST answered by the HTTP fast path (`fast`, ADR 0002) or by the SDK's handler (`sdk`). */
  answered(path: 'fast' | 'sdk'): void {
    bump(this.#answers, path);
  }

  /** A refusal counted in an existing audit row instead of a row of its own (access/audit.ts). */
  auditFolded(): void {
    this.#auditFolded++;
  }

  /** Audit rows deleted by the retention. */
  auditPruned(rows: number): void {
    this.#auditPruned += rows;
  }

  /** The audit log's size on disk (or in the database), as last measured. */
  auditBytes(bytes: number): void {
    this.#auditBytes = bytes;
  }

  /** One HTTP request's time, by JSON-RPC method (unknown methods count as `other`). */
  observe(method: string | undefined, seconds: number): void {
    const label = method === undefined ? 'none' : METHODS.has(method) ? method : 'other';
    let histogram = this.#latency.get(label);
    if (histogram === undefined) {
      histogram = new Histogram();
      this.#latency.set(label, histogram);
    }
    histogram.observe(seconds);
  }

  render(): string {
    const lines: string[] = [];
    counter(lines, 'skillport_activations_total', 'Skill activations (SKILL.md loaded as instructions), by outcome.', 'outcome', this.#activations);
    counter(lines, 'skillport_reads_total', 'Skill file reads, by outcome.', 'outcome', this.#reads);
    counter(lines, 'skillport_errors_total', 'Errors, by kind.', 'kind', this.#errors);
    counter(lines, 'skillport_mcp_answers_total', 'MCP requests over HTTP, by what answered them: the fast path or the SDK.', 'path', this.#answers);
    lines.push(
      '# HELP skillport_audit_folded_total Refusals counted in an existing audit row (repeats in a window) instead of a row of their own.',
      '# TYPE skillport_audit_folded_total counter',
      `skillport_audit_folded_total ${this.#auditFolded}`,
      '# HELP skillport_audit_pruned_total Audit rows deleted because they were older than the retention.',
      '# TYPE skillport_audit_pruned_total counter',
      `skillport_audit_pruned_total ${this.#auditPruned}`,
    );
    if (this.#auditBytes !== undefined)
      lines.push(
        '# HELP skillport_audit_database_bytes Size of the audit log: the access database file (SQLite) or the audit table with its indexes (PostgreSQL).',
        '# TYPE skillport_audit_database_bytes gauge',
        `skillport_audit_database_bytes ${this.#auditBytes}`,
      );
    lines.push(
      '# HELP skillport_request_duration_seconds Time to answer one HTTP request, by JSON-RPC method.',
      '# TYPE skillport_request_duration_seconds histogram',
    );
    for (const [method, histogram] of [...this.#latency].sort(([a], [b]) => (a < b ? -1 : 1))) {
      BUCKETS.forEach((le, i) => lines.push(`skillport_request_duration_seconds_bucket{method="${method}",le="${le}"} ${histogram.counts[i]}`));
      lines.push(`skillport_request_duration_seconds_bucket{method="${method}",le="+Inf"} ${histogram.count}`);
      lines.push(`skillport_request_duration_seconds_sum{method="${method}"} ${histogram.sum}`);
      lines.push(`skillport_request_duration_seconds_count{method="${method}"} ${histogram.count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function counter(lines: string[], name: string, help: string, label: string, values: Map<string, number>): void {
  lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
  for (const [key, value] of [...values].sort(([a], [b]) => (a < b ? -1 : 1))) lines.push(`${name}{${label}="${key.replace(/["\\\n]/g, '_')}"} ${value}`);
}
