import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Client } from '@modelcontextprotocol/client';
import { parseSkillMarkdown, readSkillArchive } from '@skillport/core';
import { makeTarGz, makeZip } from '@skillport/test-kit';
import { connectHttp, connectStdio, eventually, makeTree, runCli, skillMd, startHttp } from '@skillport/test-kit';
import type { Era } from '@skillport/test-kit';

const sha256 = (bytes: Uint8Array | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A folder with: a .skill (tar.gz, files in a top folder), a zip with files at its root, and a skill folder. */
function fixtures() {
  const packed = makeTarGz([
    { path: 'pdf-tools/', type: '5' },
    {
      path: 'pdf-tools/SKILL.md',
      content: skillMd('pdf-tools', 'Fill and merge PDF forms. Use for PDFs.', '', '# PDF tools\n\nSee [forms](references/forms.md).\n'),
    },
    { path: 'pdf-tools/references/forms.md', content: '# Forms\n\nField names.\n' },
  ]);
  const zipped = makeZip([
    { path: 'SKILL.md', content: skillMd('csv-cleaner', 'Clean CSV files. Use for messy CSVs.', '', '# CSV\n\nRun [the script](scripts/clean.py).\n') },
    { path: 'scripts/', unixMode: 0o40755 },
    { path: 'scripts/clean.py', content: 'print("clean")\n', unixMode: 0o100644 },
    { path: 'assets/logo.png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]), method: 'store' },
  ]);
  const dir = makeTree({ 'pdf-tools.skill': packed, 'csv.zip': zipped, 'folder/git-notes/SKILL.md': skillMd('git-notes') });
  return { dir, skill: join(dir, 'pdf-tools.skill'), zip: join(dir, 'csv.zip'), folder: join(dir, 'folder'), zipped };
}

interface IndexEntry {
  name: string;
  type: string;
  description: string;
  url: string;
  digest?: string;
}

/**
 * Behaves like Agent Framework's MCP skills source: reads skill://index.json; a skill-md entry is loaded by its url
 * and its siblings by relative path; an archive entry is read as one blob, checked against its digest, held to the
 * source's caps (20 files, 1 MB), unpacked, and its SKILL.md compared with the entry. Returns each skill's files.
 */
async function draftClientLoad(client: Client): Promise<Map<string, { type: string; files: Map<string, string> }>> {
  const raw = await client.readResource({ uri: 'skill://index.json' });
  const index = JSON.parse((raw.contents[0] as { text: string }).text) as { $schema: string; skills: IndexEntry[] };
  assert.equal(index.$schema, 'https://schemas.agentskills.io/discovery/0.2.0/schema.json');
  const loaded = new Map<string, { type: string; files: Map<string, string> }>();
  for (const entry of index.skills) {
    const files = new Map<string, string>();
    if (entry.type === 'skill-md') {
      const manifest = await client.readResource({ uri: entry.url });
      const text = (manifest.contents[0] as { text: string }).text;
      assert.equal(entry.digest, sha256(text));
      files.set('SKILL.md', text);
      for (const link of [...text.matchAll(/\]\(((?:references|scripts|assets)\/[^)#\s]+)\)/g)].map((match) => match[1]!)) {
        const sibling = await client.readResource({ uri: new URL(link, entry.url).href });
        files.set(link, (sibling.contents[0] as { text: string }).text);
      }
    } else if (entry.type === 'archive') {
      const read = await client.readResource({ uri: entry.url });
      const content = read.contents[0] as { blob?: string; mimeType?: string };
      assert.ok(content.blob, 'an archive is served as a blob');
      assert.match(content.mimeType ?? '', /^application\/(zip|gzip)$/);
      const bytes = Buffer.from(content.blob, 'base64');
      assert.equal(sha256(bytes), entry.digest, 'the archive matches its digest');
      assert.ok(bytes.length <= 1_000_000);
      const unpacked = await readSkillArchive(bytes);
      assert.deepEqual(unpacked.problems, []);
      assert.ok(unpacked.files.length <= 20);
      assert.equal(unpacked.folderName, undefined, 'files at the archive root, as the discovery format says');
      for (const file of unpacked.files) files.set(file.path, Buffer.from(file.bytes).toString('latin1'));
    } else {
      continue;
    }
    const { frontmatter } = parseSkillMarkdown(files.get('SKILL.md')!);
    assert.equal(frontmatter['name'], entry.name);
    assert.equal(frontmatter['description'], entry.description);
    loaded.set(entry.name, { type: entry.type, files });
  }
  return loaded;
}

describe('serve skill archives', () => {
  for (const era of ['modern', 'legacy'] as const satisfies readonly Era[]) {
    test(`archives beside a folder: listed, read, verified, activated (HTTP, ${era})`, async () => {
      const { skill, zip, folder } = fixtures();
      const server = await startHttp([skill, zip, folder]);
      try {
        assert.match(server.stderr(), /serving 3 skills/);
        const client = await connectHttp(server.url, era);
        const skills = new SkillsClient(client);
        const listing = await skills.list();
        assert.deepEqual(listing.skills.map((entry) => entry.uri).sort(), [
          'skill://csv-cleaner/SKILL.md',
          'skill://git-notes/SKILL.md',
          'skill://pdf-tools/SKILL.md',
        ]);
        const pdf = listing.skills.find((entry) => entry.uri === 'skill://pdf-tools/SKILL.md')!;
        // The SDK's skills client checks digest and size of what it reads against the listing.
        assert.equal((await skills.read(pdf, 'skill://pdf-tools/references/forms.md')).text, '# Forms\n\nField names.\n');
        const csv = listing.skills.find((entry) => entry.uri === 'skill://csv-cleaner/SKILL.md')!;
        assert.equal((await skills.read(csv, 'skill://csv-cleaner/scripts/clean.py')).text, 'print("clean")\n');
        const activated = await client.callTool({ name: 'activate_skill', arguments: { name: 'pdf-tools' } });
        const text = (activated.content as Array<{ text: string }>)[0]!.text;
        assert.match(text, /<skill_content name="pdf-tools"/);
        assert.match(text, /references\/forms\.md/);
        await client.close();
      } finally {
        await server.stop();
      }
    });
  }

  test('over stdio too', async () => {
    const { skill, zip, zipped } = fixtures();
    const { client } = await connectStdio([skill, zip], 'modern');
    try {
      const listing = await new SkillsClient(client).list();
      assert.equal(listing.skills.length, 2);
      const read = await client.readResource({ uri: 'skill://csv-cleaner/assets/logo.png' });
      assert.equal(Buffer.from((read.contents[0] as { blob: string }).blob, 'base64')[1], 0x50);
      // The archive itself, through the SDK's resources/read (no HTTP fast path here).
      const packed = await client.readResource({ uri: 'skill://csv-cleaner.zip' });
      assert.equal(sha256(Buffer.from((packed.contents[0] as { blob: string }).blob, 'base64')), sha256(zipped));
      await assert.rejects(client.readResource({ uri: 'skill://pdf-tools.tar.gz' }), /not found/i);
    } finally {
      await client.close();
    }
  });

  test('the draft-era index lists a root-level archive as an archive entry a draft client can load (and skill-md otherwise)', async () => {
    const { skill, zip, folder, zipped } = fixtures();
    const server = await startHttp([skill, zip, folder]);
    try {
      const client = await connectHttp(server.url, 'legacy');
      const loaded = await draftClientLoad(client);
      assert.deepEqual([...loaded.keys()].sort(), ['csv-cleaner', 'git-notes', 'pdf-tools']);
      // The zip has its files at the root: an archive entry, served byte for byte (the publisher's digest holds).
      assert.equal(loaded.get('csv-cleaner')!.type, 'archive');
      assert.deepEqual([...loaded.get('csv-cleaner')!.files.keys()].sort(), ['SKILL.md', 'assets/logo.png', 'scripts/clean.py']);
      const index = JSON.parse(((await client.readResource({ uri: 'skill://index.json' })).contents[0] as { text: string }).text) as { skills: IndexEntry[] };
      assert.equal(index.skills.find((entry) => entry.name === 'csv-cleaner')!.digest, sha256(zipped));
      assert.equal(index.skills.find((entry) => entry.name === 'csv-cleaner')!.url, 'skill://csv-cleaner.zip');
      // The .skill wraps its files in a top folder, which a draft client would not look into: skill-md.
      assert.equal(loaded.get('pdf-tools')!.type, 'skill-md');
      assert.equal(loaded.get('pdf-tools')!.files.get('references/forms.md'), '# Forms\n\nField names.\n');
      assert.equal(loaded.get('git-notes')!.type, 'skill-md');
      // The archive's files are readable one by one as well.
      assert.match(((await client.readResource({ uri: 'skill://csv-cleaner/SKILL.md' })).contents[0] as { text: string }).text, /name: csv-cleaner/);
      await client.close();
    } finally {
      await server.stop();
    }
    const plain = await startHttp(['--no-index-archives', zip]);
    try {
      const client = await connectHttp(plain.url, 'legacy');
      const loaded = await draftClientLoad(client);
      assert.equal(loaded.get('csv-cleaner')!.type, 'skill-md');
      await client.close();
    } finally {
      await plain.stop();
    }
  });

  test('an archive past the draft caps (20 files) is listed as skill-md', async () => {
    const many = makeZip([
      { path: 'SKILL.md', content: skillMd('many-files') },
      ...Array.from({ length: 25 }, (_, i) => ({ path: `references/r${i}.md`, content: `# ${i}\n` })),
    ]);
    const dir = makeTree({ 'many.zip': many });
    const server = await startHttp([join(dir, 'many.zip')]);
    try {
      const client = await connectHttp(server.url, 'legacy');
      const loaded = await draftClientLoad(client);
      assert.equal(loaded.get('many-files')!.type, 'skill-md');
      await client.close();
    } finally {
      await server.stop();
    }
  });

  test('a hostile or broken archive is reported in one line and the rest keeps serving; --strict refuses to start', async () => {
    const { skill, dir } = fixtures();
    writeFileSync(
      join(dir, 'slip.zip'),
      makeZip([
        { path: 'SKILL.md', content: skillMd('slip') },
        { path: '../../.bashrc', content: 'evil' },
      ]),
    );
    writeFileSync(
      join(dir, 'link.tgz'),
      makeTarGz([
        { path: 'SKILL.md', content: skillMd('link') },
        { path: 'passwd', type: '2', linkpath: '/etc/passwd' },
      ]),
    );
    writeFileSync(join(dir, 'junk.skill'), 'not an archive at all');
    writeFileSync(
      join(dir, 'bomb.zip'),
      makeZip([
        { path: 'SKILL.md', content: skillMd('bomb') },
        { path: 'zeros.bin', content: Buffer.alloc(64 * 1024 * 1024) },
      ]),
    );
    const args = [skill, join(dir, 'slip.zip'), join(dir, 'link.tgz'), join(dir, 'junk.skill'), join(dir, 'bomb.zip')];
    const server = await startHttp(args);
    try {
      const stderr = server.stderr();
      assert.match(stderr, /slip\.zip: unsafe entry path "\.\.\/\.\.\/\.bashrc": '\.\.' segment in path/);
      assert.match(stderr, /link\.tgz: symbolic link entry "passwd" refused/);
      assert.match(stderr, /junk\.skill: not a skill archive/);
      assert.match(stderr, /bomb\.zip: archive (expands more than|inflates past)/);
      assert.match(stderr, /serving 1 skill /);
      const client = await connectHttp(server.url, 'modern');
      const listing = await new SkillsClient(client).list();
      assert.deepEqual(
        listing.skills.map((entry) => entry.uri),
        ['skill://pdf-tools/SKILL.md'],
      );
      await client.close();
    } finally {
      await server.stop();
    }
    const strict = await runCli(['serve', '--strict', '--no-cache', ...args]);
    assert.equal(strict.code, 1);
    assert.match(strict.stderr, /--strict: 4 problem\(s\) in the skill archives/);
  });

  test('two archives holding the same skill: the first is served, the clash reported', async () => {
    const dir = makeTree({
      'a.zip': makeZip([{ path: 'SKILL.md', content: skillMd('same', 'First copy.') }]),
      'b.zip': makeZip([{ path: 'SKILL.md', content: skillMd('same', 'Second copy.') }]),
    });
    const server = await startHttp([join(dir, 'a.zip'), join(dir, 'b.zip')]);
    try {
      assert.match(server.stderr(), /two archives hold skill:\/\/same\/SKILL\.md/);
      const client = await connectHttp(server.url, 'modern');
      const listing = await new SkillsClient(client).list();
      assert.deepEqual(
        listing.skills.map((entry) => entry.frontmatter.description),
        ['First copy.'],
      );
      await client.close();
    } finally {
      await server.stop();
    }
  });

  test('a changed archive is reloaded; a removed one is dropped and comes back', async () => {
    const dir = makeTree({ 'live.zip': makeZip([{ path: 'SKILL.md', content: skillMd('live', 'Version one.') }]) });
    const path = join(dir, 'live.zip');
    const server = await startHttp([path]);
    const client = await connectHttp(server.url, 'modern');
    const description = async () => (await new SkillsClient(client).list()).skills.map((entry) => entry.frontmatter.description).join();
    try {
      assert.equal(await description(), 'Version one.');
      // Written beside it and renamed over it, as editors and downloads do.
      writeFileSync(
        join(dir, 'live.zip.tmp'),
        makeZip([
          { path: 'SKILL.md', content: skillMd('live', 'Version two.') },
          { path: 'notes.md', content: 'new' },
        ]),
      );
      renameSync(join(dir, 'live.zip.tmp'), path);
      await eventually(async () => ((await description()) === 'Version two.' ? true : undefined), 15_000, 'the new version');
      assert.equal(((await client.readResource({ uri: 'skill://live/notes.md' })).contents[0] as { text: string }).text, 'new');
      rmSync(path);
      await eventually(async () => ((await description()) === '' ? true : undefined), 15_000, 'the skill to go');
      assert.match(server.stderr(), /live\.zip: archive not found/);
      writeFileSync(path, makeZip([{ path: 'SKILL.md', content: skillMd('live', 'Version three.') }]));
      await eventually(async () => ((await description()) === 'Version three.' ? true : undefined), 15_000, 'the skill to come back');
      assert.match(server.stderr(), /reloaded/);
    } finally {
      await client.close();
      await server.stop();
    }
  });

  test('a config file names archives among its dirs; server.json fs roots may be archives', async () => {
    const { dir, skill, zip } = fixtures();
    writeFileSync(join(dir, 'skillport.yaml'), `dirs:\n  - ./pdf-tools.skill\n  - ${zip}\n`);
    writeFileSync(
      join(dir, 'server.json'),
      JSON.stringify({ name: 'x', skills: [{ id: 'pdf-tools', provider: 'fs', options: { root: './pdf-tools.skill' } }] }),
    );
    for (const config of ['skillport.yaml', 'server.json']) {
      const server = await startHttp(['--config', join(dir, config)]);
      try {
        const client = await connectHttp(server.url, 'modern');
        const uris = (await new SkillsClient(client).list()).skills.map((entry) => entry.uri).sort();
        assert.deepEqual(
          uris,
          config === 'skillport.yaml' ? ['skill://csv-cleaner/SKILL.md', 'skill://pdf-tools/SKILL.md'] : ['skill://pdf-tools/SKILL.md'],
          skill,
        );
        await client.close();
      } finally {
        await server.stop();
      }
    }
  });
});
