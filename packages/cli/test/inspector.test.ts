import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeZip } from '@skillport/test-kit';
import { CLI, EXAMPLES, REPO, makeTree, skillMd, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * The official MCP Inspector's CLI mode (`@modelcontextprotocol/inspector --cli`) listing and calling against the
 * server over stdio and Streamable HTTP (both protocol eras), and its SEP-2640 `--verify` over skills/list. The
 * Inspector needs Node >= 22.19: the test uses the Node 22 of .tools (or SKILLPORT_INSPECTOR_NODE) and the Inspector
 * at SKILLPORT_INSPECTOR_CLI or in .tools/inspector (`SKILLPORT_INSPECTOR=1 npm test` installs it there), and is
 * skipped, saying why, when either is missing.
 */
const INSPECTOR =
  process.env['SKILLPORT_INSPECTOR_CLI'] ?? join(REPO, '.tools/inspector/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
const NODE = process.env['SKILLPORT_INSPECTOR_NODE'] ?? process.env['SKILLPORT_CONFORMANCE_NODE'] ?? join(REPO, '.tools/node_modules/node/bin/node');

function missing(): string | undefined {
  if (!existsSync(INSPECTOR)) return `the MCP Inspector is not installed (${INSPECTOR}); SKILLPORT_INSPECTOR=1 npm test installs it`;
  if (!existsSync(NODE)) return `no Node 22 for the Inspector (${NODE})`;
  return undefined;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function inspector(args: string[], home: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      NODE,
      [INSPECTOR, '--cli', '--format', 'json', '-q', '--connect-timeout', '120000', ...args],
      // Its catalog and client settings go to a scratch home, not the user's.
      {
        env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json'), MCP_CLIENT_CONFIG_PATH: join(home, 'client.json'), NO_COLOR: '1' },
        timeout: 180_000,
        maxBuffer: 32 * 1024 * 1024,
      },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

const json = (run: Run): { result: Record<string, unknown> } => {
  assert.equal(run.code, 0, `inspector failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { result: Record<string, unknown> };
};

const skip = missing();

describe('MCP Inspector CLI against skillport', { skip }, () => {
  let home: string;
  let archive: string;
  let server: RunningServer;
  const pitfalls = readFileSync(join(EXAMPLES, 'csv-data-cleaning/references/pitfalls.md'), 'utf8');
  const manifest = readFileSync(join(EXAMPLES, 'csv-data-cleaning/SKILL.md'), 'utf8');
  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'skillport-inspector-'));
    const dir = makeTree({});
    archive = join(dir, 'zipped.skill');
    writeFileSync(
      archive,
      makeZip([
        { path: 'zipped/SKILL.md', content: skillMd('zipped') },
        { path: 'zipped/notes.md', content: '# Notes\n' },
      ]),
    );
    server = await startHttp([EXAMPLES, archive]);
  });
  after(() => server?.stop());

  const stdioTarget = () => [process.execPath, CLI, 'serve', '--no-cache', EXAMPLES, archive];
  const targets: Array<[string, () => string[]]> = [
    ['stdio', stdioTarget],
    ['HTTP, 2025-11-25 era', () => [server.url, '--protocol-era', 'legacy']],
    ['HTTP, 2026-07-28 era', () => [server.url, '--protocol-era', 'modern']],
  ];

  for (const [label, target] of targets) {
    test(`tools/list, tools/call, resources/read, prompts/get (${label})`, async () => {
      const tools = json(await inspector([...target(), '--method', 'tools/list'], home));
      assert.deepEqual((tools.result['tools'] as Array<{ name: string }>).map((tool) => tool.name).sort(), [
        'activate_skill',
        'list_skills',
        'read_skill_resource',
      ]);
      const activated = json(
        await inspector([...target(), '--method', 'tools/call', '--tool-name', 'activate_skill', '--tool-arg', 'name=csv-data-cleaning'], home),
      );
      assert.match(
        (activated.result['content'] as Array<{ text: string }>)[0]!.text,
        /^<skill_content name="csv-data-cleaning" uri="skill:\/\/csv-data-cleaning\/SKILL\.md" digest="sha256:[0-9a-f]{64}">/,
      );
      const read = json(
        await inspector(
          [...target(), '--method', 'tools/call', '--tool-name', 'read_skill_resource', '--tool-arg', 'name=csv-data-cleaning', 'path=references/pitfalls.md'],
          home,
        ),
      );
      assert.equal((read.result['content'] as Array<{ text: string }>)[0]!.text, pitfalls);
      const resource = json(await inspector([...target(), '--method', 'resources/read', '--uri', 'skill://csv-data-cleaning/SKILL.md'], home));
      assert.equal((resource.result['contents'] as Array<{ text: string }>)[0]!.text, manifest);
      const prompt = json(await inspector([...target(), '--method', 'prompts/get', '--prompt-name', 'zipped'], home));
      const messages = prompt.result['messages'] as Array<{ content: { type: string; text?: string } }>;
      assert.ok(
        messages.some((message) => message.content.text?.includes('<skill_content name="zipped"')),
        JSON.stringify(messages).slice(0, 300),
      );
    });
  }

  test('skills/list --verify: the Inspector checks every skill and file against its digests (archive included)', async () => {
    for (const [, target] of targets) {
      const run = await inspector([...target(), '--method', 'skills/list', '--verify'], home);
      assert.equal(run.code, 0, run.stderr);
      const reports = run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { uri: string; conformance: unknown[]; files: Array<{ status: string }> });
      assert.equal(reports.length, 7);
      assert.ok(reports.some((report) => report.uri === 'skill://zipped/SKILL.md'));
      for (const report of reports) {
        assert.deepEqual(report.conformance, [], report.uri);
        assert.ok(report.files.length > 0 && report.files.every((file) => file.status === 'verified'), report.uri);
      }
    }
  });
});
