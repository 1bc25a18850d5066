#!/usr/bin/env node
// bench/access: what identity, visibility and audit cost. Two real servers (child processes) on the same folder,
// driven by the same raw-HTTP load loop in this process: one open (no auth, no policy), one with --auth tokens,
// a policy of 20 rules (each principal sees about half the skills) and the audit log on. Prints resources/read
// throughput of each and their ratio, and the time to build one principal's view of the catalog (in process).
// Usage: node bench/access.mjs [--dir ../shared/corpus/skills] [--duration 5] [--rounds 3] [--concurrency 16] [--json]
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const dir = resolve(flags.value('dir', join(repo, '../shared/corpus/skills')));
const duration = Number(flags.value('duration', '5')) * 1000;
const concurrency = Number(flags.value('concurrency', '16'));
const cli = join(repo, 'packages/cli/dist/src/bin.js');
const log = (line) => process.stderr.write(`${line}\n`);

const data = mkdtempSync(join(tmpdir(), 'skillport-bench-access-'));
const token = execFileSync(process.execPath, [cli, 'token', 'create', '--data', data, '--user', 'bench', '--org', 'even'], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'ignore'],
}).trim();
// 20 rules: skills whose name starts with a-m for org:even, n-z for org:odd, plus 18 rules naming other orgs.
const rules = [
  '  - skills: ["a*", "b*", "c*", "d*", "e*", "f*", "g*", "h*", "i*", "j*", "k*", "l*", "m*"]\n    allow: [org:even]',
  '  - skills: ["n*", "o*", "p*", "q*", "r*", "s*", "t*", "u*", "v*", "w*", "x*", "y*", "z*"]\n    allow: [org:odd]',
  ...Array.from({ length: 18 }, (_, i) => `  - uri: skill://team${i}/\n    allow: [org:team${i}]`),
];
const policy = join(data, 'policy.yaml');
writeFileSync(policy, `default: none\nrules:\n${rules.join('\n')}\n`);

function start(args) {
  return new Promise((resolveUrl, reject) => {
    const proc = spawn(process.execPath, [cli, 'serve', '--http', '--port', '0', '--no-cache', '--no-watch', dir, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = / on (http:\/\/\S+)/.exec(stderr);
      if (match) resolveUrl({ url: match[1], proc });
    });
    proc.on('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
}

async function post(url, auth, id, method, params) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  if (auth) headers.authorization = `Bearer ${auth}`;
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) });
  const text = await response.text();
  return JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text);
}

/** Every file URI the caller may read (walking skills/list). */
async function targets(url, auth) {
  const uris = [];
  let cursor;
  let id = 1;
  do {
    const page = await post(url, auth, id++, 'skills/list', cursor ? { cursor } : {});
    for (const skill of page.result.skills) for (const resource of skill.resources) uris.push(resource.uri);
    cursor = page.result.nextCursor;
  } while (cursor);
  return uris;
}

async function load(url, auth, uris) {
  const endpoint = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let ok = 0;
  let failed = 0;
  let id = 1;
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const until = Date.now() + duration;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        const uri = uris[Math.floor(random() * uris.length)];
        const body = JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'resources/read', params: { uri } });
        const headers = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          'content-length': Buffer.byteLength(body),
        };
        if (auth) headers.authorization = `Bearer ${auth}`;
        const good = await new Promise((done) => {
          const req = request({ agent, host: endpoint.hostname, port: endpoint.port, path: endpoint.pathname, method: 'POST', headers }, (res) => {
            let text = '';
            res.on('data', (chunk) => (text += chunk));
            res.on('end', () => done(res.statusCode === 200 && text.includes('"result"')));
          });
          req.on('error', () => done(false));
          req.end(body);
        });
        if (good) ok++;
        else failed++;
      }
    }),
  );
  agent.destroy();
  return { perSecond: ok / ((performance.now() - started) / 1000), failed };
}

// In process: the cost of building one principal's view (first request after a catalog or policy change).
const { SkillportServer, parsePrincipalSpec } = await import(join(repo, 'packages/server/dist/src/index.js'));
const server = await SkillportServer.open({ dirs: [dir], cacheDir: false, access: { policyFile: policy } });
const snapshot = server.catalog.snapshot;
const viewTimes = [];
for (let i = 0; i < 20; i++) {
  const started = performance.now();
  server.access.views.view(snapshot, parsePrincipalSpec(`user:u${i} org:even`));
  viewTimes.push(performance.now() - started);
}
viewTimes.sort((a, b) => a - b);
const principal = parsePrincipalSpec('user:u0 org:even');
const cached = performance.now();
for (let i = 0; i < 100000; i++) server.access.views.view(snapshot, principal);
const cachedMicros = ((performance.now() - cached) / 100000) * 1000;
await server.close();

const open = await start([]);
const guarded = await start(['--auth', 'tokens', '--data', data, '--policy', policy]);
try {
  const [openUris, guardedUris] = await Promise.all([targets(open.url, undefined), targets(guarded.url, token)]);
  log(
    `${snapshot.size} skills; the principal sees files of ${new Set(guardedUris.map((u) => u.split('/')[2])).size} top folders, ${guardedUris.length} of ${openUris.length} files`,
  );
  // The same files on both (those the principal may read), so only the access layer differs.
  const same = guardedUris;
  // Alternating rounds, best of each: the machine is shared, so single runs are noisy.
  const runs = { a: [], b: [] };
  for (let round = 0; round < Number(flags.value('rounds', '3')); round++) {
    runs.a.push(await load(open.url, undefined, same));
    runs.b.push(await load(guarded.url, token, same));
  }
  const best = (list) => list.reduce((x, y) => (y.perSecond > x.perSecond ? y : x));
  const a = best(runs.a);
  const b = best(runs.b);
  const result = {
    skills: snapshot.size,
    viewBuildMs: { median: Number(viewTimes[10].toFixed(2)), max: Number(viewTimes.at(-1).toFixed(2)) },
    cachedViewLookupMicros: Number(cachedMicros.toFixed(2)),
    readsPerSecond: { open: Math.round(a.perSecond), tokensPolicyAudit: Math.round(b.perSecond) },
    ratio: Number((b.perSecond / a.perSecond).toFixed(2)),
    failed: a.failed + b.failed,
  };
  if (flags.flag('json')) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    process.stdout.write(`catalog: ${result.skills} skills (${dir})\n`);
    process.stdout.write(
      `view build (20-rule policy, one principal): median ${result.viewBuildMs.median} ms, max ${result.viewBuildMs.max} ms; cached lookup ${result.cachedViewLookupMicros} µs\n`,
    );
    process.stdout.write(
      `resources/read, ${concurrency} clients, ${duration / 1000} s, legacy era: open ${result.readsPerSecond.open}/s, tokens+policy+audit ${result.readsPerSecond.tokensPolicyAudit}/s (ratio ${result.ratio}), failed ${result.failed}\n`,
    );
  }
} finally {
  open.proc.kill('SIGTERM');
  guarded.proc.kill('SIGTERM');
}
