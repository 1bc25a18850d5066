#!/usr/bin/env node
// bench/content-cache: what the read cache (catalog/content.ts, default budget) holds and costs when the sampled files
// of a catalog are served as the HTTP fast path serves a miss (read, then the JSON string of a text file), 16 at a
// time, three passes, in a child process per round: RSS added, VmHWM, the cache's own count of its bytes, the CPU of
// the passes. `--baseline DIR`: the same in another checkout's build, in alternate rounds, with ratios.
// Usage: node bench/content-cache.mjs --catalog /work/scale-data/catalog-1000 [--files 5000] [--rounds 3]
//                                     [--baseline /work/base]
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { options } from './args.mjs';

const flags = options();
const self = resolve(import.meta.dirname, '..');

if (process.env.CONTENT_CACHE_CHILD) {
  const [repo, catalog, count] = process.env.CONTENT_CACHE_CHILD.split('\n');
  const { ContentReader } = await import(join(repo, 'packages/server/dist/src/catalog/content.js'));
  // Every file of every skill folder (a folder holding SKILL.md), then an even sample of `count`.
  const files = [];
  const walk = (dir, skill) => {
    const entries = readdirSync(dir, { withFileTypes: true });
    const here = skill ?? (entries.some((e) => e.isFile() && e.name === 'SKILL.md') ? dir : undefined);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path, here);
      else if (here !== undefined && entry.isFile()) files.push({ skill: here, path: relative(here, path) });
    }
  };
  walk(catalog, undefined);
  const step = Math.max(1, Math.floor(files.length / Number(count)));
  const jobs = files
    .filter((_, at) => at % step === 0)
    .map(({ skill, path }) => {
      const bytes = readFileSync(join(skill, path));
      const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      return {
        file: { uri: `skill://bench/${path}`, path, size: bytes.byteLength, digest, mimeType: 'text/markdown' },
        origin: { kind: 'folder', root: skill, dir: skill, realDir: skill },
      };
    });
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
  const rss = kb('VmRSS');
  const reader = new ContentReader();
  const cpu = process.cpuUsage();
  for (let pass = 0; pass < 3; pass++) {
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < jobs.length) {
          const { file, origin } = jobs[next++];
          const bytes = await reader.read(file, origin);
          reader.servedForm(file.digest, bytes, true);
        }
      }),
    );
  }
  const used = process.cpuUsage(cpu);
  console.log(
    JSON.stringify({
      files: jobs.length,
      rssAdded: kb('VmRSS') - rss,
      hwm: kb('VmHWM'),
      cache: reader.bytes / 2 ** 20,
      cpuMs: (used.user + used.system) / 1000,
    }),
  );
  await reader.close();
  process.exit(0);
}

const catalog = flags.value('catalog', undefined);
if (catalog === undefined) throw new Error('--catalog DIR is required');
const count = flags.value('files', '5000');
const rounds = Number(flags.value('rounds', '3'));
const baseline = flags.value('baseline', undefined);
const repos = baseline === undefined ? [self] : [baseline, self];
const results = new Map(repos.map((repo) => [repo, []]));
for (let round = 0; round < rounds; round++) {
  for (const repo of repos) {
    const out = execFileSync(process.execPath, [import.meta.filename], {
      env: { ...process.env, CONTENT_CACHE_CHILD: [resolve(repo), resolve(catalog), count].join('\n') },
      encoding: 'utf8',
    });
    const result = JSON.parse(out.trim().split('\n').at(-1));
    results.get(repo).push(result);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(
      `round ${round + 1} ${repo}: ${result.files} files, RSS +${result.rssAdded.toFixed(0)} MB, VmHWM ${result.hwm.toFixed(0)} MB, cache ${result.cache.toFixed(1)} MB, CPU ${result.cpuMs.toFixed(0)} ms (load ${load})`,
    );
  }
}
const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
for (const key of ['rssAdded', 'hwm', 'cache', 'cpuMs']) {
  const line = repos.map((repo) => `${repo}: ${median(results.get(repo).map((r) => r[key])).toFixed(1)}`).join('; ');
  const ratio =
    baseline === undefined ? '' : `, ratio ${(median(results.get(self).map((r) => r[key])) / median(results.get(baseline).map((r) => r[key]))).toFixed(2)}`;
  console.log(`median ${key}: ${line}${ratio}`);
}
