import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import type { Client } from '@modelcontextprotocol/client';
import { CLI, connectHttp, makeTree, removeTrees, skillMd, startHttp, tempFolder } from '@skillport/test-kit';
import type { Era, RunningServer, TreeSpec } from '@skillport/test-kit';

/**
 * Nothing a skill folder holds may crash or stall `skillport serve`: every bad skill is reported once on stderr with
 * its reason, the good ones keep being served (and verify), `--strict` refuses to start, URI clashes stop startup,
 * and malformed HTTP requests get clean HTTP errors. All against real processes and real MCP clients.
 */

// Every server is stopped in its own hooks; the folders go when the file is done.
after(removeTrees);

// ---------------------------------------------------------------------------------------------------------------
// The hostile tree
// ---------------------------------------------------------------------------------------------------------------

function aliasBomb(): string {
  // "Billion laughs": each level refers nine times to the one before; fully expanded it would be 9^10 strings.
  let yaml = 'name: alias-bomb\ndescription: An alias bomb.\nl0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n';
  for (let level = 1; level <= 10; level++)
    yaml += `l${level}: &l${level} [${Array(9)
      .fill(`*l${level - 1}`)
      .join(', ')}]\n`;
  return `---\n${yaml}---\n\n# Boom\n`;
}

function hugeFrontmatter(): string {
  const lines: string[] = ['name: huge-frontmatter', 'description: Two megabytes of YAML.'];
  let size = 0;
  for (let i = 0; size < 2 * 1024 * 1024; i++) {
    const line = `key${i}: ${'v'.repeat(60)}`;
    lines.push(line);
    size += line.length + 1;
  }
  return `---\n${lines.join('\n')}\n---\n\n# Huge\n`;
}

const deepFlow = (levels: number, name: string) => `---\nname: ${name}\ndescription: Deep.\nx: ${'['.repeat(levels)}${']'.repeat(levels)}\n---\n\n# Deep\n`;

const GOOD_FILES: Record<string, string> = {
  'good/SKILL.md': skillMd('good'),
  'good/references/guide.md': '# Guide\n\nRead me.\n',
  'good/scripts/run.sh': '#!/bin/sh\necho ok\n',
};

function hostileSpec(): TreeSpec {
  const spec: TreeSpec = {
    ...GOOD_FILES,
    'bad-utf8/SKILL.md': Buffer.concat([
      Buffer.from('---\nname: bad-utf8\ndescription: Broken '),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
      Buffer.from('\n---\n\n# Bad\n'),
    ]),
    'alias-bomb/SKILL.md': aliasBomb(),
    'huge-frontmatter/SKILL.md': hugeFrontmatter(),
    // 50k levels is past the frontmatter cap (refused before parsing); 32k levels fits under it and reaches the parser.
    'deep-nesting/SKILL.md': deepFlow(50_000, 'deep-nesting'),
    'deep-nesting-in-cap/SKILL.md': deepFlow(32_000, 'deep-nesting-in-cap'),
    'no-frontmatter/SKILL.md': '# Just markdown\n\nNo frontmatter at all.\n',
    'unclosed/SKILL.md': '---\nname: unclosed\ndescription: Never closed.\n\n# Body that is still YAML\n',
    'duplicate-keys/SKILL.md': '---\nname: duplicate-keys\ndescription: One.\ndescription: Two.\n---\n\n# Dup\n',
    'list-frontmatter/SKILL.md': '---\n- name: list-frontmatter\n- description: A list.\n---\n\n# List\n',
    'Upper-Name/SKILL.md': skillMd('Upper-Name'),
    'long-description/SKILL.md': skillMd('long-description', 'x'.repeat(1025)),
    'bad-metadata/SKILL.md': skillMd('bad-metadata', undefined, 'metadata:\n  author: someone\n  version: 2\n'),
    'has-fifo/SKILL.md': skillMd('has-fifo'),
    'has-fifo/references/notes.md': '# Notes\n',
    'unknown-fields/SKILL.md': skillMd('unknown-fields', undefined, 'homepage: https://example.com\nx-extra:\n  nested: true\n'),
    'folder-name/SKILL.md': skillMd('real-name'),
    'folder-name/references/more.md': '# More\n',
    'too-many-files/SKILL.md': skillMd('too-many-files'),
  };
  for (let i = 0; i < 512; i++) spec[`too-many-files/files/f${String(i).padStart(3, '0')}.txt`] = `${i}\n`;
  return spec;
}

const HOSTILE = join(tempFolder('hostile'), 'skills');
makeTree(hostileSpec(), HOSTILE);
execFileSync('mkfifo', [join(HOSTILE, 'has-fifo/pipe')]);
execFileSync('mkfifo', [join(HOSTILE, 'has-fifo/references/pipe.md')]);
// A file name that is not UTF-8: not served (it cannot round-trip as a URI), the skill still is.
writeFileSync(Buffer.from(`${join(HOSTILE, 'has-fifo/references')}/bad-\xff-name.md`, 'latin1'), 'latin1 name\n');

/** Served skills: URI -> the folder and the files it must list. */
const SERVED: Record<string, { folder: string; files: string[] }> = {
  'skill://good/SKILL.md': { folder: 'good', files: ['SKILL.md', 'references/guide.md', 'scripts/run.sh'] },
  'skill://has-fifo/SKILL.md': { folder: 'has-fifo', files: ['SKILL.md', 'references/notes.md'] },
  // Served under its frontmatter name, not its folder name.
  'skill://real-name/SKILL.md': { folder: 'folder-name', files: ['SKILL.md', 'references/more.md'] },
  'skill://unknown-fields/SKILL.md': { folder: 'unknown-fields', files: ['SKILL.md'] },
};

/** Each folder serve must complain about, once, with a recognisable reason. */
const REPORTED: ReadonlyArray<{ folder: string; severity: 'error' | 'warning'; reason: RegExp; count?: number }> = [
  { folder: 'bad-utf8', severity: 'error', reason: /not valid UTF-8/ },
  { folder: 'alias-bomb', severity: 'error', reason: /Invalid YAML in frontmatter: .*alias/i },
  { folder: 'huge-frontmatter', severity: 'error', reason: /frontmatter exceeds 65536 bytes/ },
  { folder: 'deep-nesting', severity: 'error', reason: /frontmatter exceeds 65536 bytes/ },
  { folder: 'deep-nesting-in-cap', severity: 'error', reason: /Invalid YAML in frontmatter at line \d+, column \d+: / },
  { folder: 'no-frontmatter', severity: 'error', reason: /must start with YAML frontmatter/ },
  { folder: 'unclosed', severity: 'error', reason: /not properly closed/ },
  { folder: 'duplicate-keys', severity: 'error', reason: /Invalid YAML in frontmatter at line \d+, column \d+: .*unique/i },
  { folder: 'list-frontmatter', severity: 'error', reason: /frontmatter must be a YAML mapping/ },
  { folder: 'Upper-Name', severity: 'error', reason: /'Upper-Name' must be lowercase/ },
  { folder: 'long-description', severity: 'error', reason: /Description exceeds 1024 character limit \(1025 chars\)/ },
  { folder: 'bad-metadata', severity: 'error', reason: /'metadata' must map strings to strings \(not: version\)/ },
  { folder: 'too-many-files', severity: 'error', reason: /more than 512 files/ },
  { folder: 'unknown-fields', severity: 'warning', reason: /Unexpected fields in frontmatter: homepage, x-extra/ },
  { folder: 'folder-name', severity: 'warning', reason: /Directory name 'folder-name' must match skill name 'real-name'/ },
  { folder: 'has-fifo', severity: 'warning', reason: /not a regular file \(FIFO|bytes that are not UTF-8/, count: 3 },
];
const NOT_SERVED = REPORTED.filter((entry) => entry.severity === 'error').length;

/** stderr lines about one folder of `root` (its path followed by `/` or `:`). */
function linesAbout(stderr: string, root: string, folder: string): string[] {
  const prefix = join(root, folder);
  return stderr.split('\n').filter((line) => line.includes(`${prefix}/`) || line.includes(`${prefix}:`));
}

function countOf(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** Every served skill is listed (and nothing else), and every file of each reads back verified and equal to disk. */
async function verifyServed(client: Client, root: string, expected: Record<string, { folder: string; files: string[] }>): Promise<Skill[]> {
  const skills = new SkillsClient(client);
  const listing = await skills.list();
  assert.equal(listing.invalid.length, 0);
  assert.deepEqual(listing.skills.map((skill) => skill.uri).sort(), Object.keys(expected).sort());
  for (const skill of listing.skills) {
    const { folder, files } = expected[skill.uri]!;
    const rootUri = skill.uri.slice(0, -'SKILL.md'.length);
    const resources = skill.resources as Array<{ uri: string }>;
    assert.deepEqual(resources.map((resource) => decodeURIComponent(resource.uri.slice(rootUri.length))).sort(), [...files].sort(), skill.uri);
    for (const resource of resources) {
      const file = await skills.read(skill, resource.uri);
      assert.equal(file.verified, true);
      const disk = readFileSync(join(root, folder, decodeURIComponent(resource.uri.slice(rootUri.length))));
      assert.equal(Buffer.compare(Buffer.from(file.bytes), disk), 0, resource.uri);
    }
  }
  return listing.skills;
}

/** Runs the CLI to completion, killed after `timeoutMs` so that a server that wrongly starts cannot hang the suite. */
function runCliBounded(args: string[], timeoutMs = 120_000): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; stdout: string }> {
  return new Promise((done) => {
    const proc = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('exit', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

// ---------------------------------------------------------------------------------------------------------------

describe('serve: a tree of hostile skills', () => {
  let server: RunningServer;
  before(async () => {
    // startHttp gives up after 120 s: a FIFO opened for reading or a runaway parser would hang the start for ever.
    server = await startHttp([HOSTILE]);
  });
  after(async () => {
    await server.stop();
  });

  test('starts (no FIFO is opened, no parser runs away) and answers', async () => {
    // How fast it starts is measured in bench/; here only that it starts and serves at all.
    assert.equal(server.proc.exitCode, null);
    const client = await connectHttp(server.url, 'modern');
    try {
      const read = await client.readResource({ uri: 'skill://good/SKILL.md' });
      assert.equal(read.contents.length, 1);
    } finally {
      await client.close();
    }
  });

  for (const era of ['legacy', 'modern'] as const satisfies readonly Era[]) {
    test(`serves exactly the good and lenient skills, every file verified (${era})`, async () => {
      const client = await connectHttp(server.url, era);
      try {
        const listed = await verifyServed(client, HOSTILE, SERVED);
        const lenient = listed.find((skill) => skill.uri === 'skill://unknown-fields/SKILL.md')!;
        assert.equal(lenient.frontmatter['homepage'], 'https://example.com', 'unknown fields kept in the entry');
        assert.deepEqual(lenient.frontmatter['x-extra'], { nested: true });
        // Skills that are not served are unknown to every method, and the FIFO is not a file of its skill.
        const skills = new SkillsClient(client);
        for (const { folder, severity } of REPORTED) {
          if (severity !== 'error') continue;
          await assert.rejects(skills.get(`skill://${folder}/SKILL.md`), (error: { code?: number }) => error.code === -32602, folder);
          await assert.rejects(
            client.readResource({ uri: `skill://${folder}/SKILL.md` }),
            (error: { code?: number }) => typeof error.code === 'number',
            folder,
          );
        }
        for (const uri of ['skill://has-fifo/pipe', 'skill://has-fifo/references/pipe.md', 'skill://folder-name/SKILL.md']) {
          await assert.rejects(client.readResource({ uri }), (error: { code?: number }) => typeof error.code === 'number', uri);
        }
        const dir = await skills.readDirectory('skill://has-fifo/references');
        assert.deepEqual(
          dir.resources.map((child) => child.name),
          ['notes.md'],
        );
      } finally {
        await client.close();
      }
    });
  }

  test('each bad skill is reported once on stderr, with its reason', () => {
    const stderr = server.stderr();
    for (const { folder, severity, reason, count } of REPORTED) {
      const lines = linesAbout(stderr, HOSTILE, folder);
      assert.equal(lines.length, count ?? 1, `${folder}: one line expected, got:\n${lines.join('\n')}\n--- stderr ---\n${stderr}`);
      for (const line of lines) {
        assert.ok(line.startsWith(`skillport: ${severity}: ${join(HOSTILE, folder)}`), line);
        assert.match(line, reason);
      }
    }
    // Every line is unique (nothing reported twice), and the good skill is not mentioned at all.
    const problemLines = stderr.split('\n').filter((line) => /^skillport: (error|warning): /.test(line));
    assert.equal(new Set(problemLines).size, problemLines.length, stderr);
    assert.deepEqual(linesAbout(stderr, HOSTILE, 'good'), []);
    // The FIFOs are named, each once; no stack trace escaped.
    for (const fifo of ['has-fifo/pipe', 'has-fifo/references/pipe.md']) {
      assert.equal(countOf(stderr, `${join(HOSTILE, fifo)}: not a regular file (FIFO, socket or device); not served`), 1, fifo);
    }
    assert.doesNotMatch(stderr, /\n\s+at .+:\d+:\d+/, 'no stack trace');
    const total = Object.keys(SERVED).length;
    assert.equal(countOf(stderr, `skillport: serving ${total} skills from ${HOSTILE} (${NOT_SERVED} not served: see the errors above)`), 1, stderr);
  });

  // The test's timeout is a hang guard (a stalled event loop never answers), not a speed limit.
  test('the big frontmatter, deep nesting and alias bomb did not stall the server for later requests', { timeout: 60_000 }, async () => {
    const client = await connectHttp(server.url, 'modern');
    try {
      for (let i = 0; i < 20; i++) assert.equal((await client.readResource({ uri: 'skill://good/SKILL.md' }, { cacheMode: 'refresh' })).contents.length, 1);
    } finally {
      await client.close();
    }
  });

  test('--strict refuses to start on the same tree, and says why', async () => {
    const run = await runCliBounded(['serve', '--strict', '--no-cache', '--http', '--port', '0', HOSTILE]);
    assert.equal(run.signal, null, `exited by itself (not killed): ${run.stderr}`);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /skillport: error: --strict: \d+ problem\(s\) in the skill folders/);
    assert.doesNotMatch(run.stderr, /serving|on http:\/\//, 'never started listening');
    // It says which folders are at fault.
    for (const { folder, reason } of REPORTED)
      assert.ok(
        linesAbout(run.stderr, HOSTILE, folder).some((line) => reason.test(line)),
        folder,
      );
  });
});

describe('serve: byte limit', () => {
  test('--max-bytes 1MiB refuses a larger skill and serves the rest', async () => {
    const root = join(tempFolder('bytes'), 'skills');
    const chunk = Buffer.alloc(600 * 1024, 'a');
    makeTree(
      {
        ...GOOD_FILES,
        'too-big/SKILL.md': skillMd('too-big'),
        'too-big/assets/one.bin': chunk,
        'too-big/assets/two.bin': chunk,
        'just-fits/SKILL.md': skillMd('just-fits'),
        'just-fits/assets/one.bin': Buffer.alloc(1024 * 1024 - 4096, 'b'),
      },
      root,
    );
    const server = await startHttp(['--max-bytes', '1MiB', root]);
    try {
      const lines = linesAbout(server.stderr(), root, 'too-big');
      assert.equal(lines.length, 1, server.stderr());
      assert.match(lines[0]!, /^skillport: error: .*skill is larger than 1 MiB \(the limit\); not served$/);
      assert.deepEqual(linesAbout(server.stderr(), root, 'just-fits'), []);
      const client = await connectHttp(server.url, 'legacy');
      try {
        await verifyServed(client, root, {
          'skill://good/SKILL.md': SERVED['skill://good/SKILL.md']!,
          'skill://just-fits/SKILL.md': { folder: 'just-fits', files: ['SKILL.md', 'assets/one.bin'] },
        });
        await assert.rejects(client.readResource({ uri: 'skill://too-big/assets/one.bin' }), (error: { code?: number }) => typeof error.code === 'number');
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });

  test('--strict starts on a clean tree', async () => {
    const root = makeTree(GOOD_FILES, tempFolder('strict'));
    const server = await startHttp(['--strict', root]);
    try {
      const client = await connectHttp(server.url, 'modern');
      try {
        await verifyServed(client, root, { 'skill://good/SKILL.md': SERVED['skill://good/SKILL.md']! });
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });
});

describe('serve: two folders with the same skill URI', () => {
  const base = tempFolder('clash');
  const first = join(base, 'first');
  const second = join(base, 'second');
  makeTree(
    {
      'first/dup/SKILL.md': skillMd('dup'),
      'second/dup/SKILL.md': skillMd('dup', 'Another dup. Use when testing clashes.'),
      'second/solo/SKILL.md': skillMd('solo'),
    },
    base,
  );

  test('exit code 1, naming both folders', async () => {
    const run = await runCliBounded(['serve', '--no-cache', '--http', '--port', '0', first, second]);
    assert.equal(run.signal, null, run.stderr);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /URI conflict/);
    assert.ok(run.stderr.includes(`two skills at skill://dup/SKILL.md: ${join(first, 'dup')} and ${join(second, 'dup')}`), run.stderr);
    assert.doesNotMatch(run.stderr, /on http:\/\//);
  });

  test('--prefix applies to every folder, so they still clash', async () => {
    const run = await runCliBounded(['serve', '--no-cache', '--http', '--port', '0', '--prefix', 'acme', first, second]);
    assert.equal(run.code, 1, run.stderr);
    assert.ok(run.stderr.includes(`two skills at skill://acme/dup/SKILL.md: ${join(first, 'dup')} and ${join(second, 'dup')}`), run.stderr);
  });

  test('--prefix moves every URI under skill://P/', async () => {
    const server = await startHttp(['--prefix', 'acme/tools', second]);
    try {
      for (const era of ['legacy', 'modern'] as const) {
        const client = await connectHttp(server.url, era);
        try {
          await verifyServed(client, second, {
            'skill://acme/tools/dup/SKILL.md': { folder: 'dup', files: ['SKILL.md'] },
            'skill://acme/tools/solo/SKILL.md': { folder: 'solo', files: ['SKILL.md'] },
          });
          await assert.rejects(client.readResource({ uri: 'skill://dup/SKILL.md' }), (error: { code?: number }) => typeof error.code === 'number');
          const resources = await client.listResources();
          // Every skill moves under the prefix; the draft-era index stays at its well-known skill://index.json.
          assert.deepEqual(resources.resources.map((resource) => resource.uri).sort(), [
            'skill://acme/tools/dup/SKILL.md',
            'skill://acme/tools/solo/SKILL.md',
            'skill://index.json',
          ]);
        } finally {
          await client.close();
        }
      }
    } finally {
      await server.stop();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Malformed HTTP requests
// ---------------------------------------------------------------------------------------------------------------

interface RawResponse {
  status: number;
  body: string;
}

/**
 * One request over a bare socket, with exactly the request line and headers given (fetch and node:http both
 * replace a Host header of their own). Answers are read to the end (`connection: close`).
 */
function rawRequest(url: string, head: string[], body = ''): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname, () => {
      socket.end([...head, `content-length: ${Buffer.byteLength(body)}`, 'connection: close', '', body].join('\r\n'));
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: split < 0 ? '' : text.slice(split + 4) });
    });
  });
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'skills/list', params: {} });

function jsonRpcError(body: string): { code: number; message: string } {
  const parsed = JSON.parse(body) as { jsonrpc?: string; error?: { code: number; message: string } };
  assert.equal(parsed.jsonrpc, '2.0', body);
  assert.ok(parsed.error, body);
  return parsed.error;
}

describe('serve: malformed HTTP requests', () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttp([HOSTILE]);
  });
  after(async () => {
    await server.stop();
  });

  test('invalid JSON -> 400 parse error', async () => {
    for (const body of ['{not json', '', '{"jsonrpc": "2.0", "id": 1, "method": "skills/list"', '\u0000\u0001']) {
      const response = await fetch(server.url, { method: 'POST', headers: MCP_HEADERS, body });
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(jsonRpcError(await response.text()).code, -32700);
    }
  });

  test('a foreign Host header -> 403', async () => {
    const headers = Object.entries(MCP_HEADERS).map(([name, value]) => `${name}: ${value}`);
    for (const host of [
      'evil.example',
      'evil.example:80',
      `evil.example:${new URL(server.url).port}`,
      '127.0.0.1.evil.example',
      'localhost@evil.example',
      '',
    ]) {
      const response = await rawRequest(server.url, ['POST /mcp HTTP/1.1', `host: ${host}`, ...headers], LIST);
      assert.equal(response.status, 403, `Host: ${JSON.stringify(host)}`);
      assert.match(jsonRpcError(response.body).message, /Host/);
      assert.doesNotMatch(response.body, /"skills"/);
    }
    // The same bytes with a loopback Host are answered, so the 403s above are the Host check and nothing else.
    const allowed = await rawRequest(server.url, ['POST /mcp HTTP/1.1', `host: ${new URL(server.url).host}`, ...headers], LIST);
    assert.equal(allowed.status, 200, allowed.body);
    assert.match(allowed.body, /skill:\/\/good\/SKILL\.md/);
  });

  test('a foreign Origin -> 403', async () => {
    for (const origin of ['http://evil.example', 'https://127.0.0.1.evil.example', 'null']) {
      const response = await fetch(server.url, { method: 'POST', headers: { ...MCP_HEADERS, origin }, body: LIST });
      assert.equal(response.status, 403, origin);
      assert.match(jsonRpcError(await response.text()).message, /Origin/);
    }
    // A loopback Origin is fine.
    const allowed = await fetch(server.url, { method: 'POST', headers: { ...MCP_HEADERS, origin: new URL(server.url).origin }, body: LIST });
    assert.equal(allowed.status, 200);
  });

  test('a body over 4 MiB -> 413', async () => {
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'skills/list', params: { _meta: { pad: 'x'.repeat(4 * 1024 * 1024) } } });
    const response = await fetch(server.url, { method: 'POST', headers: MCP_HEADERS, body: huge });
    assert.equal(response.status, 413);
    assert.equal(jsonRpcError(await response.text()).code, -32600);
  });

  test('a body that is not application/json -> 415, a method /mcp does not take -> 405, an Accept it cannot answer -> 406: all -32600 as documented', async () => {
    for (const type of ['text/plain', 'multipart/form-data; boundary=x', undefined]) {
      const headers: Record<string, string> = { ...MCP_HEADERS };
      if (type === undefined) delete headers['content-type'];
      else headers['content-type'] = type;
      const response = await fetch(server.url, { method: 'POST', headers, body: LIST });
      assert.equal(response.status, 415, String(type));
      const error = jsonRpcError(await response.text());
      assert.deepEqual([error.code, error.message], [-32600, 'Unsupported Media Type: Content-Type must be application/json'], String(type));
    }
    for (const method of ['GET', 'DELETE', 'PUT']) {
      const response = await fetch(server.url, { method, headers: MCP_HEADERS, ...(method === 'PUT' ? { body: LIST } : {}) });
      assert.equal(response.status, 405, method);
      assert.equal(jsonRpcError(await response.text()).code, -32600, method);
    }
    // An Accept that takes neither JSON nor an event stream: 406, the client's fault as well.
    for (const accept of ['text/html', 'application/json']) {
      const response = await fetch(server.url, { method: 'POST', headers: { ...MCP_HEADERS, accept }, body: LIST });
      assert.equal(response.status, 406, accept);
      assert.equal(jsonRpcError(await response.text()).code, -32600, accept);
    }
  });

  test('unknown paths -> 404 (the web catalog answers / and its own pages; every other path is a 404)', async () => {
    const origin = new URL(server.url).origin;
    // `/` is the web catalog's home page since it is served by default (`--no-web` leaves it a 404: below).
    for (const path of ['/nope', '/mcp/extra', '/MCP', '/api/v1/nope']) {
      const response = await fetch(`${origin}${path}`);
      assert.equal(response.status, 404, path);
    }
    const home = await fetch(`${origin}/`);
    assert.equal(home.status, 200);
    assert.match(home.headers.get('content-type') ?? '', /^text\/html/);
  });

  test('unknown paths -> 404 with a JSON-RPC error when the web catalog is off', async () => {
    const bare = await startHttp([HOSTILE, '--no-web']);
    try {
      const origin = new URL(bare.url).origin;
      for (const path of ['/nope', '/', '/mcp/extra', '/MCP']) {
        const response = await fetch(`${origin}${path}`);
        assert.equal(response.status, 404, path);
        jsonRpcError(await response.text());
      }
    } finally {
      await bare.stop();
    }
  });

  test('after all of that the server still answers', async () => {
    const health = await fetch(`${new URL(server.url).origin}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(((await health.json()) as { skills: number }).skills, Object.keys(SERVED).length);
    const raw = await fetch(server.url, { method: 'POST', headers: MCP_HEADERS, body: LIST });
    assert.equal(raw.status, 200);
    assert.match(await raw.text(), /skill:\/\/good\/SKILL\.md/);
    for (const era of ['legacy', 'modern'] as const) {
      const client = await connectHttp(server.url, era);
      try {
        await verifyServed(client, HOSTILE, SERVED);
      } finally {
        await client.close();
      }
    }
    assert.equal(server.proc.exitCode, null);
  });
});
