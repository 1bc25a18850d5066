import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import type { Client } from '@modelcontextprotocol/client';
import { connectHttp, connectStdio, eventually, makeTree, skillMd, startHttp } from '@skillport/test-kit';
import type { Era, RunningServer } from '@skillport/test-kit';

/**
 * File names that need percent-encoding, alternative spellings of one URI, path tricks that must be refused, and
 * symbolic links, all against real `skillport serve` processes and real MCP clients (HTTP in both eras, and stdio).
 */

/** Never served: the target of a symlink that leads outside the skill. Must appear in no response at all. */
const SECRET = `SECRET-${randomUUID()}`;

/** The awkward file names of skill `names`, with the one canonical URI each must be listed under. */
const NAMED_FILES: ReadonlyArray<{ path: string; uri: string }> = [
  { path: 'refs/with space.md', uri: 'skill://names/refs/with%20space.md' },
  { path: 'refs/ünïcødé.md', uri: 'skill://names/refs/%C3%BCn%C3%AFc%C3%B8d%C3%A9.md' },
  { path: 'refs/100%.md', uri: 'skill://names/refs/100%25.md' },
  { path: 'refs/a#b.md', uri: 'skill://names/refs/a%23b.md' },
  { path: 'refs/what?.md', uri: 'skill://names/refs/what%3F.md' },
  { path: 'refs/Q&A.md', uri: 'skill://names/refs/Q&A.md' },
];

const contentOf = (path: string) => `# ${path}\n\nThe file called ${JSON.stringify(path)} (${randomUUID()}).\n`;

const base = realpathSync(mkdtempSync(join(tmpdir(), 'skillport-paths-')));
const ROOT = join(base, 'skills');
const NAMES = join(ROOT, 'names');
const spec: Record<string, string | { symlink: string }> = {
  'secret/secret.txt': `${SECRET}\n`,
  'skills/names/SKILL.md': skillMd('names'),
  // In-folder file symlink: listed, served with the target's bytes.
  'skills/names/refs/link.md': { symlink: 'Q&A.md' },
  // Leads outside the skill (and outside the served root): not listed, never read.
  'skills/names/not-listed.md': { symlink: '../../secret/secret.txt' },
  // Leads into a sibling skill: outside this skill's folder, so not served as part of it.
  'skills/names/sibling.md': { symlink: '../other/SKILL.md' },
  // Symlinks to folders (inside and outside the skill): not followed.
  'skills/names/refs-link': { symlink: 'refs' },
  'skills/names/secret-dir': { symlink: '../../secret' },
  // A backslash is an ordinary byte in a Linux file name, but cannot round-trip as a URI path.
  'skills/names/refs\\..\\evil.md': 'backslash name\n',
  'skills/other/SKILL.md': skillMd('other'),
};
for (const file of NAMED_FILES) spec[`skills/names/${file.path}`] = contentOf(file.path);
makeTree(spec, base);
after(() => rmSync(base, { recursive: true, force: true }));

const NAMES_FILES = ['SKILL.md', ...NAMED_FILES.map((file) => file.path), 'refs/link.md'].sort();

/** Warnings serve must print, each exactly once (path as printed, message). */
const WARNINGS: ReadonlyArray<[string, string]> = [
  [join(NAMES, 'not-listed.md'), 'symbolic link leads outside the skill folder; not served'],
  [join(NAMES, 'sibling.md'), 'symbolic link leads outside the skill folder; not served'],
  [join(NAMES, 'secret-dir'), 'symbolic link leads outside the skill folder; not served'],
  [join(NAMES, 'refs-link'), 'symbolic link to a folder is not followed; its files are not served'],
  [join(NAMES, 'refs\\..\\evil.md'), 'file name holds a backslash or bytes that are not UTF-8; not served'],
];

function countOf(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

function assertWarnedOnce(stderr: string): void {
  for (const [path, message] of WARNINGS) {
    assert.equal(countOf(stderr, `skillport: warning: ${path}: ${message}`), 1, `warning for ${path} once:\n${stderr}`);
  }
  assert.equal(countOf(stderr, SECRET), 0, 'the secret never reaches stderr either');
}

/** URIs that must be refused by resources/read and skills/get alike. */
const REFUSED: readonly string[] = [
  'skill://names/../other/SKILL.md',
  'skill://names/%2e%2e/other/SKILL.md',
  'skill://names/%2E%2E/%2E%2E/secret/secret.txt',
  'skill://names/refs%2F..%2F..%2Fx',
  'skill://names/refs%2F..%2FSKILL.md',
  'skill://names/refs%5C..%5CSKILL.md',
  'skill://names/refs\\..\\SKILL.md',
  'skill://names/refs\\..\\evil.md',
  'skill://names/refs%5C..%5Cevil.md',
  'skill://names/SKILL.md%00',
  'skill://names/SKILL.md%00.png',
  'skill://names/%00/SKILL.md',
  'skill://names//SKILL.md',
  'skill://names/%E0%A4%A/SKILL.md',
  'file:///etc/passwd',
  `file://${join(base, 'secret/secret.txt')}`,
  '/etc/passwd',
  'etc/passwd',
  '',
  'http://127.0.0.1/',
  'skill://',
  'skill:///etc/passwd',
  'skill://names/not-listed.md',
  'skill://names/sibling.md',
  'skill://names/secret-dir/secret.txt',
  'skill://names/refs-link/Q&A.md',
  'skill://names/refs',
  'skill://names/refs/',
  'skill://names',
  'skill://names/SKILL.md?x=1',
  'skill://names/refs/Q&A.md?x=1',
  'skill://names/refs/Q%26A.md?x=1#top',
  'skill://names/no-such-file.md',
];

/** Dot segments that stay inside the URI authority: `new URL()` would resolve them, the server must still refuse. */
const DOT_SEGMENTS: readonly string[] = [
  'skill://names/refs/../SKILL.md',
  'skill://names/refs/%2E%2E/SKILL.md',
  'skill://names/./SKILL.md',
  'skill://names/refs/./Q&A.md',
];

interface Outcome {
  uri: string;
  ok: boolean;
  code?: number;
  text: string;
}

async function probeRead(client: Client, uri: string): Promise<Outcome> {
  try {
    const result = await client.readResource({ uri });
    return { uri, ok: true, text: JSON.stringify(result) };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { uri, ok: false, ...(typeof code === 'number' ? { code } : {}), text: `${String(error)} ${JSON.stringify(error)}` };
  }
}

async function namesSkill(skills: SkillsClient): Promise<Skill> {
  const listing = await skills.list();
  assert.equal(listing.invalid.length, 0);
  assert.deepEqual(
    listing.skills.map((skill) => skill.uri),
    ['skill://names/SKILL.md', 'skill://other/SKILL.md'],
  );
  return listing.skills.find((skill) => skill.uri === 'skill://names/SKILL.md')!;
}

function listedPaths(skill: Skill): string[] {
  const resources = skill.resources as Array<{ uri: string }>;
  return resources.map((resource) => resource.uri.slice('skill://names/'.length).split('/').map(decodeURIComponent).join('/')).sort();
}

/** Lists `names`, checks every file name and canonical URI, and reads every file through SkillsClient (verified). */
async function checkListingAndReads(client: Client): Promise<string[]> {
  const seen: string[] = [];
  const skills = new SkillsClient(client);
  const names = await namesSkill(skills);
  seen.push(JSON.stringify(names));
  assert.deepEqual(listedPaths(names), NAMES_FILES);
  const uris = (names.resources as Array<{ uri: string }>).map((resource) => resource.uri);
  for (const file of NAMED_FILES) assert.ok(uris.includes(file.uri), `${file.path} listed as ${file.uri} (got ${uris.join(' ')})`);
  for (const uri of uris) assert.equal(new URL(uri).href, uri, `${uri} is in canonical form`);

  // Read by the listed URI: as a relative ref, `a#b.md` would be `a` with a fragment.
  const uriOf = new Map(uris.map((uri) => [uri.slice('skill://names/'.length).split('/').map(decodeURIComponent).join('/'), uri]));
  for (const path of NAMES_FILES) {
    const file = await skills.read(names, uriOf.get(path)!);
    assert.equal(file.uri, uriOf.get(path));
    seen.push(JSON.stringify({ ...file, bytes: undefined }));
    const disk = readFileSync(join(NAMES, path));
    assert.equal(file.verified, true);
    assert.equal(Buffer.compare(Buffer.from(file.bytes), disk), 0, `${path} served with its bytes on disk`);
  }
  // The in-folder link is served with its target's bytes.
  const link = await skills.read(names, 'skill://names/refs/link.md');
  assert.equal(Buffer.compare(Buffer.from(link.bytes), readFileSync(join(NAMES, 'refs/Q&A.md'))), 0, 'refs/link.md has the bytes of refs/Q&A.md');
  // Excluded files are not in the entry, so the client refuses them before asking.
  for (const ref of ['not-listed.md', 'sibling.md', 'refs-link/Q&A.md', 'secret-dir/secret.txt']) {
    await assert.rejects(skills.read(names, ref), (error: { reason?: string }) => error.reason === 'unlisted', ref);
  }

  const dir = await skills.readDirectory('skill://names');
  seen.push(JSON.stringify(dir));
  assert.deepEqual(dir.resources.map((child) => child.name).sort(), ['SKILL.md', 'refs']);
  const refs = await skills.readDirectory('skill://names/refs');
  seen.push(JSON.stringify(refs));
  assert.deepEqual(refs.resources.map((child) => child.name).sort(), [...NAMED_FILES.map((file) => file.path.slice('refs/'.length)), 'link.md'].sort());

  const resources = await client.listResources();
  seen.push(JSON.stringify(resources));
  return seen;
}

/** Alternative spellings of listed files: each must return exactly the canonical file's bytes. */
const SPELLINGS: ReadonlyArray<[string, string]> = [
  ['skill://names/refs/Q%26A.md', 'refs/Q&A.md'],
  ['skill://names/refs/Q&A.md#fragment', 'refs/Q&A.md'],
  ['skill://names/refs/Q%26A.md#top', 'refs/Q&A.md'],
  ['skill://names/%72efs/Q&A.md', 'refs/Q&A.md'],
  ['skill://names/refs/with space.md', 'refs/with space.md'],
  ['skill://names/refs/with%20space.md#a%20b', 'refs/with space.md'],
  ['skill://names/refs/%c3%bcn%c3%afc%c3%b8d%c3%a9.md', 'refs/ünïcødé.md'],
  ['skill://names/refs/ünïcødé.md', 'refs/ünïcødé.md'],
  ['skill://names/refs/what%3f.md', 'refs/what?.md'],
  ['skill://names/refs/a%23b.md#b', 'refs/a#b.md'],
  ['skill://names/refs/100%25.md#100%', 'refs/100%.md'],
  ['skill://names/SKILL.md#', 'SKILL.md'],
  ['skill://names/%53KILL.md', 'SKILL.md'],
];

async function checkSpellings(client: Client): Promise<string[]> {
  const seen: string[] = [];
  for (const [uri, path] of SPELLINGS) {
    const result = await client.readResource({ uri });
    seen.push(JSON.stringify(result));
    assert.equal(result.contents.length, 1, uri);
    const content = result.contents[0]!;
    assert.ok('text' in content, `${uri} served as text`);
    assert.equal(content.text, readFileSync(join(NAMES, path), 'utf8'), `${uri} is ${path}`);
    assert.equal(content.mimeType, 'text/markdown', uri);
  }
  return seen;
}

/** Every refused URI: an error (never content) from resources/read, -32602 from skills/get. */
async function checkRefusals(client: Client): Promise<string[]> {
  const seen: string[] = [];
  const skills = new SkillsClient(client);
  for (const uri of REFUSED) {
    const outcome = await probeRead(client, uri);
    seen.push(outcome.text);
    assert.equal(outcome.ok, false, `resources/read ${JSON.stringify(uri)} must be refused, got ${outcome.text}`);
    assert.ok(outcome.code === -32602 || outcome.code === -32002, `${JSON.stringify(uri)}: JSON-RPC error code (got ${outcome.code}: ${outcome.text})`);
    await assert.rejects(skills.get(uri), (error: { code?: number; message?: string }) => {
      seen.push(String(error.message));
      assert.equal(error.code, -32602, `skills/get ${JSON.stringify(uri)}: ${error.message}`);
      return true;
    });
  }
  // A directory is not a file: resources/read says so (it is readable with resources/directory/read).
  const dir = await probeRead(client, 'skill://names/refs');
  assert.equal(dir.ok, false);
  assert.match(dir.text, /directory/i);
  // The server keeps serving after all of that.
  const after = await client.readResource({ uri: 'skill://other/SKILL.md' });
  const content = after.contents[0]!;
  assert.ok('text' in content);
  assert.equal(content.text, skillMd('other'));
  return seen;
}

describe('serve: file names, URI spellings, path tricks and symlinks over Streamable HTTP', () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttp([ROOT]);
  });
  after(async () => {
    await server.stop();
  });

  for (const era of ['legacy', 'modern'] as const satisfies readonly Era[]) {
    test(`odd file names are listed, canonical and served byte for byte (${era})`, async () => {
      const client = await connectHttp(server.url, era);
      try {
        const seen = await checkListingAndReads(client);
        assert.ok(seen.every((text) => !text.includes(SECRET)));
      } finally {
        await client.close();
      }
    });

    test(`alternative spellings name the same file (${era})`, async () => {
      const client = await connectHttp(server.url, era);
      try {
        const seen = await checkSpellings(client);
        assert.ok(seen.every((text) => !text.includes(SECRET)));
      } finally {
        await client.close();
      }
    });

    test(`path tricks, other schemes, excluded files, directories and queries are refused (${era})`, async () => {
      const client = await connectHttp(server.url, era);
      try {
        const seen = await checkRefusals(client);
        for (const text of seen) assert.ok(!text.includes(SECRET), `secret leaked: ${text}`);
      } finally {
        await client.close();
      }
      // A fresh client (no response cache) still gets a normal, verified read.
      const fresh = await connectHttp(server.url, era);
      try {
        const skills = new SkillsClient(fresh);
        const names = await namesSkill(skills);
        const file = await skills.read(names, 'refs/Q&A.md');
        assert.equal(Buffer.from(file.bytes).toString(), readFileSync(join(NAMES, 'refs/Q&A.md'), 'utf8'));
      } finally {
        await fresh.close();
      }
    });

    test(`dot segments are refused, not resolved (${era})`, async () => {
      const client = await connectHttp(server.url, era);
      try {
        for (const uri of DOT_SEGMENTS) {
          const outcome = await probeRead(client, uri);
          assert.equal(outcome.ok, false, `resources/read ${uri} must be refused like skills/get refuses it, got ${outcome.text.slice(0, 200)}`);
        }
      } finally {
        await client.close();
      }
    });
  }

  test('skills/get refuses dot segments', async () => {
    const client = await connectHttp(server.url, 'modern');
    try {
      const skills = new SkillsClient(client);
      for (const uri of ['skill://names/./SKILL.md', 'skill://other/../names/SKILL.md', 'skill://names/x/../SKILL.md']) {
        await assert.rejects(skills.get(uri), (error: { code?: number }) => error.code === -32602, uri);
      }
    } finally {
      await client.close();
    }
  });

  test('each excluded link and name is reported once on stderr, and the secret never appears', () => {
    assertWarnedOnce(server.stderr());
    assert.match(server.stderr(), /skillport: serving 2 skills from /);
  });

  test('a raw request for the outside link never returns the secret', async () => {
    for (const uri of ['skill://names/not-listed.md', 'skill://names/secret-dir/secret.txt']) {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } }),
      });
      const text = await response.text();
      assert.ok(!text.includes(SECRET), text);
      assert.match(text, /"error"/, text);
    }
  });

  test('a lone surrogate in a URI, and path tricks inside a batch, are refused with an answer', async () => {
    const post = async (body: unknown) => {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify(body),
      });
      return { status: response.status, text: await response.text() };
    };
    const lone = await post({ jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri: 'skill://names/\ud800.md' } });
    assert.equal(lone.status, 200, lone.text);
    assert.deepEqual((JSON.parse(lone.text) as { id: number; error: { code: number } }).error.code, -32602);
    const batch = await post([
      { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'skill://names/refs/../SKILL.md' } },
      { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'skill://other/SKILL.md' } },
    ]);
    const answers = JSON.parse(batch.text) as Array<{ id: number; error?: { code: number }; result?: unknown }>;
    assert.ok(Array.isArray(answers), batch.text);
    assert.equal(answers.find((answer) => answer.id === 1)?.error?.code, -32602, batch.text);
    assert.ok(
      answers.every((answer) => answer.result === undefined),
      batch.text,
    );
    const { client, stderr } = await connectStdio([ROOT], 'legacy');
    try {
      await assert.rejects(client.readResource({ uri: 'skill://names/\ud800.md' }), (error: { code?: number }) => error.code === -32602, stderr());
    } finally {
      await client.close();
    }
  });
});

describe('serve: file names and path tricks over stdio', () => {
  test('listing, verified reads, spellings, refusals and warnings (modern)', async () => {
    const { client, stderr } = await connectStdio(['--no-watch', ROOT], 'modern');
    try {
      const seen = [...(await checkListingAndReads(client)), ...(await checkSpellings(client)), ...(await checkRefusals(client))];
      for (const text of seen) assert.ok(!text.includes(SECRET), `secret leaked: ${text}`);
      await eventually(async () => (stderr().includes('skillport: serving 2 skills') ? true : undefined), 5000, 'the serving line on stderr');
      assertWarnedOnce(stderr());
    } finally {
      await client.close();
    }
  });
});

describe('serve: a folder symlink inside a skill that leads outside it', () => {
  test('is not served as a nested skill either', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'skillport-paths-')));
    try {
      makeTree(
        {
          'outside/leak/SKILL.md': skillMd('leak'),
          'outside/leak/private.txt': `${SECRET}\n`,
          'skills/names/SKILL.md': skillMd('names'),
          'skills/names/ext': { symlink: '../../outside/leak' },
        },
        dir,
      );
      const server = await startHttp([join(dir, 'skills')]);
      try {
        assert.equal(
          countOf(server.stderr(), `${join(dir, 'skills/names/ext')}: symbolic link leads outside the skill folder; not served`),
          1,
          server.stderr(),
        );
        const client = await connectHttp(server.url, 'legacy');
        try {
          const listing = await new SkillsClient(client).list();
          assert.deepEqual(
            listing.skills.map((skill) => skill.uri),
            ['skill://names/SKILL.md'],
            'only the skill inside the root',
          );
          const outcome = await probeRead(client, 'skill://names/leak/private.txt');
          assert.ok(!outcome.text.includes(SECRET), 'the outside folder is not served');
        } finally {
          await client.close();
        }
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
