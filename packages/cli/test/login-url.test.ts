import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXAMPLES, createToken, makeTree, registryUrl, releaseFolder, runCli, startHttp, storeDir } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * One URL for every command, and `login`/`whoami`/`logout` (a token per server in the user's credentials file),
 * against real servers: an --auth tokens registry, a folders-only server, and a web server that is not MCP.
 */
describe('login, then every command without --token, against an --auth tokens registry', () => {
  let server: RunningServer;
  let base: string;
  let token: string;
  let config: string;
  // No SKILLPORT_TOKEN from the environment the tests run in: the stored login is what is sent.
  const env = () => ({ SKILLPORT_CONFIG_DIR: config, SKILLPORT_TOKEN: '' });
  before(async () => {
    const data = storeDir();
    token = await createToken(data, ['--user', 'alice', '--scope', 'read', '--scope', 'publish']);
    server = await startHttp(['--auth', 'tokens', '--data', data, EXAMPLES]);
    base = registryUrl(server.url);
    config = join(makeTree({}), 'config');
  });
  after(async () => {
    await server.stop();
  });

  test('login reads the token from stdin, checks it with the server, says who it is, and stores it mode 600', async () => {
    const refused = await runCli(['login', base], env(), 'skp_000000000000_not-a-real-token\n');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /refused the token/);
    const run = await runCli(['login', `${base}/mcp`], env(), `${token}\n`);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^alice on ${base} \\(scopes: publish, read; sees \\d+ skills\\)\\n$`));
    const file = join(config, 'credentials.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(config).mode & 0o777, 0o700);
    assert.equal((JSON.parse(readFileSync(file, 'utf8')) as { servers: Record<string, { token: string }> }).servers[base]?.token, token);
    assert.ok(!run.stdout.includes(token) && !run.stderr.includes(token), 'the token is never printed');
    const none = await runCli(['login', base], env());
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no token given/);
  });

  test('ls, show, install and publish send the stored token, to the base URL or /mcp alike', async () => {
    for (const url of [base, `${base}/mcp`]) {
      const ls = await runCli(['ls', url], env());
      assert.equal(ls.code, 0, ls.stderr);
      assert.match(ls.stdout, /^csv-data-cleaning\s/m);
    }
    const target = join(makeTree({}), 'skills');
    const installed = await runCli(['install', base, 'csv-data-cleaning', '--to', target], env(), undefined, dirname(target));
    assert.equal(installed.code, 0, installed.stderr);
    const published = await runCli(['publish', releaseFolder('logged-in', '1.0.0'), '--registry', `${base}/mcp`, '--version', '1.0.0'], env());
    assert.equal(published.code, 0, published.stderr);
    assert.match(published.stdout, /^Published logged-in@1\.0\.0 /m);
    const versions = await runCli(['versions', 'logged-in', '--registry', base], env());
    assert.equal(versions.code, 0, versions.stderr);
  });

  test('whoami says who and where the token came from; --token and SKILLPORT_TOKEN win over the login', async () => {
    const me = await runCli(['whoami', base], env());
    assert.equal(me.code, 0, me.stderr);
    assert.match(me.stdout, /^alice on /);
    assert.match(me.stderr, /credentials: the token stored by skillport login/);
    const flag = await runCli(['whoami', base, '--token', 'skp_000000000000_wrong'], env());
    assert.equal(flag.code, 1);
    assert.match(flag.stderr, /refused the token/);
    const fromEnv = await runCli(['ls', base], { ...env(), SKILLPORT_TOKEN: 'skp_000000000000_wrong' });
    assert.equal(fromEnv.code, 1);
  });

  test('logout forgets it; then the server asks for a token and says how', async () => {
    const out = await runCli(['logout', base], env());
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stderr, /forgot the token for /);
    const me = await runCli(['whoami', base], env());
    assert.equal(me.code, 1);
    assert.match(me.stderr, /needs a token: skillport login /);
    const ls = await runCli(['ls', base], env());
    assert.equal(ls.code, 1);
    assert.match(ls.stderr, /HTTP 401.*skillport login/);
  });
});

describe('one URL: a server that is not a registry, a page that is not MCP', () => {
  let folders: RunningServer;
  let web: ReturnType<typeof createServer>;
  let webUrl: string;
  before(async () => {
    folders = await startHttp([EXAMPLES]);
    web = createServer((_, response) => {
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end(`<!doctype html><html><head><title>Not Found</title></head><body>${'<p>lorem</p>'.repeat(200)}</body></html>`);
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await folders.stop();
    web.close();
  });

  test('client commands take the base URL; registry commands name a folders-only server as such', async () => {
    const base = registryUrl(folders.url);
    const ls = await runCli(['ls', base]);
    assert.equal(ls.code, 0, ls.stderr);
    for (const args of [
      ['publish', releaseFolder('nowhere', '1.0.0'), '--registry', base, '--version', '1.0.0'],
      ['versions', 'csv-data-cleaning', '--registry', folders.url],
    ]) {
      const run = await runCli(args);
      assert.equal(run.code, 1);
      assert.ok(
        run.stderr.endsWith(`skillport: error: ${base} is a skillport server without a registry: it serves folders; start it with --data DIR to publish\n`),
        run.stderr,
      );
    }
  });

  test('an HTML page is named in one line, never printed', async () => {
    for (const args of [
      ['ls', webUrl],
      ['versions', 'x', '--registry', webUrl],
    ]) {
      const run = await runCli(args);
      assert.equal(run.code, 1);
      assert.doesNotMatch(run.stderr, /<html|<p>/i);
      assert.ok(run.stderr.split('\n').length <= 2, run.stderr);
    }
    assert.match((await runCli(['ls', webUrl])).stderr, /answered with a web page \("Not Found"\), not MCP; is .* an MCP endpoint\?/);
  });
});
