import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { HttpProvider } from '../src/index.js';
import { makeTarGz, makeZip } from '@skillport/test-kit';
import { connectHttp, eventually, makeTree, runCli, skillMd, startHttp } from '@skillport/test-kit';
import { startStaticHost } from '@skillport/test-kit';
import type { StaticHost } from '@skillport/test-kit';

const sha256 = (bytes: Uint8Array | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';
const TOKEN = 'secret-token-4f1d';
const SIG = 'secret-sig-9a7c';

function index(skills: Array<{ name: string; type: string; url: string; bytes: Uint8Array | string; description?: string; digest?: string }>): string {
  return JSON.stringify({
    $schema: SCHEMA,
    skills: skills.map((skill) => ({
      name: skill.name,
      type: skill.type,
      description: skill.description ?? `Does ${skill.name} things. Use when the user asks for ${skill.name}.`,
      url: skill.url,
      digest: skill.digest ?? sha256(skill.bytes),
    })),
  });
}

function writeConfig(remote: Record<string, unknown>): string {
  const dir = makeTree({});
  const path = join(dir, 'skillport.yaml');
  writeFileSync(path, JSON.stringify({ remotes: [remote] }));
  return path;
}

const uris = async (url: string) => {
  const client = await connectHttp(url, 'modern');
  try {
    return (await new SkillsClient(client).list()).skills.map((skill) => skill.uri).sort();
  } finally {
    await client.close();
  }
};

describe('serve skills from a static HTTP host (discovery index)', () => {
  let host: StaticHost;
  const guide = skillMd('guide-md', undefined, '', '# Guide\n\nOnly a SKILL.md.\n');
  const packed = makeTarGz([
    { path: 'SKILL.md', content: skillMd('packed-tgz') },
    { path: 'references/api.md', content: '# API\n' },
  ]);
  const wrapped = makeZip([
    { path: 'wrapped-zip/SKILL.md', content: skillMd('wrapped-zip') },
    { path: 'wrapped-zip/scripts/run.sh', content: 'echo run\n' },
  ]);
  before(async () => {
    host = await startStaticHost({
      '/.well-known/agent-skills/guide-md/SKILL.md': guide,
      '/.well-known/agent-skills/packed-tgz.tar.gz': packed,
      '/archives/wrapped.zip': wrapped,
    });
    host.routes.set(
      '/.well-known/agent-skills/index.json',
      index([
        { name: 'guide-md', type: 'skill-md', url: 'guide-md/SKILL.md', bytes: guide },
        { name: 'packed-tgz', type: 'archive', url: '/.well-known/agent-skills/packed-tgz.tar.gz', bytes: packed },
        { name: 'wrapped-zip', type: 'archive', url: `${host.origin}/archives/wrapped.zip`, bytes: wrapped },
        { name: 'odd', type: 'plugin', url: 'x', bytes: 'x' },
      ]),
    );
  });
  after(() => host.close());

  test('skill-md and archive entries are served, verified, with credentials sent and never shown', async () => {
    const config = writeConfig({ url: host.url, headers: { Authorization: 'Bearer ${REMOTE_TOKEN}' }, params: { sig: '${REMOTE_SIG}' } });
    const server = await startHttp(['--config', config], { REMOTE_TOKEN: TOKEN, REMOTE_SIG: SIG });
    try {
      const client = await connectHttp(server.url, 'modern');
      const skills = new SkillsClient(client);
      const listing = await skills.list();
      assert.deepEqual(listing.skills.map((skill) => skill.uri).sort(), [
        'skill://guide-md/SKILL.md',
        'skill://packed-tgz/SKILL.md',
        'skill://wrapped-zip/SKILL.md',
      ]);
      const packedEntry = listing.skills.find((skill) => skill.uri === 'skill://packed-tgz/SKILL.md')!;
      assert.equal((await skills.read(packedEntry, 'skill://packed-tgz/references/api.md')).text, '# API\n');
      const wrappedEntry = listing.skills.find((skill) => skill.uri === 'skill://wrapped-zip/SKILL.md')!;
      assert.equal((await skills.read(wrappedEntry, 'skill://wrapped-zip/scripts/run.sh')).text, 'echo run\n');
      // The draft-era index passes the publisher's archive on with the publisher's digest.
      const ours = JSON.parse(((await client.readResource({ uri: 'skill://index.json' })).contents[0] as { text: string }).text) as {
        skills: Array<{ name: string; type: string; digest: string; url: string }>;
      };
      const tgz = ours.skills.find((entry) => entry.name === 'packed-tgz')!;
      assert.equal(tgz.type, 'archive');
      assert.equal(tgz.digest, sha256(packed));
      const blob = (await client.readResource({ uri: tgz.url })).contents[0] as { blob: string };
      assert.equal(sha256(Buffer.from(blob.blob, 'base64')), sha256(packed));
      await client.close();
      // Every request to the host carried the credentials; none of them appears in the output.
      assert.ok(host.requests.length >= 4);
      for (const request of host.requests) {
        assert.equal(request.headers.authorization, `Bearer ${TOKEN}`);
        assert.equal(request.query.get('sig'), SIG);
        assert.equal(request.headers['accept-encoding'], 'identity');
      }
      assert.match(server.stderr(), /index entry "odd": type "plugin" is not one this reader serves/);
      assert.doesNotMatch(server.stderr(), new RegExp(`${TOKEN}|${SIG}`));
    } finally {
      await server.stop();
    }
  });

  test('--remote on the command line, beside a folder', async () => {
    const folder = makeTree({ 'local/SKILL.md': skillMd('local') });
    const server = await startHttp(['--remote', host.url, folder]);
    try {
      assert.deepEqual(await uris(server.url), [
        'skill://guide-md/SKILL.md',
        'skill://local/SKILL.md',
        'skill://packed-tgz/SKILL.md',
        'skill://wrapped-zip/SKILL.md',
      ]);
    } finally {
      await server.stop();
    }
  });

  test('agentskills-mcp-server server.json: an http provider with base_url and id serves that skill', async () => {
    const dir = makeTree({});
    const config = join(dir, 'server.json');
    writeFileSync(
      config,
      JSON.stringify({
        name: 'remote',
        skills: [{ id: 'packed-tgz', provider: 'http', options: { base_url: `${host.origin}/skills`, headers: { 'X-Key': 'k' } } }],
      }),
    );
    const server = await startHttp(['--config', config]);
    try {
      // No index under /skills: found at the origin's well-known place.
      assert.deepEqual(await uris(server.url), ['skill://packed-tgz/SKILL.md']);
    } finally {
      await server.stop();
    }
  });
});

describe('a hostile or failing host', () => {
  const hosts: StaticHost[] = [];
  after(async () => {
    for (const host of hosts) await host.close();
  });

  test('wrong digest, oversize, cross-host redirect, slow answers and a 500 that recovers: each reported, the rest served', async () => {
    const other = await startStaticHost({ '/stolen.md': skillMd('stolen') });
    const host = await startStaticHost();
    hosts.push(other, host);
    const good = skillMd('good-one');
    const tampered = skillMd('tampered');
    const big = skillMd('big-one', undefined, '', `# Big\n\n${'x'.repeat(200 * 1024)}\n`);
    const flaky = skillMd('flaky-one');
    const slow = skillMd('slow-one');
    const redirected = skillMd('redirected');
    const cross = skillMd('cross-host');
    host.routes.set('/good.md', good);
    host.routes.set('/tampered.md', tampered.replace('Does', 'Steals'));
    host.routes.set('/big.md', (_req, res) => {
      // No Content-Length: the cap must hold while reading.
      res.writeHead(200, { 'content-type': 'text/markdown' });
      res.end(big);
    });
    const bigToo = skillMd('big-two', undefined, '', `# Big\n\n${'y'.repeat(200 * 1024)}\n`);
    host.routes.set('/big-two.md', bigToo);
    host.routes.set('/flaky.md', (_req, res, count) => {
      if (count === 1) res.writeHead(500).end('try again');
      else res.writeHead(200, { 'content-length': Buffer.byteLength(flaky) }).end(flaky);
    });
    host.routes.set('/slow.md', (_req, res) => {
      // Headers, a few bytes, then nothing: a host that trickles must be cut off.
      res.writeHead(200, { 'content-length': Buffer.byteLength(slow) });
      res.write(slow.slice(0, 10));
    });
    host.routes.set('/redirect.md', (_req, res) => res.writeHead(302, { location: `${other.origin}/stolen.md` }).end());
    host.routes.set(
      '/index.json',
      index([
        { name: 'good-one', type: 'skill-md', url: 'good.md', bytes: good },
        { name: 'tampered', type: 'skill-md', url: 'tampered.md', bytes: tampered },
        { name: 'big-one', type: 'skill-md', url: 'big.md', bytes: big },
        { name: 'big-two', type: 'skill-md', url: 'big-two.md', bytes: bigToo },
        { name: 'flaky-one', type: 'skill-md', url: 'flaky.md', bytes: flaky },
        { name: 'slow-one', type: 'skill-md', url: 'slow.md', bytes: slow },
        { name: 'redirected', type: 'skill-md', url: 'redirect.md', bytes: redirected },
        { name: 'cross-host', type: 'skill-md', url: `${other.origin}/cross.md`, bytes: cross },
      ]),
    );
    const config = writeConfig({
      url: `${host.origin}/index.json`,
      headers: { Authorization: `Bearer ${TOKEN}` },
      params: { sig: SIG },
      timeout: '700ms',
      retries: 2,
    });
    const server = await startHttp(['--config', config, '--max-bytes', '64KiB']);
    try {
      const stderr = server.stderr();
      assert.deepEqual(await uris(server.url), ['skill://flaky-one/SKILL.md', 'skill://good-one/SKILL.md']);
      assert.match(stderr, /tampered: the content does not match the index's digest/);
      assert.match(stderr, /\/big\.md: big-one: larger than 64 KiB \(the limit\)/);
      assert.match(stderr, /\/big-two\.md: big-two: 200\.\d KiB is larger than 64 KiB \(the limit\)/);
      assert.match(stderr, /\/slow\.md: slow-one: no complete answer within 700 ms/);
      assert.match(stderr, /\/redirect\.md: redirected: redirects to another host \(127\.0\.0\.1:\d+\); refused/);
      assert.match(stderr, /\/cross\.md: cross-host: on another host \(127\.0\.0\.1:\d+\)/);
      assert.equal(host.count('/flaky.md'), 2, 'a 500 is retried once and the second answer used');
      assert.equal(host.count('/slow.md'), 3, 'a timeout is retried (2 retries)');
      assert.equal(host.count('/tampered.md'), 1, 'a digest mismatch is not retried');
      assert.equal(other.requests.length, 0, 'the other host never received a request (nor the credentials)');
      assert.doesNotMatch(stderr, new RegExp(`${TOKEN}|${SIG}`));
      assert.match(stderr, /serving 2 skills/);
    } finally {
      await server.stop();
    }
  });

  test('allowHosts lets artifacts come from another host, without the credentials', async () => {
    const cdn = await startStaticHost();
    const host = await startStaticHost();
    hosts.push(cdn, host);
    const onCdn = skillMd('on-cdn');
    cdn.routes.set('/on-cdn.md', onCdn);
    host.routes.set('/.well-known/agent-skills/index.json', index([{ name: 'on-cdn', type: 'skill-md', url: `${cdn.origin}/on-cdn.md`, bytes: onCdn }]));
    const config = writeConfig({ url: host.url, headers: { Authorization: `Bearer ${TOKEN}` }, allowHosts: [cdn.origin] });
    const server = await startHttp(['--config', config]);
    try {
      assert.deepEqual(await uris(server.url), ['skill://on-cdn/SKILL.md']);
      assert.equal(cdn.requests.length, 1);
      assert.equal(cdn.requests[0]!.headers.authorization, undefined);
    } finally {
      await server.stop();
    }
  });

  test('the index is fetched again on the refresh interval (ETag answered with 304), and changes are served', async () => {
    const host = await startStaticHost();
    hosts.push(host);
    let version = 1;
    const md = () => skillMd('moving', `Version ${version}.`);
    host.routes.set('/moving.md', (_req, res) => res.writeHead(200).end(md()));
    host.routes.set('/.well-known/agent-skills/index.json', (req, res) => {
      const etag = `"v${version}"`;
      if (req.headers['if-none-match'] === etag) return res.writeHead(304, { etag }).end();
      res
        .writeHead(200, { etag, 'content-type': 'application/json' })
        .end(index([{ name: 'moving', type: 'skill-md', url: '/moving.md', bytes: md(), description: `Version ${version}.` }]));
    });
    const config = writeConfig({ url: host.url, refresh: '300ms' });
    const server = await startHttp(['--config', config]);
    const client = await connectHttp(server.url, 'modern');
    const description = async () => (await new SkillsClient(client).list()).skills.map((skill) => skill.frontmatter.description).join();
    try {
      assert.equal(await description(), 'Version 1.');
      await eventually(
        async () => (host.requests.some((request) => request.headers['if-none-match'] === '"v1"') ? true : undefined),
        15_000,
        'a conditional index request',
      );
      version = 2;
      await eventually(async () => ((await description()) === 'Version 2.' ? true : undefined), 15_000, 'version 2');
      assert.equal(host.count('/moving.md'), 2, 'an unchanged digest is not fetched again');
    } finally {
      await client.close();
      await server.stop();
    }
  });

  test('a host that is down, an index that is not JSON or from before 0.2.0: one clear line, the server starts', async () => {
    const host = await startStaticHost({
      '/bad/index.json': '{ not json',
      '/old/index.json': JSON.stringify({ skills: [{ name: 'x', description: 'y', files: ['SKILL.md'] }] }),
    });
    hosts.push(host);
    const folder = makeTree({ 'local/SKILL.md': skillMd('local') });
    for (const [url, message] of [
      [`${host.origin}/bad/index.json`, /the index is not valid JSON/],
      [`${host.origin}/old/index.json`, /no \$schema \(or version\): an index from before 0\.2\.0/],
      [`http://127.0.0.1:9/index.json`, /cannot fetch the skills index: .*ECONNREFUSED/],
      [`${host.origin}/nothing-here/`, /no skills index found \(looked for .*nothing-here\/index\.json/],
    ] as const) {
      const config = writeConfig({ url, retries: 0 });
      const server = await startHttp(['--config', config, folder]);
      try {
        assert.match(server.stderr(), message);
        assert.deepEqual(await uris(server.url), ['skill://local/SKILL.md']);
      } finally {
        await server.stop();
      }
    }
    const strict = await runCli(['serve', '--strict', '--no-cache', '--config', writeConfig({ url: `${host.origin}/bad/index.json`, retries: 0 })]);
    assert.equal(strict.code, 1);
    assert.match(strict.stderr, /--strict: 1 problem\(s\) with http:\/\/127\.0\.0\.1/);
  });

  test('a slow host does not hold up the start: its skills are published (and announced) when they arrive', async () => {
    const host = await startStaticHost();
    hosts.push(host);
    const late = skillMd('late-one');
    host.routes.set('/late.md', late);
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    host.routes.set('/index.json', (_req, res) => {
      void released.then(() => res.writeHead(200).end(index([{ name: 'late-one', type: 'skill-md', url: 'late.md', bytes: late }])));
    });
    const problems: string[] = [];
    const provider = await HttpProvider.open({
      url: `${host.origin}/index.json`,
      startupWaitMs: 200,
      timeoutMs: 60_000,
      onProblem: (problem) => problems.push(problem.message),
    });
    try {
      assert.deepEqual(provider.skills(), []);
      assert.match(problems.join('\n'), /still loading after 0 s; starting without its skills/);
      let announced = 0;
      provider.onChange(() => announced++);
      release();
      await eventually(async () => (provider.skills().length === 1 ? true : undefined), 15_000, 'the late skill');
      assert.equal(announced, 1);
    } finally {
      provider.close();
    }
  });

  test('fetched artifacts are cached by digest on disk: a restart does not fetch them again, a damaged cache file is refetched', async () => {
    const host = await startStaticHost();
    hosts.push(host);
    const archive = makeZip([
      { path: 'SKILL.md', content: skillMd('cached') },
      { path: 'data.txt', content: 'data\n' },
    ]);
    host.routes.set('/cached.zip', archive);
    host.routes.set('/index.json', index([{ name: 'cached', type: 'archive', url: 'cached.zip', bytes: archive }]));
    const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-blobs-'));
    const open = () => HttpProvider.open({ url: `${host.origin}/index.json`, cacheDir });
    const first = await open();
    assert.deepEqual(
      first.skills().map((skill) => skill.name),
      ['cached'],
    );
    first.close();
    const second = await open();
    assert.deepEqual(
      second.skills().map((skill) => skill.packageDigest),
      first.skills().map((skill) => skill.packageDigest),
    );
    second.close();
    assert.equal(host.count('/cached.zip'), 1);
    assert.equal(host.count('/index.json'), 2);
    writeFileSync(join(cacheDir, sha256(archive).replace(':', '-')), 'damaged');
    const third = await open();
    assert.deepEqual(
      third.skills().map((skill) => skill.name),
      ['cached'],
    );
    third.close();
    assert.equal(host.count('/cached.zip'), 2);
  });
});
