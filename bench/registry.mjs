#!/usr/bin/env node
// bench/registry: the registry against plain folders, same skills, same run.
// 1. Publish throughput: N real skills (the corpus skills that validate without a problem, since publishing is
//    strict) packed as .skill archives and POSTed to `skillport serve --http --data DIR` by C concurrent publishers;
//    then the same archives again (each a no-op: same bytes). Baseline in the same process: writing the same files
//    into a fresh folder with an fsync per file (the floor of any durable write), with the same parallelism.
// 2. Read throughput: resources/read of the same files, at random, from `serve DIR` (folder) and from
//    `serve --data DIR` (the registry just filled), and of the registry's exact-version URIs (unlisted, resolved
//    through the provider), 16 clients, both protocol eras (bench/load.mjs).
// Usage: node bench/registry.mjs [--count 200] [--concurrency 4] [--duration 5] [--rounds 3] [--clients 16] [--json]
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const count = Number(flags.value('count', '200'));
const publishers = Number(flags.value('concurrency', '4'));
const duration = Number(flags.value('duration', '5'));
const clients = Number(flags.value('clients', '16'));
const asJson = flags.flag('json');
const corpus = resolve(repo, '../shared/corpus/skills');
const cli = join(repo, 'packages/cli/dist/src/bin.js');
const core = await import(join(repo, 'packages/core/dist/src/index.js'));
const pkg = await import(join(repo, 'packages/registry/dist/src/client.js'));
const log = (line) => process.stderr.write(`${line}\n`);
const TOKEN = 'bench-token';
let nextPort = 5100;

// --- the skills: corpus skills that publish (no problem at all), one per name, copied into a flat folder
log(`finding up to ${count} corpus skills that validate strictly...`);
const found = core.discoverSkills(corpus).skills;
const flat = mkdtempSync(join(tmpdir(), 'skillport-bench-flat-'));
const chosen = [];
const names = new Set();
for (const skill of found) {
  if (chosen.length >= count) break;
  const inspection = core.inspectSkillFolder(skill.dir);
  if (!inspection.skill || inspection.problems.length > 0 || names.has(inspection.skill.name)) continue;
  if (inspection.skill.files.some((file) => file.target !== undefined)) continue;
  names.add(inspection.skill.name);
  const files = inspection.skill.files.map((file) => ({ path: file.path, bytes: readFileSync(join(inspection.skill.realDir, file.path)) }));
  cpSync(inspection.skill.realDir, join(flat, inspection.skill.name), { recursive: true, filter: (source) => !source.includes('/.git') });
  const archive = pkg.packSkillArchive(pkg.manifestFor(inspection.skill.name, files, { version: '1.0.0' }), files);
  chosen.push({ name: inspection.skill.name, files, archive, bytes: inspection.skill.totalBytes });
}
const totalBytes = chosen.reduce((sum, skill) => sum + skill.bytes, 0);
const archiveBytes = chosen.reduce((sum, skill) => sum + skill.archive.byteLength, 0);
log(
  `   ${chosen.length} skills, ${chosen.reduce((n, s) => n + s.files.length, 0)} files, ${(totalBytes / 1048576).toFixed(1)} MiB (${(archiveBytes / 1048576).toFixed(1)} MiB packed)`,
);

async function start(args, env = {}) {
  const port = nextPort++;
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const proc = spawn(process.execPath, [cli, 'serve', '--http', '--port', String(port), '--quiet', '--no-watch', '--no-cache', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  let stderr = '';
  proc.stderr.on('data', (chunk) => (stderr += chunk));
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited: ${stderr}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return { proc, url, readyMs: performance.now() - started };
}

async function stop(proc) {
  if (proc.exitCode !== null) return;
  await new Promise((done) => {
    proc.once('exit', done);
    proc.kill('SIGTERM');
  });
}

const peakRss = (proc) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))[1]) / 1024;

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
  return { seconds, perSecond: chosen.length / seconds, mibPerSecond: archiveBytes / 1048576 / seconds, statuses };
}

// The same parallelism as publishing: `publishers` skills at a time, each written by up to 8 writers (the registry's
// BLOB_WRITERS), every file fsynced; so the ratio compares like with like.
async function durableCopy() {
  const dir = mkdtempSync(join(tmpdir(), 'skillport-bench-copy-'));
  const started = performance.now();
  const skills = [...chosen];
  const writeSkill = async (skill) => {
    const files = [...skill.files];
    const writer = async () => {
      for (let file = files.shift(); file !== undefined; file = files.shift()) {
        const target = join(dir, skill.name, file.path);
        await mkdir(dirname(target), { recursive: true });
        const handle = await open(target, 'w');
        try {
          await handle.write(file.bytes);
          await handle.sync();
        } finally {
          await handle.close();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(8, files.length) }, writer));
  };
  await Promise.all(
    Array.from({ length: publishers }, async () => {
      for (let skill = skills.shift(); skill !== undefined; skill = skills.shift()) await writeSkill(skill);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  rmSync(dir, { recursive: true, force: true });
  return { seconds, perSecond: chosen.length / seconds };
}

function load(url, era, targets) {
  const file = join(tmpdir(), `skillport-bench-targets-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(targets));
  const run = spawnSync(process.execPath, [join(repo, 'bench/load.mjs'), `${url}/mcp`, era, 'read', String(duration), String(clients), file], {
    encoding: 'utf8',
  });
  rmSync(file, { force: true });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

const tagged = chosen.flatMap((skill) => skill.files.map((file) => `${core.joinSkillUri([skill.name])}/${core.encodePath(file.path)}`));
const exact = chosen.flatMap((skill) => skill.files.map((file) => `${core.joinSkillUri(['1.0.0', skill.name])}/${core.encodePath(file.path)}`));

// --- 1. publish
const data = mkdtempSync(join(tmpdir(), 'skillport-bench-store-'));
log('publishing into a fresh store...');
const registry = await start(['--data', data], { SKILLPORT_PUBLISH_TOKEN: TOKEN });
const first = await publishAll(registry.url);
log(`   ${first.perSecond.toFixed(1)} publishes/s ${JSON.stringify(first.statuses)}`);
const again = await publishAll(registry.url);
log(`   same bytes again: ${again.perSecond.toFixed(1)}/s ${JSON.stringify(again.statuses)}`);
await stop(registry.proc);
log(`baseline: the same files into a folder, fsync per file, ${publishers} skills at a time with 8 writers each...`);
const copy = await durableCopy();

// --- 2. reads: both servers up at once, measured in alternating rounds (this machine is shared: alternating and
// taking the median keeps both sides under the same conditions)
const rounds = Number(flags.value('rounds', '3'));
log('starting the folder server and the registry server...');
const folderServer = await start([flat]);
const registryServer = await start(['--data', data]);
const samples = { folderModern: [], folderLegacy: [], registryModern: [], registryLegacy: [], exact: [], failed: 0 };
for (let round = 1; round <= rounds; round++) {
  log(`reads, round ${round} of ${rounds}...`);
  for (const [key, url, era, targets] of [
    ['folderModern', folderServer.url, 'modern', tagged],
    ['registryModern', registryServer.url, 'modern', tagged],
    ['folderLegacy', folderServer.url, 'legacy', tagged],
    ['registryLegacy', registryServer.url, 'legacy', tagged],
    ['exact', registryServer.url, 'modern', exact],
  ]) {
    const result = load(url, era, targets);
    samples[key].push(result.perSecond);
    samples.failed += result.failed;
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const folder = {
  readyMs: folderServer.readyMs,
  modern: { perSecond: median(samples.folderModern) },
  legacy: { perSecond: median(samples.folderLegacy) },
  peakRssMb: peakRss(folderServer.proc),
};
const fromRegistry = {
  readyMs: registryServer.readyMs,
  modern: { perSecond: median(samples.registryModern) },
  legacy: { perSecond: median(samples.registryLegacy) },
  exact: { perSecond: median(samples.exact) },
  peakRssMb: peakRss(registryServer.proc),
};
await stop(folderServer.proc);
await stop(registryServer.proc);
const check = spawnSync(process.execPath, [cli, 'store', 'check', '--data', data, '--json'], { encoding: 'utf8' });
const report = JSON.parse(check.stdout);
rmSync(data, { recursive: true, force: true });
rmSync(flat, { recursive: true, force: true });

const ratio = (a, b) => (b === 0 ? 'n/a' : (a / b).toFixed(2));
const result = {
  skills: chosen.length,
  files: tagged.length,
  mib: totalBytes / 1048576,
  publishers,
  first,
  again,
  copy,
  folder,
  registry: fromRegistry,
  samples,
  storeConsistent: report.consistent,
};
if (asJson) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  process.stdout.write(
    `\n### Publish: ${chosen.length} corpus skills (${(totalBytes / 1048576).toFixed(1)} MiB, ${tagged.length} files), ${publishers} concurrent publishers\n\n`,
  );
  process.stdout.write('| measure | value | baseline: folder write + fsync per file | ratio |\n|---|---:|---:|---:|\n');
  process.stdout.write(
    `| publishes per s (new versions) | ${first.perSecond.toFixed(1)} | ${copy.perSecond.toFixed(1)} skills/s | ${ratio(first.perSecond, copy.perSecond)} |\n`,
  );
  process.stdout.write(`| packed MiB per s | ${first.mibPerSecond.toFixed(2)} | | |\n`);
  process.stdout.write(`| publishes per s (same bytes again: no-op) | ${again.perSecond.toFixed(1)} | | ${ratio(again.perSecond, copy.perSecond)} |\n`);
  process.stdout.write(`| HTTP statuses | ${JSON.stringify(first.statuses)} then ${JSON.stringify(again.statuses)} | | |\n`);
  process.stdout.write(`| store check after | ${report.consistent ? 'consistent' : 'INCONSISTENT'}, ${report.orphanBlobs.length} orphans | | |\n`);
  process.stdout.write(
    `\n### Reads: the same ${tagged.length} files at random, ${clients} clients, median of ${rounds} alternating rounds of ${duration} s\n\n`,
  );
  process.stdout.write('| measure | folder | registry | ratio |\n|---|---:|---:|---:|\n');
  process.stdout.write(`| ready, ms | ${folder.readyMs.toFixed(0)} | ${fromRegistry.readyMs.toFixed(0)} | ${ratio(fromRegistry.readyMs, folder.readyMs)} |\n`);
  process.stdout.write(
    `| resources/read per s (2026-07-28) | ${folder.modern.perSecond.toFixed(0)} | ${fromRegistry.modern.perSecond.toFixed(0)} | ${ratio(fromRegistry.modern.perSecond, folder.modern.perSecond)} |\n`,
  );
  process.stdout.write(
    `| resources/read per s (2025-11-25) | ${folder.legacy.perSecond.toFixed(0)} | ${fromRegistry.legacy.perSecond.toFixed(0)} | ${ratio(fromRegistry.legacy.perSecond, folder.legacy.perSecond)} |\n`,
  );
  process.stdout.write(
    `| exact-version URIs per s (2026-07-28) | | ${fromRegistry.exact.perSecond.toFixed(0)} | ${ratio(fromRegistry.exact.perSecond, folder.modern.perSecond)} |\n`,
  );
  process.stdout.write(
    `| peak RSS, MB | ${folder.peakRssMb.toFixed(0)} | ${fromRegistry.peakRssMb.toFixed(0)} | ${ratio(fromRegistry.peakRssMb, folder.peakRssMb)} |\n`,
  );
  process.stdout.write(`| failed requests (all rounds) | ${samples.failed} | | |\n`);
}
void readdirSync;
