#!/usr/bin/env node
// bench/web: how fast the web catalog answers at 10,000 skills. Starts `skillport serve --http` on a generated
// catalog (bench/generate-catalog.mjs), then asks for each kind of page in turn, one request at a time, and prints
// p50/p95 per page with the ratio to a baseline measured the same way in the same run: an MCP skills/list page on
// the fast path (the cheapest catalog answer the server gives). Times are taken by the client over loopback, so
// they are an upper bound of the server's time. The first search builds the search index (reads every SKILL.md
// opening): it is reported on its own, not in the percentiles.
// Usage: node bench/web.mjs [--count 10000] [--rounds 60] [--from CORPUS] [--json]
import { spawn, execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { options, servedBase } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const count = Number(flags.value('count', '10000'));
const rounds = Number(flags.value('rounds', '60'));
const asJson = flags.flag('json');
const log = (line) => process.stderr.write(`${line}\n`);

const from = flags.value('from');
const dir = execFileSync(process.execPath, [join(repo, 'bench/generate-catalog.mjs'), '--count', String(count), ...(from ? ['--from', from] : [])], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
}).trim();
const proc = spawn(process.execPath, [join(repo, 'packages/cli/dist/src/bin.js'), 'serve', '--http', '--port', '0', '--no-watch', '--no-cache', dir], {
  stdio: ['ignore', 'ignore', 'pipe'],
  env: { ...process.env, NO_COLOR: '1' },
});
const base = await servedBase(proc);
log(`serving ${count} skills at ${base}`);

async function timed(path, init) {
  const started = performance.now();
  const response = await fetch(`${base}${path}`, init);
  const body = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${body.slice(0, 200)}`);
  return { ms, bytes: body.length, body };
}

const mcpList = () =>
  timed('/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'skills/list', params: {} }),
  });

// Pick real targets from the catalog itself.
const home = await timed('/');
const firstSkill = /class="skill-name" href="([^"]+)"/.exec(home.body)[1];
const tag = /<option value="([^"]+)">[^<]+\(\d+\)<\/option><\/select><\/label>\s*<\/div>/.exec(home.body)?.[1];
const folder = /name="folder"><option value="" selected>Any folder<\/option><option value="([^"]+)"/.exec(home.body)?.[1];
const indexBuild = await timed('/fragments/results?q=warm+up+the+index');
log(`first search (builds the index for ${count} skills): ${indexBuild.ms.toFixed(0)} ms`);

const queries = [
  'clean a csv file',
  'write release notes',
  'review an api design',
  'pdf forms',
  'kubernetes deployment',
  'marketing plan',
  'unit tests',
  'security audit',
];
const pages = {
  'mcp skills/list (baseline)': () => mcpList(),
  'home (page 1)': () => timed('/'),
  'home page 100': () => timed('/?page=100'),
  'search page': (i) => timed(`/?q=${encodeURIComponent(queries[i % queries.length])}`),
  'search fragment (as you type)': (i) => timed(`/fragments/results?q=${encodeURIComponent(queries[i % queries.length].slice(0, 4 + (i % 8)))}`),
  ...(folder ? { 'folder filter': () => timed(`/?folder=${encodeURIComponent(folder)}&page=2`) } : {}),
  ...(tag ? { 'tag filter': () => timed(`/?tag=${encodeURIComponent(tag)}`) } : {}),
  'skill page': () => timed(firstSkill),
  'file page': () => timed(`${firstSkill}/-/files/SKILL.md`),
};

const results = {};
for (const [name, run] of Object.entries(pages)) {
  for (let i = 0; i < 5; i++) await run(i); // warm-up
  const times = [];
  let bytes = 0;
  for (let i = 0; i < rounds; i++) {
    const answer = await run(i);
    times.push(answer.ms);
    bytes = answer.bytes;
  }
  times.sort((a, b) => a - b);
  results[name] = { p50: times[Math.floor(times.length * 0.5)], p95: times[Math.floor(times.length * 0.95)], bytes };
}
proc.kill('SIGTERM');

const baseline = results['mcp skills/list (baseline)'].p50;
if (asJson) {
  process.stdout.write(`${JSON.stringify({ count, rounds, indexBuildMs: indexBuild.ms, pages: results }, null, 2)}\n`);
} else {
  console.log(`web catalog at ${count} skills, ${rounds} sequential requests per page (client-side times over loopback)`);
  console.log(`${'page'.padEnd(32)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'x baseline'.padStart(11)} ${'bytes'.padStart(8)}`);
  for (const [name, r] of Object.entries(results))
    console.log(
      `${name.padEnd(32)} ${r.p50.toFixed(1).padStart(8)} ${r.p95.toFixed(1).padStart(8)} ${(r.p50 / baseline).toFixed(2).padStart(11)} ${String(r.bytes).padStart(8)}`,
    );
  console.log(`first search (index build, once per catalog snapshot): ${indexBuild.ms.toFixed(0)} ms`);
}
