#!/usr/bin/env node
// bench/stall: does one hostile request stall everyone else? Serves the inputs of an outside probe with the real
// CLI (`serve --http --tools full,asm`, the web catalog on) and, for each, sends the hostile request while another
// client asks GET /healthz back to back. Printed per input and round (cold: first view; warm: the same again):
// the request's own time, the server's longest event-loop stall (monitorEventLoopDelay inside the server, through
// bench/stall-probe.mjs) and /healthz p50/max while it was served, with the stall's ratio to a baseline page (an
// ordinary skill page) measured the same way in the same run. The inputs: two 8,000-line versions with every line
// changed (compare page), a 137 KiB SKILL.md of 35,000 repeated headings, 40,000 headings, get_skill_outline at
// 20,000 headings, a 3 MiB table (page and outline: token counting of a 3 MiB body), a 1 MiB search query and a
// 1 MiB completion value.
// Usage: node bench/stall.mjs [--cli packages/cli/dist/src/bin.js] [--rounds 2] [--only compare,table] [--json]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { measuredCommit, options, servedBase } from './args.mjs';
import { post } from './mcp-post.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const cli = resolve(flags.value('cli', join(repo, 'packages/cli/dist/src/bin.js')));
const rounds = Number(flags.value('rounds', '2'));
const only = flags.value('only')?.split(',');
const asJson = flags.flag('json');
const log = (line) => process.stderr.write(`${line}\n`);
// The commit of the server measured (with --cli, another checkout's), not only the bench's own.
const served = execFileSync('git', ['-C', resolve(cli, '..'), 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();

// ---- the hostile inputs --------------------------------------------------------------------------------------------
const root = mkdtempSync(join(tmpdir(), 'skillport-stall-'));
const write = (base, files) => {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(base, path, '..'), { recursive: true });
    writeFileSync(join(base, path), content);
  }
  return base;
};
const skill = (name, body) => `---\nname: ${name}\ndescription: A hostile input, ${name}.\n---\n${body}`;
const lines = (n, tag) => Array.from({ length: n }, (_, i) => `line ${i} ${tag}`).join('\n');
const row = (i) => `| ${i} | cell b${i} | cell c${i} | cell d${i} |\n`;
const table = `# Data\n\n| n | b | c | d |\n|---|---|---|---|\n${Array.from({ length: Math.ceil((3 * 1024 * 1024) / row(99999).length) }, (_, i) => row(i)).join('')}`;
const data = join(root, 'data');
for (const [version, tag] of [
  ['1.0.0', 'alpha'],
  ['2.0.0', 'beta'],
]) {
  const dir = write(join(root, `release-${version}`), {
    'big-diff/SKILL.md': skill('big-diff', `# Big diff\n\nVersion ${version}.\n`),
    'big-diff/references/data.txt': lines(8000, tag),
  });
  execFileSync(process.execPath, [cli, 'publish', join(dir, 'big-diff'), '--data', data, '--version', version, '-q'], { stdio: ['ignore', 2, 2] });
}
const skills = write(join(root, 'skills'), {
  'repeated/SKILL.md': skill('repeated', '# x\n'.repeat(35_000)),
  'forty-thousand/SKILL.md': skill('forty-thousand', '# Step\n'.repeat(40_000)),
  'twenty-thousand/SKILL.md': skill('twenty-thousand', '## Step\n\nDo it.\n\n'.repeat(20_000)),
  'huge-table/SKILL.md': skill('huge-table', table),
});

// ---- the server, with its event-loop monitor -----------------------------------------------------------------------
const proc = spawn(
  process.execPath,
  [
    '--import',
    join(repo, 'bench/stall-probe.mjs'),
    cli,
    'serve',
    '--http',
    '--port',
    '0',
    '--no-watch',
    '--no-cache',
    '--tools',
    'full,asm',
    join(repo, 'examples/skills'),
    skills,
    '--data',
    data,
  ],
  { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: { ...process.env, NO_COLOR: '1' } },
);
const base = await servedBase(proc);
const ask = (message) =>
  new Promise((done) => {
    proc.once('message', done);
    proc.send(message);
  });
log(`serving the hostile inputs at ${base} (${cli})`);

// ---- measuring -----------------------------------------------------------------------------------------------------
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/**
 * GET /healthz one after another (2 ms apart) until `stop()`: each answer's time, and how many failed (a server
 * stalled past its headers timeout drops the waiting connections: that is counted, with the time it took to fail).
 */
function healthzLoop() {
  const times = [];
  let failed = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const start = performance.now();
      try {
        await fetch(`${base}/healthz`).then((response) => response.arrayBuffer());
      } catch {
        failed++;
      }
      times.push(performance.now() - start);
      await sleep(2);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return { times: times.sort((a, b) => a - b), failed };
    },
  };
}

const page = (path) => async () => {
  const response = await fetch(`${base}${path}`);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${body.slice(0, 200)}`);
  return `${(body.length / 1024).toFixed(0)} KiB`;
};
const mcp = (method, params, name) => async () => {
  const result = await post(`${base}/mcp`, method, params, name);
  return `${(JSON.stringify(result).length / 1024).toFixed(0)} KiB`;
};
const cases = [
  ['baseline: a skill page', page('/skills/csv-data-cleaning')],
  ['compare: 8,000 lines, all changed', page('/skills/big-diff/-/compare?from=1.0.0&to=2.0.0')],
  ['page: 137 KiB of repeated headings', page('/skills/repeated')],
  ['page: 40,000 headings', page('/skills/forty-thousand')],
  ['page: a 3 MiB table', page('/skills/huge-table')],
  ['get_skill_outline: 20,000 headings', mcp('tools/call', { name: 'get_skill_outline', arguments: { skill_id: 'twenty-thousand' } }, 'get_skill_outline')],
  ['get_skill_outline: a 3 MiB table', mcp('tools/call', { name: 'get_skill_outline', arguments: { skill_id: 'huge-table' } }, 'get_skill_outline')],
  ['list_skills: a 1 MiB query', mcp('tools/call', { name: 'list_skills', arguments: { query: 'pdf tables '.repeat(95_000) } }, 'list_skills')],
  [
    'completion: a 1 MiB value',
    mcp('completion/complete', {
      ref: { type: 'ref/resource', uri: 'skills://{skill_id}/resources' },
      argument: { name: 'skill_id', value: 'c'.repeat(1024 * 1024) },
    }),
  ],
];

const results = [];
// Warm the server up (first page, first MCP call) so the baseline is not a cold start.
await page('/skills/csv-data-cleaning')();
await mcp('tools/list', {})();
for (const [label, run] of cases) {
  if (only && label !== cases[0][0] && !only.some((word) => label.includes(word))) continue;
  for (let round = 1; round <= rounds; round++) {
    await ask('reset');
    const pings = healthzLoop();
    await sleep(20);
    const start = performance.now();
    let answer;
    try {
      answer = await run();
    } catch (error) {
      answer = `error: ${error.message.slice(0, 80)}`;
    }
    const took = performance.now() - start;
    await sleep(20);
    const { times: healthz, failed } = await pings.stop();
    const stall = await ask('read');
    results.push({
      input: label,
      round: round === 1 ? 'cold' : 'warm',
      answer,
      requestMs: took,
      stallMaxMs: stall.maxMs,
      healthzP50Ms: percentile(healthz, 50),
      healthzMaxMs: healthz[healthz.length - 1] ?? 0,
      healthzFailed: failed,
    });
    log(`${label} (${round === 1 ? 'cold' : 'warm'}): ${took.toFixed(0)} ms, stall ${stall.maxMs.toFixed(0)} ms`);
  }
}
proc.kill('SIGTERM');
rmSync(root, { recursive: true, force: true });

const baseline = Math.max(...results.filter((r) => r.input.startsWith('baseline')).map((r) => r.stallMaxMs), 1);
if (asJson) {
  process.stdout.write(`${JSON.stringify({ commit: measuredCommit(), served, cli, baselineStallMs: baseline, results }, null, 2)}\n`);
} else {
  const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`);
  console.log(
    `stall bench at ${measuredCommit()}, server at ${served} (${cli.replace(`${repo}/`, '')}); ratio: longest stall / the baseline page's (${fmt(baseline)})`,
  );
  console.log('| input | round | answer | request | longest stall | ratio | /healthz p50 | /healthz max | /healthz failed |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of results)
    console.log(
      `| ${r.input} | ${r.round} | ${r.answer} | ${fmt(r.requestMs)} | ${fmt(r.stallMaxMs)} | ${(r.stallMaxMs / baseline).toFixed(1)}x | ${fmt(r.healthzP50Ms)} | ${fmt(r.healthzMaxMs)} | ${r.healthzFailed} |`,
    );
}
