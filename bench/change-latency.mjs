#!/usr/bin/env node
// bench/change-latency: how long one change takes to be served (issue 13: target ≤ 100 ms), repeated so that one
// unlucky round does not decide the figure. One `serve --http` on a generated catalog (bench/generate-catalog.mjs,
// reused when present), then per round: one SKILL.md edited in place (writeFileSync: truncate and write), one replaced
// by a rename (an editor's safe-save, `sed -i`), one edited in place and watched through skills/list only (no read
// of the stale file triggers its rescan: the watcher's own path), and one skill published to the registry (POST /api/v1/skills); each
// timed from the write (or the POST) until a resources/read shows the new bytes. Prints min / median / max per kind.
// Usage: node bench/change-latency.mjs [--count 10000] [--rounds 7] [--json] [--cpu-prof DIR]
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { measuredCommit, options } from './args.mjs';
import { until as untilEvery } from './poll.mjs';

const until = (check, timeoutMs = 30_000) => untilEvery(check, timeoutMs, 1);

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const count = Number(flags.value('count', '10000'));
const rounds = Number(flags.value('rounds', '7'));
const cpuProf = flags.value('cpu-prof', undefined);
const registry = await import(join(repo, 'packages/registry/dist/src/index.js'));
const TOKEN = 'bench-change-token';
const log = (line) => process.stderr.write(`${line}\n`);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

function post(url, method, params) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  };
  if (params.uri !== undefined) headers['mcp-name'] = params.uri;
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } });
  return fetch(url, { method: 'POST', headers, body }).then(async (response) => {
    const text = await response.text();
    const json = text.startsWith('event:') ? JSON.parse(/^data: (.*)$/m.exec(text)[1]) : JSON.parse(text);
    if (json.error) throw new Error(json.error.message);
    return json.result;
  });
}
const readText = async (url, uri) => (await post(url, 'resources/read', { uri })).contents[0].text;

const dir = execFileSync(process.execPath, [join(repo, 'bench/generate-catalog.mjs'), '--count', String(count)], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
}).trim();
const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-change-cache-'));
const store = mkdtempSync(join(tmpdir(), 'skillport-change-store-'));
const port = 5600 + Math.floor(Math.random() * 300);
const url = `http://127.0.0.1:${port}/mcp`;
const nodeArgs = cpuProf ? ['--cpu-prof', '--cpu-prof-dir', resolve(cpuProf)] : [];
const cli = join(repo, 'packages/cli/dist/src/bin.js');
const server = spawn(
  process.execPath,
  [...nodeArgs, cli, 'serve', '--http', '--port', String(port), '--quiet', '--cache-dir', cacheDir, '--data', store, dir],
  { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1', SKILLPORT_PUBLISH_TOKEN: TOKEN } },
);
let stderr = '';
server.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
const results = { edit: [], rename: [], listed: [], publish: [] };
const edited = [];
try {
  log(`serve on ${count} skills (${dir})...`);
  if (Number.isNaN(await until(async () => (await post(url, 'skills/list', {})) !== undefined, 600_000))) throw new Error(`not ready: ${stderr}`);
  // Skills to edit: SKILL.md files of the first copy, one per round and kind (never the same file twice in a row).
  const page = await post(url, 'skills/list', {});
  const targets = page.skills.map((skill) => skill.uri).filter((uri) => /^skill:\/\/copy-00\/[^%]+\/SKILL\.md$/.test(uri));
  if (targets.length < 3 * rounds) throw new Error(`only ${targets.length} skills to edit`);
  // Let the start-up work (search index, persisted catalog) finish: the figure is a change on a settled server.
  await sleep(count >= 10_000 ? 15_000 : 3_000);
  for (let round = 0; round < rounds; round++) {
    for (const kind of ['edit', 'rename', 'listed']) {
      const uri = targets[round * 3 + ['edit', 'rename', 'listed'].indexOf(kind)];
      const path = join(dir, uri.slice('skill://'.length));
      const original = readFileSync(path);
      edited.push({ path, original });
      const word = `zqxchange${kind}${round}${Date.now().toString(36)}`;
      const before = page.skills.find((skill) => skill.uri === uri)?.resources.find((r) => r.uri === uri)?.digest;
      const bytes = Buffer.concat([original, Buffer.from(`\n${word} marker line.\n`)]);
      const started = performance.now();
      if (kind !== 'rename') writeFileSync(path, bytes);
      else {
        writeFileSync(`${path}.tmp-bench`, bytes);
        renameSync(`${path}.tmp-bench`, path);
      }
      // `listed`: watched through skills/list alone (the SKILL.md digest in the listing), so no read of the stale
      // file can trigger its rescan: the watcher's own path (debounce, rescan, derived snapshot).
      const digestOf = (list) => list.skills.find((skill) => skill.uri === uri)?.resources.find((r) => r.uri === uri)?.digest;
      const served =
        kind === 'listed'
          ? await until(async () => digestOf(await post(url, 'skills/list', {})) !== before)
          : await until(async () => (await readText(url, uri)).includes(word));
      results[kind].push(Number.isNaN(served) ? NaN : performance.now() - started);
      await sleep(300);
    }
    {
      const name = `bench-change-${round}-${Date.now().toString(36)}`;
      const content = [
        {
          path: 'SKILL.md',
          bytes: Buffer.from(
            `---\nname: ${name}\ndescription: A skill published by bench/change-latency. Use when measuring.\n---\n\n# ${name}\n\nPublished.\n`,
          ),
        },
      ];
      const archive = registry.packSkillArchive(registry.manifestFor(name, content, { version: '1.0.0' }), content);
      const started = performance.now();
      const response = await fetch(url.replace(/\/mcp$/, '/api/v1/skills'), {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/vnd.skillport.skill+gzip' },
        body: archive,
      });
      await response.arrayBuffer();
      if (response.status !== 201) log(`publish answered ${response.status}`);
      await until(async () => (await readText(url, `skill://${name}/SKILL.md`)).includes('Published.'));
      results.publish.push(performance.now() - started);
      await sleep(300);
    }
    log(
      `round ${round + 1}: edit ${results.edit.at(-1).toFixed(0)} ms, rename ${results.rename.at(-1).toFixed(0)} ms, listed ${results.listed.at(-1).toFixed(0)} ms, publish ${results.publish.at(-1).toFixed(0)} ms`,
    );
  }
} finally {
  for (const { path, original } of edited.reverse()) writeFileSync(path, original);
  await new Promise((done) => {
    if (server.exitCode !== null) return done();
    server.once('exit', done);
    server.kill('SIGTERM');
  });
  rmSync(cacheDir, { recursive: true, force: true });
  rmSync(store, { recursive: true, force: true });
}

const sorted = (values) => [...values].sort((a, b) => a - b);
const summary = Object.fromEntries(
  Object.entries(results).map(([kind, values]) => {
    const s = sorted(values);
    return [kind, { min: s[0], median: s[Math.floor(s.length / 2)], max: s.at(-1) }];
  }),
);
if (flags.flag('json')) process.stdout.write(`${JSON.stringify({ count, rounds, commit: measuredCommit(), summary, results })}\n`);
else {
  const f = (value) => value.toFixed(0);
  process.stdout.write(`change → served at ${count.toLocaleString('en-US')} skills, ${rounds} rounds; commit ${measuredCommit()}\n\n`);
  process.stdout.write('| change | min, ms | median, ms | max, ms |\n|---|---:|---:|---:|\n');
  const names = {
    edit: 'SKILL.md written in place → read shows it',
    rename: 'SKILL.md replaced by a rename (safe-save) → read shows it',
    listed: 'SKILL.md written in place → skills/list shows it (no reads)',
    publish: 'one publish (POST → served)',
  };
  for (const [kind, { min, median, max }] of Object.entries(summary)) process.stdout.write(`| ${names[kind]} | ${f(min)} | ${f(median)} | ${f(max)} |\n`);
}
