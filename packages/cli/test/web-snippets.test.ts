import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, EXAMPLES, createToken, makeTree, registryUrl, runCli, startHttp, storeDir } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * Every snippet of the web catalog's skill page ("Use it"), taken from the page and run as shown against the server
 * that served it (an --auth tokens one): the install lines as a shell would run them, the HTTP config by a real MCP
 * client with its headers, the stdio config by spawning its command. `skillport` stands for the built CLI, as a
 * global install (`npm install -g ./packages/cli`) puts it on PATH; `<your token>` is replaced by a real token.
 */
const decode = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

function snippet(page: string, id: string): string {
  const match = new RegExp(`<pre class="code" id="${id}"[^>]*><code>([\\s\\S]*?)</code></pre>`).exec(page);
  assert.ok(match, `no ${id} snippet on the page`);
  return decode(match[1]!);
}

/** Splits a shell line into words (double quotes only, which is what the page uses). */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}

describe('the skill page snippets run as shown', () => {
  let server: RunningServer;
  let token: string;
  let page: string;
  before(async () => {
    const data = storeDir();
    token = await createToken(data, ['--user', 'reader', '--scope', 'read']);
    server = await startHttp(['--auth', 'tokens', '--data', data, EXAMPLES]);
    const answer = await fetch(`${registryUrl(server.url)}/skills/csv-data-cleaning`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(answer.status, 200);
    page = await answer.text();
  });
  after(async () => {
    await server.stop();
  });

  test('no npx (skillport is not on the npm registry)', () => {
    assert.doesNotMatch(page, /npx/);
  });

  test('"Install into a project": login with the token, then install, in a fresh project', async () => {
    const lines = snippet(page, 'use-install').split('\n');
    assert.equal(lines.length, 2, lines.join('\n'));
    const project = makeTree({});
    const env = { SKILLPORT_CONFIG_DIR: join(project, '.config'), SKILLPORT_TOKEN: '' };
    // echo "<your token>" | skillport login URL
    const [echo, login] = lines[0]!.split(' | ');
    const piped = words(echo!)[1]!.replace('<your token>', token);
    const [command, ...args] = words(login!);
    assert.equal(command, 'skillport');
    const loggedIn = await runCli(args, env, `${piped}\n`, project);
    assert.equal(loggedIn.code, 0, loggedIn.stderr);
    const [install, ...installArgs] = words(lines[1]!);
    assert.equal(install, 'skillport');
    const installed = await runCli(installArgs, env, undefined, project);
    assert.equal(installed.code, 0, installed.stderr);
    assert.ok(existsSync(join(project, '.claude/skills/csv-data-cleaning/SKILL.md')));
    assert.ok(existsSync(join(project, 'skillport-lock.json')));
  });

  test('"MCP client over HTTP": a real client with the config’s URL and headers lists the skill', async () => {
    const config = JSON.parse(snippet(page, 'use-http')) as { mcpServers: { skillport: { url: string; headers: Record<string, string> } } };
    const entry = config.mcpServers.skillport;
    const headers = Object.fromEntries(Object.entries(entry.headers).map(([key, value]) => [key, value.replace('<your token>', token)]));
    const client = new Client({ name: 'snippet', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers } }));
    try {
      const tools = await client.callTool({ name: 'list_skills', arguments: {} });
      assert.match(JSON.stringify(tools.content), /csv-data-cleaning/);
    } finally {
      await client.close();
    }
  });

  test('"MCP client over stdio": its command, spawned in the project, serves the installed folder', async () => {
    const config = JSON.parse(snippet(page, 'use-stdio')) as { mcpServers: { skills: { command: string; args: string[] } } };
    const entry = config.mcpServers.skills;
    assert.equal(entry.command, 'skillport');
    const project = makeTree({});
    mkdirSync(join(project, '.claude/skills'), { recursive: true });
    assert.equal((await runCli(['install', EXAMPLES, 'csv-data-cleaning', '--to', '.claude/skills'], {}, undefined, project)).code, 0);
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, ...entry.args], cwd: project, stderr: 'pipe' });
    const client = new Client({ name: 'snippet', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = await client.callTool({ name: 'list_skills', arguments: {} });
      assert.match(JSON.stringify(tools.content), /csv-data-cleaning/);
    } finally {
      await client.close();
    }
    assert.match(readFileSync(join(project, '.claude/skills/csv-data-cleaning/SKILL.md'), 'utf8'), /csv-data-cleaning/);
  });
});
