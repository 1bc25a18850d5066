import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { CLI, EXAMPLES } from '@skillport/test-kit';

/**
 * stdio carries one JSON-RPC message a line. A line that is not JSON, not a JSON-RPC message, or a batch used to be
 * dropped by the SDK's transport without an answer, so a client waited for an answer that never came: each now gets
 * its JSON-RPC error (mcp/stdio-lines.ts), and the lines around it are answered as before. A real `skillport serve`
 * over stdio, lines written by hand.
 */
test('stdio: every line that is no JSON-RPC message gets its error, and the server goes on', async () => {
  const proc = spawn(process.execPath, [CLI, 'serve', '--no-cache', '--no-watch', EXAMPLES], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const answers: Array<{ id?: unknown; result?: unknown; error?: { code: number; message: string } }> = [];
  const done = new Promise<void>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const answer = JSON.parse(line) as (typeof answers)[number];
      answers.push(answer);
      if (answer.id === 'last') resolve();
    });
    proc.once('exit', (code) => reject(new Error(`server exited (${code}) before answering every line`)));
  });
  const lines = [
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    'not json',
    '{"jsonrpc":"2.0","id":2,"method":"skills/list","params":null}',
    '{"jsonrpc":"2.0","id":3,"method":"skills/list","params":[]}',
    '{"id":4,"method":"skills/list"}',
    '[{"jsonrpc":"2.0","id":5,"method":"ping"}]',
    '',
    '{"jsonrpc":"2.0","id":6,"method":"skills/get","params":{"uri":"skill://csv-data-cleaning/SKILL.md"}}',
    '{"jsonrpc":"2.0","id":"last","method":"ping"}',
  ];
  proc.stdin!.write(`${lines.join('\n')}\n`);
  try {
    await done;
  } finally {
    proc.stdin!.end();
    if (proc.exitCode === null) await new Promise((resolve) => proc.once('exit', resolve));
  }
  const byId = (id: unknown) => answers.filter((answer) => answer.id === id);
  const codes = (id: unknown) => byId(id).map((answer) => answer.error?.code);
  assert.deepEqual(codes(null), [-32700, -32600], JSON.stringify(answers.filter((answer) => answer.id === null)));
  assert.deepEqual(codes(2), [-32600]);
  assert.deepEqual(codes(3), [-32602]);
  assert.deepEqual(codes(4), [-32600]);
  assert.deepEqual(byId(5), [], 'a batch is refused whole (id null), its requests are not answered');
  assert.match(byId(null)[1]!.error!.message, /batches are not supported on stdio/);
  // The valid messages around them were answered as usual.
  assert.ok(byId(1)[0]?.result !== undefined, 'initialize answered');
  assert.equal((byId(6)[0]?.result as { skill?: { uri: string } } | undefined)?.skill?.uri, 'skill://csv-data-cleaning/SKILL.md');
  assert.deepEqual(byId('last')[0]?.result, {});
});

/**
 * A line longer than the transport's 10 MiB buffer used to reach the SDK's read buffer, which threw: the server
 * closed its transport and exited with code 0, no answer, nothing on stderr. Now the over-long line is dropped as it
 * comes (never buffered whole), answered with -32600 (id null: it could not be read), said on stderr, and the next
 * line is served as usual.
 */
test('stdio: a line over 10 MiB is refused with -32600 and the server answers the next request', async () => {
  const proc = spawn(process.execPath, [CLI, 'serve', '--no-cache', '--no-watch', EXAMPLES], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stdin!.on('error', () => {}); // a server that exits mid-line: the test says so below, not as EPIPE
  proc.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const answers: Array<{ id?: unknown; result?: unknown; error?: { code: number; message: string } }> = [];
  const done = new Promise<void>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const answer = JSON.parse(line) as (typeof answers)[number];
      answers.push(answer);
      if (answer.id === 'after') resolve();
    });
    proc.once('exit', (code) => reject(new Error(`server exited (${code}) before answering the request after the long line`)));
  });
  const write = (text: string) => new Promise<void>((resolve) => proc.stdin!.write(text, () => resolve()));
  await write(
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
  );
  // 11 MiB of one request, sent in pieces as a client would.
  await write('{"jsonrpc":"2.0","id":"long","method":"skills/get","params":{"uri":"skill://');
  const piece = 'a'.repeat(1024 * 1024);
  for (let i = 0; i < 11; i += 1) await write(piece);
  await write('/SKILL.md"}}\n');
  await write('{"jsonrpc":"2.0","id":"after","method":"skills/get","params":{"uri":"skill://csv-data-cleaning/SKILL.md"}}\n');
  try {
    await done;
  } finally {
    proc.stdin!.end();
    if (proc.exitCode === null) await new Promise((resolve) => proc.once('exit', resolve));
  }
  const refused = answers.filter((answer) => answer.id === null);
  assert.deepEqual(
    refused.map((answer) => answer.error?.code),
    [-32600],
  );
  assert.match(refused[0]!.error!.message, /longer than 10485760 bytes/);
  assert.deepEqual(
    answers.filter((answer) => answer.id === 'long'),
    [],
  );
  assert.match(stderr, /line longer than 10485760 bytes refused/);
  const after = answers.find((answer) => answer.id === 'after');
  assert.equal((after?.result as { skill?: { uri: string } } | undefined)?.skill?.uri, 'skill://csv-data-cleaning/SKILL.md');
});
