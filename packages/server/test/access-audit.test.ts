import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { EXAMPLES, eventually, runCli, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { connectAs, createToken, rawRequest } from '@skillport/test-kit';

/** Every activation and file read is in the audit log (who, skill, version, digest, file, outcome, time); /metrics counts them. */
interface Event {
  time: string;
  principal: string;
  user?: string;
  action: string;
  surface: string;
  skill?: string;
  uri?: string;
  digest?: string;
  version?: string;
  file?: string;
  outcome: string;
}

describe('audit log and metrics', () => {
  const data = mkdtempSync(join(tmpdir(), 'skillport-audit-'));
  let server: RunningServer;
  let alice: string;
  let bob: string;
  let admin: string;
  const started = new Date().toISOString();
  before(async () => {
    alice = await createToken(data, ['--user', 'alice']);
    bob = await createToken(data, ['--user', 'bob']);
    admin = await createToken(data, ['--user', 'root', '--scope', 'admin']);
    server = await startHttp([EXAMPLES, '--auth', 'tokens', '--data', data, '--tools', 'full']);
  });
  after(async () => {
    await server?.stop();
  });

  const audit = async (...args: string[]): Promise<Event[]> => {
    const run = await runCli(['audit', '--data', data, '--json', ...args]);
    assert.equal(run.code, 0, run.stderr);
    return (JSON.parse(run.stdout) as { events: Event[] }).events;
  };

  test('every surface that activates or reads is recorded, with the outcome', async () => {
    const client = await connectAs(server.url, 'modern', alice);
    try {
      const skills = new SkillsClient(client);
      const listing = await skills.list();
      const csv = listing.skills.find((skill) => skill.frontmatter.name === 'csv-data-cleaning')!;
      await skills.read(csv); // resources/read of SKILL.md: an activation
      await skills.read(csv, 'references/pitfalls.md');
      await client.callTool({ name: 'activate_skill', arguments: { name: 'release-notes' } });
      await client.callTool({ name: 'read_skill_resource', arguments: { name: 'release-notes', path: 'references/template.md' } });
      await client.callTool({ name: 'read_skill_resource', arguments: { name: 'release-notes', path: 'nope.md' } });
      await client.callTool({ name: 'activate_skill', arguments: { name: 'no-such-skill' } });
      await client.callTool({ name: 'get_skill_section', arguments: { name: 'git-commit-messages', key: 'nope' } });
      await client.getPrompt({ name: 'incident-postmortem' });
      await client.readResource({ uri: 'skill://missing/SKILL.md' }).catch(() => undefined);
    } finally {
      await client.close();
    }
    // A read the HTTP fast path answers is recorded too.
    await rawRequest(server.url, 'modern', bob, 1, 'resources/read', { uri: 'skill://sql-query-optimization/SKILL.md' });

    const events = await eventually(
      async () => {
        const all = await audit('--user', 'alice');
        return all.length >= 9 ? all : undefined;
      },
      10_000,
      "alice's events",
    );
    const summary = events.map((event) => `${event.action} ${event.surface} ${event.skill ?? '-'} ${event.file ?? '-'} ${event.outcome}`);
    assert.deepEqual(
      summary,
      [
        'activate resources/read csv-data-cleaning SKILL.md ok',
        'read resources/read csv-data-cleaning references/pitfalls.md ok',
        'activate activate_skill release-notes SKILL.md ok',
        'read read_skill_resource release-notes references/template.md ok',
        'read read_skill_resource release-notes nope.md refused',
        'activate activate_skill no-such-skill - not_found',
        'read get_skill_section git-commit-messages SKILL.md#nope refused',
        'activate prompts/get incident-postmortem SKILL.md ok',
        'read resources/read skill://missing/SKILL.md - not_found',
      ].slice(0, events.length),
    );
    assert.equal(events.length, 9);
    const first = events[0]!;
    assert.equal(first.user, 'alice');
    assert.match(first.principal, /^alice \(token [0-9a-f]{12}\)$/);
    assert.equal(first.uri, 'skill://csv-data-cleaning/SKILL.md');
    assert.match(first.digest ?? '', /^sha256:[0-9a-f]{64}$/);
    assert.ok(first.time >= started);
    // The version is the skill's metadata.version when it has one (the registry's version for registry skills).
    assert.equal(events.find((event) => event.skill === 'release-notes')?.version, '1.0.0');

    const bobs = await eventually(
      async () => {
        const found = await audit('--user', 'bob');
        return found.length > 0 ? found : undefined;
      },
      10_000,
      "bob's fast-path read",
    );
    assert.deepEqual(
      bobs.map((event) => [event.action, event.skill, event.outcome]),
      [['activate', 'sql-query-optimization', 'ok']],
    );

    // Filters: by skill (name or URI), by time.
    assert.equal((await audit('--skill', 'release-notes')).length, 3);
    assert.equal((await audit('--skill', 'skill://csv-data-cleaning/SKILL.md')).length, 2);
    assert.equal((await audit('--since', '2999-01-01')).length, 0);
    assert.ok((await audit('--since', '1h')).length >= 10);
    // The human form: one line per event.
    const text = await runCli(['audit', '--data', data, '--user', 'alice', '--skill', 'release-notes']);
    assert.equal(text.stdout.trim().split('\n').length, 3);
    assert.match(text.stdout, /alice \(token [0-9a-f]{12}\)  activate  release-notes@1\.0\.0 SKILL\.md  ok  via activate_skill  sha256:/);
    // The admin API answers the same log.
    const api = await fetch(server.url.replace(/\/mcp$/, '/api/v1/admin/audit?user=alice&limit=2'), { headers: { authorization: `Bearer ${admin}` } });
    assert.equal(((await api.json()) as { events: Event[] }).events.length, 2);
  });

  test('/metrics: Prometheus text with activations, reads, errors by kind and a latency histogram', async () => {
    await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }); // a 401
    const response = await fetch(server.url.replace(/\/mcp$/, '/metrics'), { headers: { authorization: `Bearer ${admin}` } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const value = (line: string) => Number(new RegExp(`^${line.replace(/[{}"+.]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    assert.ok(value('skillport_activations_total{outcome="ok"}') >= 4);
    assert.ok(value('skillport_reads_total{outcome="ok"}') >= 2);
    assert.ok(value('skillport_errors_total{kind="not_found"}') >= 2);
    assert.ok(value('skillport_errors_total{kind="unauthorized"}') >= 1);
    assert.match(text, /^# TYPE skillport_request_duration_seconds histogram$/m);
    const count = value('skillport_request_duration_seconds_count{method="resources/read"}');
    assert.ok(count >= 3);
    assert.equal(value('skillport_request_duration_seconds_bucket{method="resources/read",le="+Inf"}'), count);
    // Every line is a comment or `name{labels} number`.
    for (const line of text.trim().split('\n')) assert.match(line, /^(# (HELP|TYPE) .+|[a-z_]+(\{[^}]*\})? [0-9.e+-]+)$/, line);
    // No skill names or users in the figures.
    assert.ok(!/csv-data-cleaning|alice/.test(text));
  });

  test('audit without a log says so', async () => {
    const run = await runCli(['audit', '--data', mkdtempSync(join(tmpdir(), 'skillport-empty-'))]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /no audit log in/);
    const bad = await runCli(['audit', '--data', data, '--since', 'yesterday']);
    assert.equal(bad.code, 2);
  });
});
