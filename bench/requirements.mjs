#!/usr/bin/env node
// bench/requirements: what availability costs a caller. One `skillport serve --http` over the corpus (90 of its
// skills declare requirements; 24 need the MCP server rube), measured in the same process and run, alternating:
//   skills/list, every page, without a hint (the HTTP fast path, pages served from bytes made once per view) against
//   the same with the host's hint in `_meta` (dev.skillport/available: the SDK path, entries judged per request);
//   list_skills {query} without and with `available`.
// Prints requests per second and the ratio hint / no hint (below 1: slower with a hint).
// Usage: node bench/requirements.mjs [--skills DIR] [--seconds 3] [--rounds 3] [--json]
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measuredCommit, options, servedBase } from './args.mjs';
import { post as mcpPost } from './mcp-post.mjs';

const post = (url, method, params, meta) => mcpPost(url, method, params, method === 'tools/call' ? params.name : undefined, meta);

const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
const flags = options();
const skills = resolve(flags.value('skills', join(repo, '../shared/corpus/skills')));
const seconds = Number(flags.value('seconds', '3'));
const rounds = Number(flags.value('rounds', '3'));
const HINT = { 'dev.skillport/available': { mcpServers: ['github'], tools: ['Bash', 'Read'] } };

/** Every page of skills/list, once. */
async function walk(url, meta) {
  let cursor;
  let entries = 0;
  do {
    const page = await post(url, 'skills/list', cursor ? { cursor } : {}, meta);
    entries += page.skills.length;
    cursor = page.nextCursor;
  } while (cursor);
  return entries;
}

async function rate(run) {
  const until = performance.now() + seconds * 1000;
  let count = 0;
  while (performance.now() < until) {
    await run();
    count++;
  }
  return count / seconds;
}

const proc = spawn(process.execPath, [join(repo, 'packages/cli/dist/src/bin.js'), 'serve', '--http', '--port', '0', '--no-cache', '--no-watch', skills], {
  stdio: ['ignore', 'ignore', 'pipe'],
  env: { ...process.env, NO_COLOR: '1' },
});
const url = `${await servedBase(proc)}/mcp`;
try {
  const listed = await walk(url, {});
  // The index is built in the background: a first search waits for it, so searches are timed after one.
  await post(url, 'tools/call', { name: 'list_skills', arguments: { query: 'send email' } });
  const cases = {
    listNoHint: () => walk(url, {}),
    listHint: () => walk(url, HINT),
    searchNoHint: () => post(url, 'tools/call', { name: 'list_skills', arguments: { query: 'automate email newsletter' } }),
    searchHint: () =>
      post(url, 'tools/call', { name: 'list_skills', arguments: { query: 'automate email newsletter', available: HINT['dev.skillport/available'] } }),
  };
  const figures = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) for (const [name, run] of Object.entries(cases)) figures[name].push(await rate(run));
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const result = Object.fromEntries(Object.entries(figures).map(([name, values]) => [name, Number(median(values).toFixed(1))]));
  const report = {
    commit: measuredCommit(),
    skills: listed,
    seconds,
    rounds,
    perSecond: result,
    ratios: { list: Number((result.listHint / result.listNoHint).toFixed(3)), search: Number((result.searchHint / result.searchNoHint).toFixed(3)) },
  };
  if (flags.flag('json')) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    process.stdout.write(`bench requirements: ${listed} skills, commit ${report.commit}, medians of ${rounds} rounds of ${seconds} s\n`);
    process.stdout.write(`skills/list, every page: ${result.listNoHint}/s without a hint, ${result.listHint}/s with one (${report.ratios.list}x)\n`);
    process.stdout.write(`list_skills {query}:     ${result.searchNoHint}/s without available, ${result.searchHint}/s with it (${report.ratios.search}x)\n`);
  }
} finally {
  proc.kill('SIGTERM');
}
