#!/usr/bin/env node
// bench/read-cpu-ab: the /mcp server's main-thread CPU per request at a fixed request count, for two or more builds
// (or one build with different flags) in one run. Each server is started on CATALOG (--no-watch --no-cache), left to
// settle (its CPU quiet for 2 s: the index build is on worker threads, but its hand-off is not), then every sampled
// file (bench/scale's sample: up to 5 files of every n-th skill) is read once ("cold": first reads), then ROUNDS
// rounds of the same COUNT random reads (or list pages), servers in alternating order, 16 keep-alive clients. CPU is
// the main thread's, from /proc/PID/task/PID/stat (worker threads' background work left out); "All" the process's.
// Prints per-server figures and the first server's ratio to each other one (median of rounds, median of paired
// rounds). Meant for a loaded machine: counts CPU, not wall time.
// --no-scan: the served folders' background scan (serve.ts; bench/scale's --quiet skips it too) would otherwise run on
// the main thread for minutes at 1,000 skills on a loaded machine, between the requests measured.
// Usage: node bench/read-cpu-ab.mjs CATALOG read|list ROUNDS COUNT ROOT[+--flag[+--flag…]] ROOT…
//   e.g. node bench/read-cpu-ab.mjs /work/scale-data/catalog-1000 read 7 3000 . .+--no-direct-route /work/main
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
const [catalog, kind, roundsText, countText, ...roots] = process.argv.slice(2);
const cpuAll = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const cpu = (pid) => {
  const f = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
async function start(spec) {
  const [root, ...extra] = spec.split('+');
  const proc = spawn(
    process.execPath,
    [join(root, 'packages/cli/dist/src/bin.js'), 'serve', '--http', '--port', '0', '--no-watch', '--no-cache', '--no-scan', ...extra, catalog],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  const url = await new Promise((done) =>
    proc.stderr.on('data', (c) => {
      stderr += c;
      const m = /on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) done(m[1]);
    }),
  );
  return { root: spec, proc, url: new URL(url) };
}
const servers = [];
for (const root of roots) servers.push(await start(root));
const headersL = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const skills = [];
const cursors = [null];
let cursor;
do {
  const r = await fetch(servers[0].url, {
    method: 'POST',
    headers: headersL,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'skills/list', params: cursor ? { cursor } : {} }),
  });
  const j = await r.json();
  for (const s of j.result.skills) skills.push(s.resources.map((x) => x.uri));
  cursor = j.result.nextCursor;
  if (cursor) cursors.push(cursor);
} while (cursor);
const step = Math.max(1, Math.floor(skills.length / 1000));
const files = skills.filter((_, i) => i % step === 0).flatMap((f) => f.slice(0, 5));
const targets = kind === 'read' ? files : cursors;
for (const s of servers) {
  let last = cpuAll(s.proc.pid),
    quiet = 0;
  const until = Date.now() + 240000;
  while (quiet < 2 && Date.now() < until) {
    await new Promise((d) => setTimeout(d, 1000));
    const n = cpuAll(s.proc.pid);
    quiet = n - last < 0.05 ? quiet + 1 : 0;
    last = n;
  }
}
function body(id, target) {
  const method = kind === 'read' ? 'resources/read' : 'skills/list';
  const params = {
    ...(kind === 'read' ? { uri: target } : target === null ? {} : { cursor: target }),
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  };
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  };
  if (kind === 'read') headers['mcp-name'] = target;
  const text = JSON.stringify({ jsonrpc: '2.0', id, method, params });
  headers['content-length'] = Buffer.byteLength(text);
  return { headers, text };
}
async function run(server, list, concurrency = 16) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0,
    failed = 0;
  const before = cpu(server.proc.pid);
  const beforeAll = cpuAll(server.proc.pid);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < list.length) {
        const target = list[next++];
        const { headers, text } = body(next, target);
        const good = await new Promise((resolve) => {
          const req = request({ agent, host: server.url.hostname, port: server.url.port, path: '/mcp', method: 'POST', headers }, (res) => {
            const chunks = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => resolve(res.statusCode === 200 && !Buffer.concat(chunks).includes('"error"')));
          });
          req.on('error', () => resolve(false));
          req.end(text);
        });
        if (!good) failed++;
      }
    }),
  );
  agent.destroy();
  return {
    all: ((cpuAll(server.proc.pid) - beforeAll) * 1e6) / list.length,
    us: ((cpu(server.proc.pid) - before) * 1e6) / list.length,
    perSecond: list.length / ((performance.now() - t0) / 1000),
    failed,
  };
}
let seed = 12345;
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const out = {};
if (kind === 'read')
  for (const s of servers) {
    const r = await run(s, targets);
    out[s.root] = { cold: r.us.toFixed(0), coldAll: r.all.toFixed(0), coldFailed: r.failed, hot: [], hotAll: [] };
  }
else for (const s of servers) out[s.root] = { hot: [], hotAll: [] };
const count = Number(countText);
for (let round = 0; round < Number(roundsText); round++) {
  const list = Array.from({ length: count }, () => targets[Math.floor(random() * targets.length)]);
  const order = round % 2 ? [...servers].reverse() : servers;
  for (const s of order) {
    const r = await run(s, list);
    out[s.root].hot.push(Math.round(r.us));
    out[s.root].hotAll.push(Math.round(r.all));
    if (r.failed) out[s.root].failed = (out[s.root].failed ?? 0) + r.failed;
  }
}
const med = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
for (const [root, r] of Object.entries(out)) console.log(root, JSON.stringify({ ...r, median: med(r.hot) }));
for (let i = 1; i < servers.length; i++) {
  const a = Object.values(out)[0],
    b = Object.values(out)[i];
  console.log(
    `hot ratio first/${servers[i].root}`,
    (med(a.hot) / med(b.hot)).toFixed(3),
    'paired',
    med(a.hot.map((v, j) => v / b.hot[j])).toFixed(3),
    a.cold ? `cold ratio ${(a.cold / b.cold).toFixed(3)}` : '',
  );
}
for (const s of servers) s.proc.kill();
