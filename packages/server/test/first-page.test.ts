import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { CORPUS, connectHttp, connectStdio, eventually, makeTree, removeTrees, skillMd } from '@skillport/test-kit';
import type { TreeSpec } from '@skillport/test-kit';
import { DEFAULT_LIMITS, checkFrontmatter, discoverSkills, parseSkillMarkdown } from '@skillport/core';
import { assemble, normaliseRoot, scanRoot } from '../src/catalog/folder-scan.js';
import type { FolderRoot, ScannedFolder } from '../src/catalog/folder-scan.js';
import { frontmatterName, plainName } from '../src/catalog/first-page.js';
import { scanInWorkers } from '../src/catalog/parallel-scan.js';
import { CatalogSnapshot } from '../src/catalog/snapshot.js';
import { SkillportServer } from '../src/app.js';

after(removeTrees);

/**
 * A tree where the first page is not simply the first folders: groups of skills, folders named otherwise than their
 * skill (one whose spot sorts first, one whose spot is taken and so moves under its folder, two that want one spot),
 * a nested skill, broken and oversize skills, a FIFO and a link to a device named SKILL.md, a linked skill folder,
 * names the quick reading leaves to the parser (quoted with escapes, over two lines, upper case).
 */
function hostileTree(count: number): string {
  const spec: TreeSpec = {};
  for (let i = 0; i < count; i++) {
    const name = `skill-${String(i).padStart(5, '0')}`;
    const group = `group-${Math.floor(i / 100)}`;
    spec[`${group}/${name}/SKILL.md`] = skillMd(name, `Skill number ${i}.`);
    spec[`${group}/${name}/references/notes.md`] = `notes ${i}\n`;
  }
  spec['group-0/zzz-folder/SKILL.md'] = skillMd('aaa-first', 'Named to sort first, in a folder that sorts last.');
  spec['group-0/yyy-taken/SKILL.md'] = skillMd('skill-00003', 'Wants a spot that is taken, so is served under its folder.');
  spec['group-0/www-one/SKILL.md'] = skillMd('aab-wanted', 'One of two that want one spot.');
  spec['group-0/xxx-two/SKILL.md'] = skillMd('aab-wanted', 'The other.');
  spec['group-0/skill-00001/inner/SKILL.md'] = skillMd('inner', 'A nested skill.');
  spec['group-0/aaa-broken/SKILL.md'] = '---\nname: [not closed\n---\n';
  spec['group-0/aaa-big/SKILL.md'] = `${skillMd('aaa-big', 'Too large to serve.')}${'x'.repeat(DEFAULT_LIMITS.maxBytes + 1)}`;
  spec['group-0/aaa-quoted/SKILL.md'] = '---\nname: "aaa-\\u0071uoted"\ndescription: An escaped name, for the parser.\n---\n\n# q\n';
  spec['group-0/aaa-folded/SKILL.md'] = '---\nname: aaa\n  folded\ndescription: A name over two lines.\n---\n\n# f\n';
  spec['group-0/Aaa-Upper/SKILL.md'] = '---\nname: Aaa-Upper\ndescription: Upper case, a warning.\n---\n\n# u\n';
  spec['group-0/aaa-device/SKILL.md'] = { symlink: '/dev/zero' };
  // Past the parser's stack on this thread and a worker's, at different depths: refused on both.
  spec['group-0/aaa-deep/SKILL.md'] = `---\nname: aaa-deep\ndescription: Nested too deep.\nx-deep: ${'['.repeat(900)}${']'.repeat(900)}\n---\n`;
  spec['linked/SKILL.md'] = skillMd('linked', 'Served through a link.');
  spec['group-0/aaa-fifo/README.md'] = 'a FIFO named SKILL.md beside me\n';
  const dir = makeTree(spec);
  execFileSync('mkfifo', [join(dir, 'group-0', 'aaa-fifo', 'SKILL.md')]);
  makeTree({ 'group-1/aaa-link': { symlink: join(dir, 'linked') } }, dir);
  return dir;
}

/** A scan in workers that answers its first page early, as a cold `serve --http` runs it: its page and the whole. */
async function scanWithPage(roots: FolderRoot[], pageSize: number, maxInspected: number, shards = 2) {
  const told: { page?: ScannedFolder[] | undefined; times: number; walked?: boolean } = { times: 0 };
  let found = 0;
  const onProgress = (progress: { found: number }) => {
    found = progress.found;
  };
  const scan = await scanInWorkers(roots, DEFAULT_LIMITS, undefined, shards, onProgress, undefined, undefined, {
    pageSize,
    maxInspected,
    onPage: (folders) => {
      told.page = folders;
      told.times++;
      // Whether the whole tree had been walked when the page came (shard 0 says how many skills it found then).
      told.walked = found > 0;
    },
  });
  assert.equal(told.times, 1, 'told once, before the scan ends');
  return { page: told.page, scan, walked: told.walked };
}

const summary = (folders: readonly ScannedFolder[]) =>
  folders
    .map(
      (folder) => `${folder.dir} ${folder.segments.join('/')} ${folder.inspection.skill?.packageDigest ?? 'unservable'} ${folder.inspection.problems.length}`,
    )
    .sort();

const pageOf = (folders: Parameters<typeof assemble>[0], size: number) => {
  const page = new CatalogSnapshot(assemble(folders).skills, 1).page(undefined, size);
  return { uris: page.skills.map((skill) => `${skill.uri} ${skill.packageDigest}`), more: page.more };
};

test('the first page from the folders that decide it is the first page of a full scan, whatever its size', async () => {
  const dir = hostileTree(450);
  const roots: FolderRoot[] = [normaliseRoot(dir, undefined), normaliseRoot(join(dir, 'group-2'), 'second')];
  const full = roots.flatMap((root) => scanRoot(root, { limits: DEFAULT_LIMITS }).folders);
  // The server's full scan runs in workers: their verdicts are the ones to match.
  const workers = (await scanInWorkers(roots, DEFAULT_LIMITS, undefined, 2)).folders;
  for (const pageSize of [1, 2, 5, 10, 40, 120]) {
    const { page: early, scan, walked } = await scanWithPage(roots, pageSize, 4 * (pageSize + 1) + 64);
    assert.ok(early !== undefined, `a page of ${pageSize} is found`);
    // Within group-0 the page is found from its corner of the tree; a page of 120 reaches group-1's linked folder,
    // which only the whole walk places, so that page comes after it.
    assert.equal(walked, pageSize === 120, `a page of ${pageSize} before the whole walk: ${!walked}`);
    assert.deepEqual(summary(scan.folders), summary(workers), `the scan with a page of ${pageSize} finds what the plain one finds`);
    for (const folder of early) assert.ok(scan.folders.includes(folder), `a page folder is one of the scan's, not read again: ${folder.dir}`);
    assert.ok(early.length < full.length, `fewer folders than the scan's (${early.length} of ${full.length}, page of ${pageSize})`);
    assert.deepEqual(pageOf(early, pageSize), pageOf(full, pageSize), `page of ${pageSize}`);
    assert.deepEqual(pageOf(early, pageSize), pageOf(workers, pageSize), `page of ${pageSize}, workers`);
  }
  // The renamed folders are where the full scan puts them.
  const first = pageOf(full, 5).uris.map((line) => line.split(' ')[0]);
  assert.equal(first[0], 'skill://group-0/aaa-first/SKILL.md');
  const served = assemble(full).skills.map((skill) => skill.uri);
  assert.ok(served.includes('skill://group-0/yyy-taken/skill-00003/SKILL.md'), served.filter((uri) => uri.includes('yyy')).join(', '));
});

test('a URI conflict among the folders of the first page leaves it to the full scan', async () => {
  // Two roots that both hold skill://group-0/skill-00000: a cold start refuses that, so no page may be served first.
  const roots = [normaliseRoot(hostileTree(150), undefined), normaliseRoot(makeTree({ 'group-0/skill-00000/SKILL.md': skillMd('skill-00000') }), undefined)];
  const { page, scan } = await scanWithPage(roots, 5, 64);
  assert.equal(page, undefined);
  assert.equal(new Set(scan.folders.map((folder) => folder.dir)).size, scan.folders.length, 'each folder once');
  assert.ok((await scanWithPage(roots.slice(0, 1), 5, 64)).page, 'one root alone has its page');
});

test('with helper shards the page comes from shard 0 while they take the folders from the other end; every folder once', async () => {
  const spec: TreeSpec = {};
  for (let i = 0; i < 1100; i++) spec[`group-${i % 7}/skill-${String(i).padStart(5, '0')}/SKILL.md`] = skillMd(`skill-${String(i).padStart(5, '0')}`);
  const roots = [normaliseRoot(makeTree(spec), undefined)];
  const full = scanRoot(roots[0]!, { limits: DEFAULT_LIMITS }).folders;
  const { page, scan, walked } = await scanWithPage(roots, 100, 404);
  assert.equal(walked, false, 'the page before the whole tree was walked');
  assert.equal(scan.shards, 2);
  assert.ok(page !== undefined && page.length < 404);
  assert.deepEqual(pageOf(page, 100), pageOf(full, 100));
  assert.deepEqual(summary(scan.folders), summary(full));
  // A page that cannot be found within the budget: the scan still finds every folder, once.
  const none = await scanWithPage(roots, 100, 50);
  assert.equal(none.page, undefined);
  assert.deepEqual(summary(none.scan.folders), summary(full));
});

test('the quick name reading agrees with the parser on every real SKILL.md it reads, and leaves doubtful ones to it', {
  skip: existsSync(CORPUS) ? false : `corpus not found at ${CORPUS}`,
}, () => {
  const dirs = [CORPUS, resolve(import.meta.dirname, '../../../../bench')];
  let read = 0;
  let agreed = 0;
  for (const base of dirs) {
    let found;
    try {
      found = discoverSkills(base).skills;
    } catch {
      continue;
    }
    for (const skill of found) {
      let text: string;
      try {
        text = readFileSync(join(skill.dir, 'SKILL.md'), 'utf8');
      } catch {
        continue;
      }
      read++;
      const quick = plainName(text.slice(0, 4096));
      if (quick === undefined) continue;
      let parsed: string | undefined;
      try {
        parsed = checkFrontmatter(parseSkillMarkdown(text).frontmatter, skill.segments.at(-1)).name;
      } catch {
        continue; // not served: its name bounds nothing
      }
      assert.equal(quick, parsed, join(skill.dir, 'SKILL.md'));
      agreed++;
    }
  }
  assert.ok(read > 700 && agreed > 600, `${agreed} of ${read} read quickly`);
  for (const doubtful of [
    '---\nname: foo\n  bar\ndescription: d\n---\n',
    '---\nname: foo # a comment\n---\n',
    '---\nname:foo\n---\n',
    '---\nname: foo\nname: bar\n---\n',
    '---\n{name: foo}\n---\n',
    '---\nname: "fo\\o"\n---\n',
    '---\nname: foo\n',
    '---\ndescription: |\n  x\n? name\n: foo\n---\n',
    'name: foo\n---\n',
  ])
    assert.equal(plainName(doubtful), undefined, JSON.stringify(doubtful));
  assert.equal(plainName('\uFEFF---\r\nname: "foo-1"\r\ndescription: d\r\n---\r\n'), 'foo-1');
});

test('a FIFO or a device where SKILL.md was is never waited on: no name, the parent path bounds it', () => {
  const dir = hostileTree(1);
  assert.equal(frontmatterName(join(dir, 'group-0', 'aaa-fifo'), 'aaa-fifo', { limits: DEFAULT_LIMITS }), undefined);
  assert.equal(frontmatterName(join(dir, 'group-0', 'aaa-device'), 'aaa-device', { limits: DEFAULT_LIMITS }), undefined);
  assert.equal(frontmatterName(join(dir, 'group-0', 'skill-00000'), 'skill-00000', { limits: DEFAULT_LIMITS }), 'skill-00000');
});

const MODERN = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
};
/** One plain 2026-era request over HTTP (the bench's shape): its result. */
async function call(url: string, method: string, params: Record<string, unknown>) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'first-page-test', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...MODERN, 'mcp-method': method, ...(typeof params['uri'] === 'string' ? { 'mcp-name': params['uri'] } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: meta } }),
  });
  const text = await response.text();
  const json = JSON.parse(text.startsWith('event:') ? /^data: (.*)$/m.exec(text)![1]! : text);
  if (json.error) throw new Error(json.error.message);
  return json.result;
}
const sha = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

test('over HTTP a cold start answers its first page before the whole scan; everything else waits for it and is whole', async () => {
  const dir = hostileTree(1100);
  const server = await SkillportServer.open({ dirs: [dir], firstPageEarly: true, pageSize: 20, cacheDir: false });
  const live = server.catalog.live;
  assert.equal(live.partial, true, 'the first snapshot holds the first page only');
  assert.ok(live.snapshot.size < 200, `${live.snapshot.size} skills read before the first answer`);
  // The early page itself (taken now, before the scan can have ended: that needs this thread).
  const earlyPage = JSON.stringify(server.service.listSkillsOf(live.snapshot, undefined));
  const order: string[] = [];
  void live.complete.then(() => order.push('complete'));
  const running = await server.serveHttp({ host: '127.0.0.1', port: 0 });
  try {
    const first = await call(running.url, 'skills/list', {});
    if (live.partial) order.push('first page');
    assert.equal(first.skills.length, 20);
    assert.ok(first.nextCursor, 'more pages, certainly');
    const ready = await fetch(running.url.replace(/\/mcp$/, '/readyz'));
    if (live.partial) assert.equal(ready.status, 503, 'not ready for traffic while only the first page can be answered');
    // A page-1 SKILL.md changes while the scan runs; a second page and a read wait for the whole catalog.
    const changed = first.skills[1].uri as string;
    appendFileSync(join(dir, changed.slice('skill://'.length)), '\nchanged while the scan ran\n');
    const second = call(running.url, 'skills/list', { cursor: first.nextCursor }).then((page) => (order.push('second page'), page));
    const read = call(running.url, 'resources/read', { uri: first.skills[0].uri }).then((result) => (order.push('read'), result));
    const [page2] = await Promise.all([second, read, server.verified]);
    assert.ok(order.indexOf('complete') < order.indexOf('second page') && order.indexOf('complete') < order.indexOf('read'), order.join(', '));
    assert.equal(live.partial, false);
    assert.equal(page2.skills.length, 20);
    const whole = JSON.parse(JSON.stringify(server.service.listSkillsOf(live.snapshot, undefined)));
    const early = JSON.parse(earlyPage);
    const others = (page: { skills: Array<{ uri: string }> }) => JSON.stringify(page.skills.filter((skill) => skill.uri !== changed));
    assert.equal(others(whole), others(early), 'the early page is the first page of the whole catalog');
    assert.equal(whole.nextCursor, early.nextCursor);

    // Once whole: the first page is what a full scan lists (same entries unless the changed skill), and every
    // file listed on it reads back as its digest and size say, through real clients of both eras.
    const again = await call(running.url, 'skills/list', {});
    assert.equal(others(again), others(first));
    assert.equal(again.nextCursor, first.nextCursor);
    for (const era of ['legacy', 'modern'] as const) {
      const client = await connectHttp(running.url, era);
      try {
        const skills = new SkillsClient(client);
        const listed = await skills.list();
        // Every file of the first page read and checked by the client (size, digest, frontmatter).
        for (const skill of listed.skills.slice(0, 20)) {
          if (skill.uri === changed || skill.resources === 'dynamic') continue;
          for (const resource of skill.resources) await skills.read(skill, resource.uri);
        }
        assert.ok(listed.skills.length > 1100, `${listed.skills.length} listed`);
      } finally {
        await client.close();
      }
    }
    // The changed skill is served as it is now: its digest and its bytes agree (a read never serves other bytes).
    await eventually(
      async () => {
        const entry = await call(running.url, 'skills/get', { uri: changed });
        const manifest = entry.skill.resources.find((resource: { uri: string }) => resource.uri === changed);
        const served = await call(running.url, 'resources/read', { uri: changed });
        const text = served.contents[0].text as string;
        return manifest.digest === sha(Buffer.from(text)) && text.includes('changed while the scan ran') ? true : undefined;
      },
      30_000,
      'the changed SKILL.md served with its own digest',
    );
  } finally {
    await server.close();
  }
});

test('over stdio the first answer waits for the whole scan and lists what HTTP lists', async () => {
  const dir = hostileTree(300);
  const { client } = await connectStdio([dir, '--no-watch'], 'modern');
  const http = await SkillportServer.open({ dirs: [dir], firstPageEarly: true, cacheDir: false, pageSize: 100 });
  const running = await http.serveHttp({ host: '127.0.0.1', port: 0 });
  try {
    const early = await call(running.url, 'skills/list', {});
    const viaStdio = await new SkillsClient(client).list();
    assert.deepEqual(
      viaStdio.skills.slice(0, 100).map((skill) => skill.uri),
      early.skills.map((skill: { uri: string }) => skill.uri),
    );
    await http.verified;
    const all = (await new SkillsClient(client).list()).skills.length;
    assert.equal(all, http.catalog.snapshot.size);
    assert.ok(readdirSync(dir).length > 2);
  } finally {
    await client.close();
    await http.close();
  }
});
