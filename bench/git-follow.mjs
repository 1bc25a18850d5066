#!/usr/bin/env node
// bench/git-follow: how long a moved branch takes to be served by `serve` from a git source (issue 33: local ≤ 2 s,
// webhook ≤ 2 s of the POST). A repository of --skills skills (default 200); per round one skill is changed,
// committed and pushed to the bare "remote", and the time is taken from the push (local: the ref moves on disk) or
// from the webhook POST (a remote over git's smart HTTP, `git http-backend`, --git-interval 0) until skills/list
// over a real MCP client shows the new commit's skill. Baseline, in the same run: what a team did by hand, a fresh
// `serve` process started on the new commit until it lists it (the "pull and restart"). Also printed: the server's
// own line for the last fetch (how many skills it rebuilt: only the changed one).
// Usage: npm run build --silent && node bench/git-follow.mjs [--skills 200] [--rounds 7] [--json]
import { createHmac } from 'node:crypto';
import { join, resolve } from 'node:path';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { measuredCommit, options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const kit = await import(join(repo, 'packages/test-kit/dist/src/index.js'));
const flags = options();
const skills = Number(flags.value('skills', '200'));
const rounds = Number(flags.value('rounds', '7'));
const asJson = flags.flag('json');
const log = (line) => process.stderr.write(`${line}\n`);
const SECRET = 'bench-git-follow-secret';

const files = {};
for (let i = 0; i < skills; i++) files[`skills/s${i}/SKILL.md`] = kit.skillMd(`s${i}`);
const fixture = kit.gitFixture(files);

/** ms from `start` until skills/list shows `uri` whose description is `description`. */
async function until(client, uri, description, start) {
  for (;;) {
    const listed = (await new SkillsClient(client).list()).skills.find((skill) => skill.uri === uri);
    if (listed && listed.frontmatter.description === description) return performance.now() - start;
    if (performance.now() - start > 30_000) throw new Error(`not served in 30 s: ${uri}`);
    await new Promise((done) => setTimeout(done, 2));
  }
}

const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0], median: sorted[Math.floor(sorted.length / 2)], max: sorted.at(-1) };
};

let round = 0;
const change = () => {
  const i = round++ % skills;
  const description = `Round ${round} of s${i}. Use for s${i}.`;
  return { uri: `skill://s${i}/SKILL.md`, description, files: { [`skills/s${i}/SKILL.md`]: kit.skillMd(`s${i}`, description) } };
};

// Local: the bare repository's ref files are watched.
const local = await kit.startHttp([`git:${fixture.bare}#main:skills`, '--git-interval', '0']);
const localClient = await kit.connectHttp(local.url, 'modern');
const localTimes = [];
for (let r = 0; r < rounds; r++) {
  const next = change();
  const start = performance.now();
  fixture.commit(next.files);
  localTimes.push(await until(localClient, next.uri, next.description, start));
}
const localLine = local
  .stderr()
  .trim()
  .split('\n')
  .filter((line) => line.includes('added or changed'))
  .at(-1);
await localClient.close();
await local.stop();

// Webhook: a remote over HTTP, no interval; timed from the POST.
const host = await kit.startGitHttp(join(fixture.bare, '..'));
const remote = `${host.url}remote.git`;
const hooked = await kit.startHttp([`git+${remote}#main:skills`, '--git-interval', '0'], { SKILLPORT_GIT_WEBHOOK_SECRET: SECRET });
const hookedClient = await kit.connectHttp(hooked.url, 'modern');
const hook = hooked.url.replace(/\/mcp$/, '/api/v1/git/webhook');
const hookTimes = [];
for (let r = 0; r < rounds; r++) {
  const next = change();
  fixture.commit(next.files);
  const body = JSON.stringify({ ref: 'refs/heads/main', repository: { clone_url: remote } });
  const start = performance.now();
  const answer = await fetch(hook, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` },
    body,
  });
  if (answer.status !== 202) throw new Error(`webhook answered ${answer.status}`);
  hookTimes.push(await until(hookedClient, next.uri, next.description, start));
}
await hookedClient.close();
await hooked.stop();
await host.close();

// Baseline: a fresh process on the new commit (pull and restart), until it lists it.
const restartTimes = [];
for (let r = 0; r < Math.min(rounds, 5); r++) {
  const next = change();
  fixture.commit(next.files);
  const start = performance.now();
  const fresh = await kit.startHttp([`git:${fixture.bare}#main:skills`, '--git-interval', '0']);
  const client = await kit.connectHttp(fresh.url, 'modern');
  restartTimes.push(await until(client, next.uri, next.description, start));
  await client.close();
  await fresh.stop();
}
kit.removeTrees();

const result = {
  commit: measuredCommit(),
  skills,
  rounds,
  localMs: stats(localTimes),
  webhookMs: stats(hookTimes),
  restartBaselineMs: stats(restartTimes),
  localVsRestart: stats(localTimes).median / stats(restartTimes).median,
  webhookVsRestart: stats(hookTimes).median / stats(restartTimes).median,
  lastFetch: localLine?.replace(/^skillport: /, ''),
};
if (asJson) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  const row = (label, s) => `${label.padEnd(34)} ${s.min.toFixed(0).padStart(6)} ${s.median.toFixed(0).padStart(7)} ${s.max.toFixed(0).padStart(6)}`;
  log(`git-follow at ${result.commit}: ${skills} skills, ${rounds} rounds (ms: min, median, max)`);
  log(row('local push → served', result.localMs));
  log(row('webhook POST → served', result.webhookMs));
  log(row('baseline: fresh serve → served', result.restartBaselineMs));
  log(`median ratio vs the baseline: local ${result.localVsRestart.toFixed(3)}x, webhook ${result.webhookVsRestart.toFixed(3)}x`);
  log(`last fetch: ${result.lastFetch}`);
}
