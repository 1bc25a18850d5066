import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ProtocolError } from '@modelcontextprotocol/client';
import { connectHttp, eventually, makeTree, removeTrees, skillMd } from '@skillport/test-kit';
import { SkillportServer } from '../src/app.js';
import { readThreadTesting } from '../src/catalog/read-thread.js';
import { SLOW_FILE_CODE } from '../src/mcp/skills-source.js';

/**
 * A read the disk does not finish (a stalled network mount; here the read thread held, as behind such a file) is
 * answered at the server's time limit with the retryable -32012, not left waiting; what is cached keeps being
 * served, and the file is served again once the disk answers. A real server, a real MCP client over HTTP.
 */

const servers: SkillportServer[] = [];
after(async () => {
  for (const server of servers) await server.close();
  removeTrees();
});

test('a stalled read is answered -32012 at the limit; the file is served again once the disk answers', { timeout: 60_000 }, async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 12; i++) {
    files[`s${i}/SKILL.md`] = skillMd(`skill-${i}`);
    files[`s${i}/references/guide.md`] = `# Guide ${i}\n\nRead from the disk when asked.\n`;
  }
  const dir = makeTree(files);
  const hold = new Int32Array(new SharedArrayBuffer(4));
  readThreadTesting.hold = hold;
  const server = await SkillportServer.open({ dirs: [dir], cacheDir: false, scanThreads: 0, fileReadLimitMs: 400 });
  servers.push(server);
  const http = await server.serveHttp({ host: '127.0.0.1', port: 0 });
  const client = await connectHttp(http.url, 'modern');
  const uris = Array.from({ length: 12 }, (_, i) => `skill://skill-${i}/references/guide.md`);
  // First reads start the read thread (given the hold as it starts); once it is running, a first read made through
  // it comes with its JSON string (one made in the thread pool does not). Warmed on skills other than those read below.
  const content = server.service.options.content;
  readThreadTesting.hold = hold;
  let warm = 0;
  await eventually(
    async () => {
      const { found } = server.service.locate(`skill://skill-${11 - warm++}/SKILL.md`)!;
      const file = found.skill.files.find((one) => one.path === 'references/guide.md')!;
      await content.read(file, found.skill.origin);
      return content.cachedText(file.digest) !== undefined ? true : undefined;
    },
    10_000,
    'a first read made by the read thread',
  ).finally(() => {
    readThreadTesting.hold = undefined;
  });
  assert.ok(warm < 10, 'the read thread ran before the skills read below');
  const stalled = uris[1]!;
  Atomics.store(hold, 0, 1);
  try {
    const error = await client.readResource({ uri: stalled }).catch((caught: unknown) => caught);
    assert.ok(error instanceof ProtocolError, String(error));
    assert.equal(error.code, SLOW_FILE_CODE, error.message);
    assert.match(error.message, /could not be read within 0\.4 s .*try again later/);
    assert.deepEqual(error.data, { uri: stalled, retryable: true });
    assert.equal(Atomics.load(hold, 0), 1, 'answered while the disk still had not');
    // What is already read is still served meanwhile.
    const served = await client.readResource({ uri: uris[11]! });
    assert.match(JSON.stringify(served.contents), /Guide 11/);
  } finally {
    Atomics.store(hold, 0, 0);
    Atomics.notify(hold, 0);
  }
  const again = await eventually(
    async () => (await client.readResource({ uri: stalled }).catch(() => undefined))?.contents,
    10_000,
    'served once the disk answers',
  );
  assert.match(JSON.stringify(again), /Guide 1\b/);
  await client.close();
});
