import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { chmodSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { CLI, EXAMPLES, connectHttp, eventually, makeTree, runCli, skillMd } from '@skillport/test-kit';

/**
 * What `serve` decides at start-up and says about it (issue 10, items 4 to 8): start-up reads the disk, not the
 * cache; an unusable cache folder is a warning; a missing source or a SKILL.md given stops it with a clear line;
 * no option swallows the sources after it; the start-up line names the auth mode and the policy file.
 */

interface Started {
  url?: string;
  code?: number;
  stderr: string;
  stop(): Promise<void>;
}

/**
 * Runs `skillport serve --http --port 0 ...args` (no `--no-cache` added) until it prints the line with its URL
 * (then it keeps running) or exits.
 */
function serve(args: string[], env: NodeJS.ProcessEnv = {}, prefix: string[] = []): Promise<Started> {
  const argv = [...prefix, process.execPath, CLI, 'serve', '--http', '--port', '0', ...args];
  const proc = spawn(argv[0]!, argv.slice(1), { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const stop = () =>
    new Promise<void>((done) => {
      if (proc.exitCode !== null) return done();
      proc.once('exit', () => done());
      proc.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve neither started nor exited in 120 s:\n${stderr}`)), 120_000);
    proc.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = / on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          get stderr() {
            return stderr;
          },
          stop,
        });
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stderr, stop });
    });
  });
}

async function names(url: string): Promise<string[]> {
  const client = await connectHttp(url, 'modern');
  try {
    return (await new SkillsClient(client).list()).skills.map((skill) => String(skill.frontmatter.name)).sort();
  } finally {
    await client.close();
  }
}

/** The HTTP status of an `initialize` POSTed to `url` with the given Host header (fetch cannot set Host). */
function statusWithHost(url: string, host: string): Promise<number> {
  const target = new URL(url);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: {
          host,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          connection: 'close',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const BROKEN = '---\nname: alpha\n---\nno description\n';

describe('start-up reads the disk, not the persisted catalog', () => {
  test('a file changed while the server was down: the restart checks it against the disk and starts (it died on the reload line)', async () => {
    const dir = makeTree({ 'alpha/SKILL.md': skillMd('alpha'), 'alpha/notes.md': 'first\n' });
    const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-cache-'));
    const first = await serve(['--cache-dir', cacheDir, dir]);
    assert.ok(first.url, first.stderr);
    await eventually(async () => (readdirSync(cacheDir).some((name) => name.startsWith('catalog-')) ? true : undefined), 60_000, 'the catalog persisted');
    await first.stop();
    writeFileSync(join(dir, 'alpha/notes.md'), 'second, longer\n');
    const again = await serve(['--cache-dir', cacheDir, dir]);
    try {
      assert.ok(again.url, again.stderr);
      assert.doesNotMatch(again.stderr, /error/);
      assert.deepEqual(await names(again.url!), ['alpha']);
    } finally {
      await again.stop();
    }
  });

  test('a skill fixed while the server was down: --strict starts, and no stale error nor stale count is printed', async () => {
    const dir = makeTree({ 'alpha/SKILL.md': BROKEN });
    const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-cache-'));
    const first = await serve(['--cache-dir', cacheDir, dir]);
    assert.ok(first.url, first.stderr);
    assert.match(first.stderr, /Missing required field in frontmatter: description/);
    assert.match(first.stderr, /serving 0 skills/);
    // The catalog (with alpha's problem) is persisted a moment after the start, and on the way out.
    await eventually(
      async () => (readdirSync(cacheDir).some((name) => name.startsWith('catalog-') && name.endsWith('.json')) ? true : undefined),
      60_000,
      'the catalog persisted',
    );
    await first.stop();
    assert.ok(
      readdirSync(cacheDir).some((name) => name.startsWith('catalog-') && name.endsWith('.json')),
      `a persisted catalog to restart from, in ${readdirSync(cacheDir).join()}:\n${first.stderr}`,
    );

    writeFileSync(join(dir, 'alpha/SKILL.md'), skillMd('alpha'));

    const strict = await serve(['--strict', '--cache-dir', cacheDir, dir]);
    try {
      assert.ok(strict.url, `--strict refused a skill fixed since the last run:\n${strict.stderr}`);
      assert.doesNotMatch(strict.stderr, /description/);
      assert.match(strict.stderr, /serving 1 skill from/);
      assert.deepEqual(await names(strict.url!), ['alpha']);
    } finally {
      await strict.stop();
    }

    // Broken again while down: the restored catalog (now clean) must not let --strict start.
    writeFileSync(join(dir, 'alpha/SKILL.md'), BROKEN);
    const refused = await serve(['--strict', '--cache-dir', cacheDir, dir]);
    await refused.stop();
    assert.equal(refused.url, undefined, refused.stderr);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /--strict: 1 problem/);

    // Fixed again, without --strict: the restart says what the disk holds.
    writeFileSync(join(dir, 'alpha/SKILL.md'), skillMd('alpha'));
    const lenient = await serve(['--cache-dir', cacheDir, dir]);
    try {
      assert.ok(lenient.url, lenient.stderr);
      assert.doesNotMatch(lenient.stderr, /description/);
      assert.doesNotMatch(lenient.stderr, /serving 0 skills/);
      assert.match(lenient.stderr, /serving 1 skill from .*last run's catalog, checked against the disk/);
      assert.deepEqual(await names(lenient.url!), ['alpha']);
    } finally {
      await lenient.stop();
    }
  });
});

describe('an unusable cache folder is one warning, and the server serves on', () => {
  const dir = makeTree({ 'alpha/SKILL.md': skillMd('alpha') });
  const file = join(makeTree({ 'a-file': 'not a folder\n' }), 'a-file');
  for (const [what, args, env] of [
    ['--cache-dir under a file', ['--cache-dir', join(file, 'cache')], {}],
    ['the default cache folder under a file (XDG_CACHE_HOME, HOME)', [], { XDG_CACHE_HOME: join(file, 'cache'), HOME: file }],
  ] as const) {
    test(what, async () => {
      const server = await serve([...args, dir], env);
      try {
        assert.ok(server.url, server.stderr);
        // The catalog is persisted a second after start, and again on the way out: both must be survived.
        await new Promise((r) => setTimeout(r, 1500));
        assert.deepEqual(await names(server.url!), ['alpha']);
        assert.equal(server.stderr.match(/cannot be used/g)?.length, 1, server.stderr);
        assert.match(server.stderr, /warning: cache folder .* cannot be used \(ENOTDIR\); serving without a cache/);
      } finally {
        await server.stop();
      }
      assert.doesNotMatch(server.stderr, /ENOTDIR: |at .*\.js:\d+/, 'no stack trace');
    });
  }
});

describe('a read-only home (EACCES)', () => {
  // Root writes anywhere, so the server runs as nobody (setpriv, util-linux) against a home it may not write.
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));
  // nobody must be able to read the checkout (a clone inside a private mktemp folder is not).
  const readable = () =>
    spawnSync(setpriv!, ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', `require('fs').accessSync(${JSON.stringify(CLI)})`])
      .status === 0;
  const skip =
    process.getuid?.() !== 0
      ? 'needs root to run the server as another user'
      : setpriv === undefined
        ? 'needs setpriv (util-linux)'
        : !readable()
          ? `user nobody cannot read ${CLI} (a folder above it is private)`
          : false;
  test('one warning, and the server serves on', { skip }, async () => {
    const dir = makeTree({ 'alpha/SKILL.md': skillMd('alpha') });
    const home = makeTree({ '.keep': '' });
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'alpha'), 0o755);
    chmodSync(home, 0o555);
    const server = await serve([dir], { HOME: home, XDG_CACHE_HOME: '' }, [setpriv!, '--reuid=65534', '--regid=65534', '--clear-groups']);
    try {
      assert.ok(server.url, server.stderr);
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual(await names(server.url!), ['alpha']);
      assert.equal(server.stderr.match(/cannot be used/g)?.length, 1, server.stderr);
      assert.match(server.stderr, /warning: cache folder .* cannot be used \(EACCES\); serving without a cache/);
    } finally {
      await server.stop();
    }
    assert.doesNotMatch(server.stderr, /at .*\.js:\d+/, 'no stack trace');
  });
});

describe('sources that cannot be served stop the start with a clear line', () => {
  test('a path that does not exist: exit 1, not "serving 0 skills"', async () => {
    const missing = join(makeTree({}), 'no-such-folder');
    const result = await runCli(['serve', '--no-cache', missing]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /error: Path does not exist: .*no-such-folder/);
    assert.doesNotMatch(result.stderr, /serving/);
    // Beside a good folder, too.
    const good = makeTree({ 'alpha/SKILL.md': skillMd('alpha') });
    const mixed = await runCli(['serve', '--no-cache', good, missing]);
    assert.equal(mixed.code, 1, mixed.stderr);
    assert.doesNotMatch(mixed.stderr, /serving/);
  });

  test('a SKILL.md file: say to pass its folder', async () => {
    const dir = makeTree({ 'alpha/SKILL.md': skillMd('alpha') });
    const result = await runCli(['serve', '--no-cache', join(dir, 'alpha/SKILL.md')]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /is a skill's SKILL\.md: pass its folder, .*alpha/);
    assert.doesNotMatch(result.stderr, /not a skill archive/);
  });
});

describe('options never swallow the sources after them', () => {
  test('serve --allowed-host NAME DIR serves DIR, and the option repeats', async () => {
    const dir = makeTree({ 'alpha/SKILL.md': skillMd('alpha') });
    const server = await serve(['--no-cache', '--allowed-host', 'skills.example.com', '--allowed-host', 'other.example.com', dir]);
    try {
      assert.ok(server.url, server.stderr);
      assert.deepEqual(await names(server.url!), ['alpha']);
      for (const host of ['skills.example.com', 'other.example.com', 'evil.example.com']) {
        const status = await statusWithHost(server.url!, host);
        if (host === 'evil.example.com') assert.equal(status, 403, host);
        else assert.notEqual(status, 403, host);
      }
    } finally {
      await server.stop();
    }
  });

  test('publish --tag and token create --org/--project/--scope repeat, never variadic', async () => {
    const data = mkdtempSync(join(tmpdir(), 'skillport-data-'));
    const created = await runCli([
      'token',
      'create',
      '--data',
      data,
      '--user',
      'alice',
      '--org',
      'acme',
      '--org',
      'beta',
      '--scope',
      'publish',
      '--scope',
      'read',
      '--json',
    ]);
    assert.equal(created.code, 0, created.stderr);
    const record = JSON.parse(created.stdout) as { orgs: string[]; scopes: string[] };
    assert.deepEqual(record.orgs, ['acme', 'beta']);
    assert.deepEqual([...record.scopes].sort(), ['publish', 'read']);
    const bad = await runCli(['token', 'create', '--data', data, '--user', 'bob', '--scope', 'root']);
    assert.equal(bad.code, 2);
    const skill = makeTree({ 'alpha/SKILL.md': skillMd('alpha', undefined, 'metadata:\n  version: 1.0.0\n') });
    // The folder right after --tag: a variadic --tag would take it as a tag.
    const published = await runCli(['publish', '--data', data, '--json', '--tag', 'beta', '--tag', 'stable', join(skill, 'alpha')]);
    assert.equal(published.code, 0, published.stderr);
    const tags = Object.keys((JSON.parse(published.stdout) as { tags: Record<string, string> }).tags);
    assert.ok(tags.includes('beta') && tags.includes('stable'), tags.join());
  });
});

describe('the start-up line says what is in force', () => {
  test('auth mode and policy file are named; --policy without --auth is warned about', async () => {
    const dir = makeTree({ 'alpha/SKILL.md': skillMd('alpha') });
    const policy = join(makeTree({ 'policy.yaml': 'default: public\n' }), 'policy.yaml');
    const server = await serve(['--no-cache', '--policy', policy, dir]);
    try {
      assert.ok(server.url, server.stderr);
      assert.match(server.stderr, /warning: --policy without --auth: every caller is anonymous/);
      assert.match(server.stderr, /serving 1 skill from .* on http:\S+ \(auth: none \(anonymous\), policy: \S*policy\.yaml/);
    } finally {
      await server.stop();
    }
    const data = mkdtempSync(join(tmpdir(), 'skillport-data-'));
    const tokens = await serve(['--no-cache', '--auth', 'tokens', '--data', data, '--policy', policy, dir]);
    try {
      assert.ok(tokens.url, tokens.stderr);
      assert.doesNotMatch(tokens.stderr, /--policy without --auth/);
      assert.match(tokens.stderr, /\(auth: tokens, policy: \S*policy\.yaml/);
    } finally {
      await tokens.stop();
    }
    const plain = await serve(['--no-cache', dir]);
    try {
      assert.match(plain.stderr, /\(auth: none \(anonymous\), no policy/);
    } finally {
      await plain.stop();
    }
  });

  test('a stdio server whose client hangs up during start-up exits (the end of stdin is heard whenever it comes)', async () => {
    // The client closes stdin at once: the end arrives while start-up is still checking the disk. Before the fix the
    // listener was added after that check and the process lived on with no client.
    for (const args of [[], ['--no-cache'], ['--no-watch']]) {
      const proc = spawn(process.execPath, [CLI, 'serve', ...args, EXAMPLES], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['pipe', 'ignore', 'pipe'] });
      proc.stdin.end();
      let stderr = '';
      proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null | 'alive'>((done) => {
        const timer = setTimeout(() => {
          proc.kill('SIGKILL');
          done('alive');
        }, 60_000);
        proc.once('exit', (status) => {
          clearTimeout(timer);
          done(status);
        });
      });
      assert.equal(code, 0, `serve ${args.join(' ')} after its client hung up: ${code === 'alive' ? 'still running 60 s later' : `exit ${code}`}\n${stderr}`);
    }
  });
});
