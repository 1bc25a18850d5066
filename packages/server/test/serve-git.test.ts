import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Client } from '@modelcontextprotocol/client';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAs, connectHttp, createToken, eventually, gitFixture, removeTrees, runCli, skillMd, startGitHttp, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

interface Provenance {
  repository: string;
  ref: string;
  commit: string;
  path: string;
}

async function listed(client: Client): Promise<Map<string, { description: string; provenance: Provenance }>> {
  const skills = (await new SkillsClient(client).list()).skills;
  return new Map(
    skills.map((skill) => [
      skill.uri,
      {
        description: String(skill.frontmatter.description),
        provenance: (skill._meta as Record<string, unknown>)['dev.skillport/provenance'] as Provenance,
      },
    ]),
  );
}

async function health(server: RunningServer): Promise<{ git: Array<Record<string, unknown>> }> {
  return (await (await fetch(server.url.replace(/\/mcp$/, '/healthz'))).json()) as { git: Array<Record<string, unknown>> };
}

const running: RunningServer[] = [];
after(async () => {
  await Promise.all(running.map((server) => server.stop()));
  removeTrees();
});

async function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ server: RunningServer; client: Client }> {
  const server = await startHttp(args, env);
  running.push(server);
  return { server, client: await connectHttp(server.url, 'modern') };
}

describe('serve a git repository', () => {
  test('a local repository: its branch is followed at once, with the commit in each skill’s provenance', async () => {
    const repo = gitFixture({ 'skills/alpha/SKILL.md': skillMd('alpha'), 'skills/beta/SKILL.md': skillMd('beta'), 'README.md': '# not a skill\n' });
    const first = repo.git('rev-parse', 'HEAD');
    const { server, client } = await serve([`git:${repo.bare}#main:skills`, '--git-interval', '0']);
    const before = await listed(client);
    assert.deepEqual([...before.keys()].sort(), ['skill://alpha/SKILL.md', 'skill://beta/SKILL.md']);
    assert.deepEqual(before.get('skill://alpha/SKILL.md')!.provenance, { repository: repo.bare, ref: 'refs/heads/main', commit: first, path: 'alpha' });

    // A push moves the bare repository's ref: heard from its ref files, no interval.
    const second = repo.commit({ 'skills/beta/SKILL.md': skillMd('beta', 'Beta, second edition. Use for beta.'), 'skills/gamma/SKILL.md': skillMd('gamma') });
    const after2 = await eventually(async () => {
      const now = await listed(client);
      return now.get('skill://gamma/SKILL.md') ? now : undefined;
    });
    assert.equal(after2.get('skill://beta/SKILL.md')!.description, 'Beta, second edition. Use for beta.');
    assert.equal(after2.get('skill://beta/SKILL.md')!.provenance.commit, second);
    assert.equal(after2.get('skill://gamma/SKILL.md')!.provenance.commit, second);
    // An unchanged skill is not rebuilt: it keeps the commit its bytes were read at (the same bytes as at `second`).
    assert.equal(after2.get('skill://alpha/SKILL.md')!.provenance.commit, first);
    assert.match(server.stderr(), /1 added or changed|2 added or changed/);
    const git = (await health(server)).git[0]!;
    assert.equal(git['commit'], second);
    assert.equal(git['status'], 'ok');

    // A force-push to an unrelated history: served as it is.
    repo.git('checkout', '--quiet', '--orphan', 'rewrite');
    repo.git('rm', '-r', '--quiet', '--cached', '.');
    repo.git('clean', '-fdq');
    repo.commit({ 'skills/delta/SKILL.md': skillMd('delta') }, 'rewritten');
    const rewritten = repo.git('rev-parse', 'HEAD');
    repo.git('push', '--quiet', '--force', 'origin', 'rewrite:main');
    const forced = await eventually(async () => {
      const now = await listed(client);
      return now.has('skill://delta/SKILL.md') && now.size === 1 ? now : undefined;
    });
    assert.equal(forced.get('skill://delta/SKILL.md')!.provenance.commit, rewritten);
    await client.close();
  });

  test('a deleted branch and a broken remote keep the last good commit, said on /healthz; it recovers', async () => {
    const repo = gitFixture({ 'one/SKILL.md': skillMd('one') });
    const good = repo.git('rev-parse', 'HEAD');
    repo.git('push', '--quiet', 'origin', 'HEAD:refs/heads/release');
    const { server, client } = await serve([`git:${repo.bare}#release`, '--git-interval', '0.2']);
    assert.deepEqual([...(await listed(client)).keys()], ['skill://one/SKILL.md']);

    repo.git('push', '--quiet', 'origin', ':refs/heads/release');
    const failing = await eventually(async () => {
      const git = (await health(server)).git[0]!;
      return git['status'] === 'failing' ? git : undefined;
    });
    assert.match(String(failing['error']), /no branch or tag release/);
    assert.equal(failing['commit'], good);
    assert.deepEqual([...(await listed(client)).keys()], ['skill://one/SKILL.md'], 'still served');
    assert.match(server.stderr(), /still serving/);

    // The remote itself goes away (a broken fetch): still the last good commit.
    repo.git('push', '--quiet', 'origin', 'HEAD:refs/heads/release');
    await eventually(async () => ((await health(server)).git[0]!['status'] === 'ok' ? true : undefined));
    renameSync(repo.bare, `${repo.bare}.away`);
    await eventually(async () => ((await health(server)).git[0]!['status'] === 'failing' ? true : undefined));
    assert.deepEqual([...(await listed(client)).keys()], ['skill://one/SKILL.md']);
    renameSync(`${repo.bare}.away`, repo.bare);
    const next = repo.commit({ 'two/SKILL.md': skillMd('two') });
    repo.git('push', '--quiet', 'origin', 'HEAD:refs/heads/release');
    const recovered = await eventually(async () => ((await listed(client)).has('skill://two/SKILL.md') ? true : undefined));
    assert.ok(recovered);
    const git = (await health(server)).git[0]!;
    assert.equal(git['status'], 'ok');
    assert.equal(git['commit'], next);
    assert.equal(git['error'], undefined);
    await client.close();
  });

  test('a config file names git sources beside folders, relative paths from the file', async () => {
    const repo = gitFixture({ 'skills/cfg/SKILL.md': skillMd('cfg') });
    const config = join(repo.bare, '..', 'skillport.yaml');
    writeFileSync(config, 'dirs:\n  - git:./remote.git#main:skills\n');
    const { client } = await serve(['--config', config]);
    const skills = await listed(client);
    assert.deepEqual([...skills.keys()], ['skill://cfg/SKILL.md']);
    assert.equal(skills.get('skill://cfg/SKILL.md')!.provenance.repository, repo.bare);
    await client.close();
  });

  test('a tag and a commit id pin what is served', async () => {
    const repo = gitFixture({ 'pinned/SKILL.md': skillMd('pinned', 'Version one. Use for pins.') });
    const v1 = repo.git('rev-parse', 'HEAD');
    repo.git('tag', '-a', 'v1', '-m', 'one');
    repo.git('push', '--quiet', 'origin', 'v1');
    repo.commit({ 'pinned/SKILL.md': skillMd('pinned', 'Version two. Use for pins.') });
    const tagged = await serve([`git+file://${repo.bare}#v1`]);
    const byTag = (await listed(tagged.client)).get('skill://pinned/SKILL.md')!;
    assert.equal(byTag.description, 'Version one. Use for pins.');
    assert.deepEqual(byTag.provenance, { repository: repo.bare, ref: 'refs/tags/v1', commit: v1, path: 'pinned' });
    const byCommit = await serve([`git:${repo.bare}#${v1}`]);
    assert.equal((await listed(byCommit.client)).get('skill://pinned/SKILL.md')!.provenance.commit, v1);
    await tagged.client.close();
    await byCommit.client.close();
  });

  test('a hostile repository: links out, a huge file, a submodule and hooks serve nothing unsafe and run nothing', async () => {
    const repo = gitFixture({
      'good/SKILL.md': skillMd('good'),
      'leak/SKILL.md': { symlink: '/etc/passwd' },
      'linked/SKILL.md': skillMd('linked'),
      'linked/secret.txt': { symlink: '../../../../../../etc/hostname' },
      'huge/SKILL.md': skillMd('huge'),
      'huge/blob.bin': Buffer.alloc(12 * 1024 * 1024, 7),
      '.gitattributes': '* filter=evil\n',
    });
    // A submodule entry (a gitlink) pointing at a commit the server never fetches.
    repo.git('update-index', '--add', '--cacheinfo', `160000,${repo.git('rev-parse', 'HEAD')},sub/SKILL.md`);
    repo.git('commit', '--quiet', '-m', 'gitlink');
    repo.git('push', '--quiet', 'origin', 'HEAD:refs/heads/main');
    const marker = `${repo.work}/../pwned`;
    writeFileSync(
      `${repo.work}/evil.gitconfig`,
      `[filter "evil"]\n\tsmudge = touch ${marker}\n\tclean = touch ${marker}\n[core]\n\tfsmonitor = touch ${marker}\n[uploadpack]\n\tpackObjectsHook = touch ${marker}\n`,
    );
    const { server, client } = await serve([`git:${repo.bare}#main`, '--max-bytes', '1MB'], {
      // Even a user's own config asking for a filter or hooks is not read for a served repository.
      GIT_CONFIG_GLOBAL: `${repo.work}/evil.gitconfig`,
    });
    const skills = await listed(client);
    assert.deepEqual([...skills.keys()].sort(), ['skill://good/SKILL.md', 'skill://linked/SKILL.md']);
    const linked = await client.readResource({ uri: 'skill://linked/SKILL.md' });
    assert.match((linked.contents[0] as { text: string }).text, /linked/);
    await assert.rejects(client.readResource({ uri: 'skill://linked/secret.txt' }));
    assert.match(server.stderr(), /larger than 1 MiB/);
    assert.match(server.stderr(), /symbolic link/);
    assert.throws(() => readFileSync(marker));
    await client.close();
  });

  test('a private repository over HTTP: the token is sent, and never shows in argv, logs, _meta or /healthz', async () => {
    const token = 'tok-very-secret-4711';
    const repo = gitFixture({ 'private/SKILL.md': skillMd('private') });
    const host = await startGitHttp(`${repo.bare}/..`, token, 400);
    try {
      // Without the token: a clear error, and no server.
      await assert.rejects(
        startHttp([`git+${host.url}remote.git#main`]),
        (error: Error) => /remote\.git/.test(error.message) && !error.message.includes(token),
      );
      const seen: string[] = [];
      const watching = setInterval(() => seen.push(...commandLines()), 20);
      const { server, client } = await serve([`git+${host.url}remote.git#main`, '--git-interval', '0.3'], { SKILLPORT_GIT_TOKEN: token });
      const skills = await listed(client);
      clearInterval(watching);
      assert.deepEqual([...skills.keys()], ['skill://private/SKILL.md']);
      assert.ok(
        host.authorizations.some((value) => value?.startsWith('Basic ')),
        'the token was sent',
      );
      assert.ok(
        seen.some((line) => line.includes('git') && line.includes('remote.git')),
        'git was seen running',
      );
      assert.ok(!seen.some((line) => line.includes(token)), 'no argv holds the token');
      assert.ok(!server.stderr().includes(token));
      assert.ok(!JSON.stringify([...skills.values()]).includes(token));
      assert.ok(!JSON.stringify(await health(server)).includes(token));
      await client.close();
    } finally {
      await host.close();
    }
  });
});

describe('the git webhook', () => {
  test('a signed push fetches at once; an unsigned or wrongly signed one is 401 and audited', async () => {
    const secret = 'hook-secret-0042';
    const repo = gitFixture({ 'hooked/SKILL.md': skillMd('hooked') });
    const host = await startGitHttp(`${repo.bare}/..`);
    const data = mkdtempSync(join(tmpdir(), 'skillport-git-hook-'));
    const token = await createToken(data, ['--user', 'alice']);
    try {
      const remote = `${host.url}remote.git`;
      const server = await startHttp([`git+${remote}#main`, '--git-interval', '0', '--auth', 'tokens', '--data', data], {
        SKILLPORT_GIT_WEBHOOK_SECRET: secret,
      });
      running.push(server);
      const hook = server.url.replace(/\/mcp$/, '/api/v1/git/webhook');
      assert.match(server.stderr(), /git webhook at http:\/\/127\.0\.0\.1:\d+\/api\/v1\/git\/webhook/);
      const client = await connectAs(server.url, 'modern', token);
      const next = repo.commit({ 'second/SKILL.md': skillMd('second') });
      const push = JSON.stringify({ ref: 'refs/heads/main', after: next, repository: { clone_url: remote, full_name: 'remote' } });
      const sign = (body: string, key = secret) => `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
      const post = (body: string, headers: Record<string, string>) =>
        fetch(hook, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

      assert.equal((await post(push, {})).status, 401, 'unsigned');
      assert.equal((await post(push, { 'x-hub-signature-256': sign(push, 'not-the-secret') })).status, 401, 'wrong HMAC');
      assert.equal((await post(push, { 'x-gitlab-token': 'not-the-secret' })).status, 401, 'wrong GitLab token');
      assert.ok(!(await listed(client)).has('skill://second/SKILL.md'), 'nothing fetched on a refused hook (no interval)');

      const other = JSON.stringify({ ref: 'refs/heads/main', repository: { clone_url: 'https://git.example/someone/else.git' } });
      const ignored = await post(other, { 'x-hub-signature-256': sign(other) });
      assert.equal(ignored.status, 202);
      assert.deepEqual(((await ignored.json()) as { refreshing: string[] }).refreshing, []);

      const accepted = await post(push, { 'x-hub-signature-256': sign(push), 'x-github-event': 'push' });
      assert.equal(accepted.status, 202);
      assert.deepEqual(((await accepted.json()) as { refreshing: string[] }).refreshing, [`${remote}#main`]);
      const served = await eventually(async () => (await listed(client)).get('skill://second/SKILL.md'));
      assert.equal(served.provenance.commit, next);

      // GitLab's shape: the token itself, the project's URLs.
      const third = repo.commit({ 'third/SKILL.md': skillMd('third') });
      const gitlab = JSON.stringify({ object_kind: 'push', ref: 'refs/heads/main', project: { git_http_url: remote } });
      assert.equal((await post(gitlab, { 'x-gitlab-token': secret, 'x-gitlab-event': 'Push Hook' })).status, 202);
      assert.equal((await eventually(async () => (await listed(client)).get('skill://third/SKILL.md'))).provenance.commit, third);
      await client.close();

      const refusals = await eventually(async () => {
        const run = await runCli(['audit', '--data', data, '--json']);
        const found = (JSON.parse(run.stdout) as { events: Array<{ action: string; surface: string; outcome: string; detail?: string }> }).events.filter(
          (event) => event.action === 'webhook',
        );
        return found.length >= 3 ? found : undefined;
      });
      assert.ok(refusals.every((event) => event.outcome === 'denied'));
      assert.deepEqual(refusals.map((event) => `${event.surface} ${event.detail}`).sort(), [
        'git-webhook no_signature',
        'github-webhook bad_signature',
        'gitlab-webhook bad_signature',
      ]);
      assert.ok(!server.stderr().includes(secret));
    } finally {
      await host.close();
    }
  });
});

describe('a git skill says where it came from on every surface', () => {
  test('show, the activation, the web page and the audit log carry repository, ref and commit', async () => {
    const repo = gitFixture({ 'skills/notes/SKILL.md': skillMd('notes') });
    const commit = repo.git('rev-parse', 'HEAD');
    const source = `git:${repo.bare}#main:skills`;
    const open = await serve([source]);
    const shown = await runCli(['show', open.server.url, 'notes', '--json']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual((JSON.parse(shown.stdout) as { source: unknown }).source, { repository: repo.bare, ref: 'refs/heads/main', commit, path: 'notes' });
    const text = await runCli(['show', open.server.url, 'notes']);
    assert.match(text.stdout, new RegExp(`source: +${repo.bare.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} refs/heads/main at ${commit}`));
    const activation = await open.client.callTool({ name: 'activate_skill', arguments: { name: 'notes' } });
    assert.match(JSON.stringify(activation.content), new RegExp(`source [^;]*refs/heads/main at ${commit}`));
    assert.doesNotMatch(JSON.stringify(activation.content), /unsigned/);
    const page = await (await fetch(open.server.url.replace(/\/mcp$/, '/skills/notes'))).text();
    assert.match(page, new RegExp(`<code title="${commit}">${commit.slice(0, 12)}</code>`));
    await open.client.close();

    const data = mkdtempSync(join(tmpdir(), 'skillport-git-audit-'));
    const token = await createToken(data, ['--user', 'alice']);
    const audited = await startHttp([source, '--auth', 'tokens', '--data', data]);
    running.push(audited);
    const client = await connectAs(audited.url, 'modern', token);
    await client.callTool({ name: 'activate_skill', arguments: { name: 'notes' } });
    await client.close();
    const events = await eventually(async () => {
      const run = await runCli(['audit', '--data', data, '--json', '--user', 'alice']);
      const found = (JSON.parse(run.stdout) as { events: Array<{ skill?: string; detail?: string }> }).events.filter((event) => event.skill === 'notes');
      return found.length > 0 ? found : undefined;
    });
    assert.equal(events[0]!.detail, `git ${repo.bare} refs/heads/main@${commit}`);
  });
});

/** Every process's command line, as `ps` shows them. */
function commandLines(): string[] {
  const lines: string[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      lines.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {
      /* gone */
    }
  }
  return lines;
}
