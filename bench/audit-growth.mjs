#!/usr/bin/env node
// bench/audit-growth: how much the audit log grows under refused reads from one token (the outside probe's disk
// attack). A real `serve --http --auth tokens --data DIR` (child process) is hammered with `resources/read` of skills
// that do not exist, over keep-alive HTTP from this process, in two patterns: one long URI (~4 KiB) asked again and
// again, and a different URI every time. After each run the server is stopped (its audit queue drained) and
// access.db (with its write-ahead log) is measured at rest before and after: bytes per refused read, and growth per
// hour at the rate this run reached (for the folded log run it for several 60 s windows, `--seconds 150`: its rows
// come per window, not per read, so a short run over-estimates) and, for the baseline, whose log grows per read, at
// the probe's 566 requests/s. `--baseline CHECKOUT` runs the same against another checkout's
// build (e.g. the commit before the fix) in the same process, for the before/after ratio.
// Usage: node bench/audit-growth.mjs [--requests 20000 | --seconds 150] [--concurrency 16] [--baseline /path/to/old/checkout] [--json]
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { measuredCommit, options, servedBase } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const requests = Number(flags.value('requests', '20000'));
// Or run each pattern for this many seconds (several 60 s windows give the folded log's real rate per hour).
const seconds = flags.value('seconds', undefined) === undefined ? undefined : Number(flags.value('seconds'));
const concurrency = Number(flags.value('concurrency', '16'));
const baseline = flags.value('baseline', undefined);
const PROBE_RATE = 566;
const log = (line) => process.stderr.write(`${line}\n`);

async function start(cli, data) {
  const args = [cli, 'serve', '--http', '--port', '0', '--no-cache', '--no-watch', '--auth', 'tokens', '--data', data, join(repo, 'examples/skills')];
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  return { url: `${await servedBase(proc)}/mcp`, proc };
}

function stop(proc) {
  return new Promise((done) => {
    if (proc.exitCode !== null) return done();
    proc.once('exit', () => done());
    proc.kill('SIGTERM');
  });
}

function size(data) {
  let bytes = 0;
  for (const name of ['access.db', 'access.db-wal']) {
    try {
      bytes += statSync(join(data, name)).size;
    } catch {
      // no such file (yet)
    }
  }
  return bytes;
}

/** `count` refused reads by one token (or as many as fit in `forMs`), `concurrency` at a time; how many and how long. */
async function hammer(url, token, requestOf, count, forMs = Infinity) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
    authorization: `Bearer ${token}`,
  };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count && performance.now() - started < forMs; i = next++) {
        const [method, params] = requestOf(i);
        // fetch keeps its connections alive: one token's few sockets, as a client hammering the server would hold.
        await (await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: i, method, params }) })).arrayBuffer();
      }
    }),
  );
  return { sent: Math.min(next, count), elapsed: (performance.now() - started) / 1000 };
}

const LONG = `skill://${'probe/'.repeat(680)}SKILL.md`; // ~4 KiB, under the 8192-character URI limit
const LONG_PATH = 'deep/'.repeat(800); // 4,000 characters: read_skill_resource's path, recorded with the error's text before
/** Each pattern: the JSON-RPC method and params of request `i`. */
const PATTERNS = {
  'same URI': () => ['resources/read', { uri: LONG }],
  'distinct URIs': (i) => ['resources/read', { uri: `skill://guess-${i}-${'x'.repeat(200)}/SKILL.md` }],
  'tool, long path': () => ['tools/call', { name: 'read_skill_resource', arguments: { name: 'release-notes', path: LONG_PATH } }],
};

async function measure(label, checkout) {
  const cli = join(checkout, 'packages/cli/dist/src/bin.js');
  const out = {};
  for (const [pattern, uriOf] of Object.entries(PATTERNS)) {
    const data = mkdtempSync(join(tmpdir(), 'skillport-bench-audit-'));
    try {
      const token = execFileSync(process.execPath, [cli, 'token', 'create', '--data', data, '--user', 'mallory'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
      // A first server writes some rows and stops (its log checkpointed), so the file is measured at rest both times.
      const warm = await start(cli, data);
      await hammer(warm.url, token, (i) => ['resources/read', { uri: `skill://warm-${i}/SKILL.md` }], 200);
      await stop(warm.proc);
      const before = size(data);
      const { url, proc } = await start(cli, data);
      const { sent, elapsed } = await hammer(url, token, uriOf, seconds === undefined ? requests : Infinity, seconds === undefined ? Infinity : seconds * 1000);
      await stop(proc);
      const grown = size(data) - before;
      const perRead = grown / sent;
      out[pattern] = {
        refusedReads: sent,
        seconds: Number(elapsed.toFixed(1)),
        bytesPerRefusedRead: Number(perRead.toFixed(1)),
        requestsPerSecond: Math.round(sent / elapsed),
        mibPerHourAtThisRate: Number((((grown / elapsed) * 3600) / 2 ** 20).toFixed(1)),
        // Only meaningful where the log grows per read (the baseline); the folded log grows per window instead.
        ...(label === 'baseline' ? { mibPerHourAtProbeRate: Number(((perRead * PROBE_RATE * 3600) / 2 ** 20).toFixed(1)) } : {}),
      };
      log(`${label} ${pattern}: ${out[pattern].bytesPerRefusedRead} B per refused read at ${out[pattern].requestsPerSecond} req/s`);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  }
  return out;
}

const report = { commit: measuredCommit(), ...(seconds === undefined ? { requests } : { seconds }), concurrency, current: await measure('current', repo) };
if (baseline !== undefined) {
  report.baseline = { checkout: baseline, ...(await measure('baseline', resolve(baseline))) };
  // null: the current run grew the file by less than one page, so there is no ratio to give.
  report.ratio = Object.fromEntries(
    Object.keys(PATTERNS).map((pattern) => [
      pattern,
      report.current[pattern].bytesPerRefusedRead > 0
        ? Number((report.baseline[pattern].bytesPerRefusedRead / report.current[pattern].bytesPerRefusedRead).toFixed(0))
        : null,
    ]),
  );
}
if (flags.flag('json')) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  for (const which of ['baseline', 'current']) {
    if (report[which] === undefined) continue;
    for (const pattern of Object.keys(PATTERNS)) {
      const r = report[which][pattern];
      process.stdout.write(
        `${which} (${which === 'current' ? report.commit : baseline}), ${pattern}: ${r.bytesPerRefusedRead} B per refused read; ${r.requestsPerSecond} req/s from one token → ${r.mibPerHourAtThisRate} MiB/hour${r.mibPerHourAtProbeRate !== undefined ? ` (${r.mibPerHourAtProbeRate} MiB/hour at ${PROBE_RATE} req/s)` : ''}\n`,
      );
    }
  }
  if (report.ratio) process.stdout.write(`bytes per refused read, baseline / current: ${JSON.stringify(report.ratio)}\n`);
}
