import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '@skillport/test-kit';

/**
 * The short soak (issue 17, docs/reliability.md): `bench/soak.mjs --short` runs real servers under churn, SIGKILLs,
 * damaged cache files, registry faults (kills mid-publish, a full disk when a tmpfs can be mounted) and hostile HTTP,
 * with clients that verify every byte. Asserted here: its counters (no digest mismatch, no 5xx, no crash, every
 * restart identical to a fresh scan, no acknowledged publish lost, nothing partial, every hostile request refused
 * with one line). Never its timings: those are figures, printed by the long run.
 */
interface Phase {
  failed?: string;
  [key: string]: unknown;
}
interface SoakResult {
  totals: { phasesFailed: number; reads: number; mismatches: number; status5xx: number; crashes: number; otherErrors: number };
  phases: Record<string, Phase>;
}

function runSoak(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const proc = spawn(process.execPath, [join(REPO, 'bench/soak.mjs'), '--short', '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

test('soak --short: no mismatch, no 5xx, no crash, restarts identical, no acknowledged publish lost, hostile requests refused', {
  timeout: 900_000,
}, async () => {
  const run = await runSoak();
  assert.equal(run.code, 0, run.stderr.slice(-3000));
  const result = JSON.parse(run.stdout) as SoakResult;
  // biome-ignore lint/suspicious/noExplicitAny: the soak's JSON report, read field by field below
  const { churn, crash, registry, hostile } = result.phases as Record<string, Record<string, any>>;
  for (const [name, phase] of Object.entries(result.phases)) assert.equal(phase.failed, undefined, `phase ${name} failed`);
  assert.ok(result.totals.reads > 0, 'the readers read');
  assert.equal(result.totals.mismatches, 0, JSON.stringify(churn!['reads'].samples));
  assert.equal(result.totals.status5xx, 0);
  assert.equal(result.totals.crashes, 0);
  assert.equal(result.totals.otherErrors, 0, JSON.stringify([churn!['reads'].otherErrors, crash!['reads'].otherErrors]));

  // a. churn: the listing converges on a fresh scan by itself.
  assert.equal(churn!['convergence'].converged, true, JSON.stringify(churn!['convergence'].difference));
  assert.ok(churn!['churn'].registry.published > 0, 'registry versions were published during the churn');

  // b. every restart (after SIGKILLs, and with torn, garbage and subtly wrong cache files) serves a fresh scan.
  assert.equal(crash!['identical'], crash!['restarts'], JSON.stringify(crash!['details']));
  assert.ok(crash!['restarts'] >= 5);

  // c. registry faults: nothing acknowledged lost, nothing partial, store consistent, no temporary files left.
  const kills = registry!['kills'];
  assert.deepEqual([kills.lost, kills.partial, kills.storeConsistent, kills.tempFilesAfterRestart], [[], [], true, 0]);
  assert.ok(kills.acknowledged > 0);
  const full = registry!['diskFull'];
  if (full.skipped === undefined) {
    assert.deepEqual([full.lost, full.partial, full.storeConsistent, full.tempFilesAfterRestart, full.crashed], [[], [], true, 0, false]);
    assert.ok((full.publishes['507'] ?? 0) > 0, `a full disk answers 507: ${JSON.stringify(full.errors)}`);
    assert.equal(full.publishes['500'], undefined, JSON.stringify(full.errors));
  }

  // e. hostile HTTP: each refused with one clear line, the server alive after.
  assert.equal(hostile!['refusedClearly'], hostile!['requests'], JSON.stringify(hostile!['cases'].filter((c: { ok: boolean }) => !c.ok)));
  assert.equal(hostile!['aliveAfter'], true);
});
