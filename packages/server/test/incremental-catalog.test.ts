import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DEFAULT_LIMITS, sha256Digest } from '@skillport/core';
import type { SkillManifest } from '@skillport/core';
import { Assembly } from '../src/catalog/assembly.js';
import { buildCatalogSkill } from '../src/catalog/catalog-skill.js';
import { assemble, normaliseRoot, scanRoot } from '../src/catalog/folder-scan.js';
import type { ScannedFolder } from '../src/catalog/folder-scan.js';
import { LiveCatalog } from '../src/catalog/live-catalog.js';
import type { CatalogSkill } from '../src/catalog/model.js';
import type { CompactSkill } from '../src/catalog/packed-files.js';
import { PersistedCatalog } from '../src/catalog/persisted-catalog.js';
import { CatalogSnapshot } from '../src/catalog/snapshot.js';

const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A seeded generator, so a failure names the seed that reproduces it. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
}
const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;

const memory = { kind: 'stored' as const, source: 'test', blobs: { read: async () => new Uint8Array() } };

/** A skill at `path` with some of a few files (some of them inside folders that are also skills, so files overlap). */
function syntheticSkill(next: () => number, path: string[], version: number): CatalogSkill {
  const paths = ['SKILL.md', ...['x.md', 'r/y.md', 'r/s/z.md', 'b/q.md', 'c/SKILL.md', 'a b/ü.md'].filter(() => next() < 0.5)];
  const files = paths.map((file) => {
    const digest = sha256Digest(Buffer.from(`${path.join('/')}/${file}@${version}`));
    return { path: file, size: file.length + version, digest, mimeType: 'text/markdown' };
  });
  const name = path.at(-1)!;
  const manifest: SkillManifest = {
    name,
    description: `Does ${name}.`,
    frontmatter: { name, description: `Does ${name}.` },
    headings: [],
    files,
    totalBytes: 1,
    packageDigest: sha256Digest(Buffer.from(`${path.join('/')}@${version}`)),
  };
  const skill = buildCatalogSkill(manifest, path, memory);
  assert.ok(typeof skill !== 'string', String(skill));
  return skill;
}

/** Every answer of two snapshots over a set of URIs and names: listing, pages, skills, files, folders, names. */
function assertSameAnswers(actual: CatalogSnapshot, expected: CatalogSnapshot, uris: Iterable<string>, names: Iterable<string>, label: string): void {
  assert.deepEqual(
    actual.skills.map((skill) => skill.uri),
    expected.skills.map((skill) => skill.uri),
    `${label}: listing`,
  );
  actual.skills.forEach((skill, index) => assert.equal(skill, expected.skills[index], `${label}: same skill objects`));
  for (const size of [1, 3, 50]) {
    let cursor: string | undefined;
    for (;;) {
      const a = actual.page(cursor, size);
      const b = expected.page(cursor, size);
      assert.deepEqual(
        a.skills.map((s) => s.uri),
        b.skills.map((s) => s.uri),
        `${label}: page after ${cursor}`,
      );
      assert.equal(a.more, b.more);
      if (!a.more) break;
      cursor = a.skills.at(-1)!.uri;
    }
  }
  for (const uri of uris) {
    assert.equal(actual.skill(uri), expected.skill(uri), `${label}: skill ${uri}`);
    const fa = actual.file(uri);
    const fb = expected.file(uri);
    assert.deepEqual(fa && [fa.skill.uri, fa.file], fb && [fb.skill.uri, fb.file], `${label}: file ${uri}`);
    assert.equal(actual.isDirectory(uri), expected.isDirectory(uri), `${label}: isDirectory ${uri}`);
    assert.deepEqual(actual.directory(uri), expected.directory(uri), `${label}: directory ${uri}`);
  }
  for (const name of names)
    assert.deepEqual(
      actual.named(name).map((s) => s.uri),
      expected.named(name).map((s) => s.uri),
      `${label}: named ${name}`,
    );
}

describe('incremental snapshots (ADR 0130)', () => {
  test('a snapshot derived by deltas answers exactly like one built from scratch, and leaves its parent untouched', () => {
    for (const seed of [1, 2, 3, 42, 2026]) {
      const next = random(seed);
      const segments = ['a', 'b', 'c', 'd'];
      const paths: string[][] = [];
      for (const x of segments) {
        paths.push([x]);
        for (const y of segments) {
          paths.push([x, y]);
          paths.push([x, y, pick(next, segments)]);
        }
      }
      const live = new Map<string, CatalogSkill>();
      const uris = new Set<string>();
      const seen = (skill: CatalogSkill) => {
        uris.add(skill.uri);
        uris.add(skill.rootUri);
        for (const file of skill.files) {
          uris.add(file.uri);
          uris.add(file.uri.slice(0, file.uri.lastIndexOf('/')));
        }
      };
      let version = 0;
      for (const path of paths)
        if (next() < 0.4) {
          const skill = syntheticSkill(next, path, version++);
          live.set(skill.uri, skill);
          seen(skill);
        }
      let snapshot = new CatalogSnapshot([...live.values()], 1);
      for (let step = 0; step < 120; step++) {
        const upsert: CatalogSkill[] = [];
        const remove: string[] = [];
        const count = 1 + Math.floor(next() * 4);
        for (let i = 0; i < count; i++) {
          const path = pick(next, paths);
          const uri = `skill://${path.join('/')}/SKILL.md`;
          if (live.has(uri) && next() < 0.4) {
            if (!remove.includes(uri) && !upsert.some((s) => s.uri === uri)) remove.push(uri);
          } else if (!remove.includes(uri) && !upsert.some((s) => s.uri === uri)) {
            const skill = syntheticSkill(next, path, version++);
            upsert.push(skill);
            seen(skill);
          }
        }
        const before = snapshot;
        const beforeListing = before.skills.map((skill) => skill.uri);
        const beforeFiles = [...uris].map((uri) => before.file(uri)?.skill.uri);
        snapshot = snapshot.withChanges({ upsert, remove }, step + 2);
        for (const uri of remove) live.delete(uri);
        for (const skill of upsert) live.set(skill.uri, skill);
        const names = new Set([...live.values()].map((skill) => skill.name));
        assertSameAnswers(snapshot, new CatalogSnapshot([...live.values()], 0), uris, names, `seed ${seed} step ${step}`);
        assert.deepEqual(
          before.skills.map((skill) => skill.uri),
          beforeListing,
          'the parent keeps its listing',
        );
        assert.deepEqual(
          [...uris].map((uri) => before.file(uri)?.skill.uri),
          beforeFiles,
          'the parent keeps its files',
        );
      }
    }
  });

  test('the overlay stays small: a long run of one-skill changes folds back into a fresh base', () => {
    const next = random(7);
    const skills = Array.from({ length: 200 }, (_, i) => syntheticSkill(next, [`s${i}`], 0));
    let snapshot = new CatalogSnapshot(skills, 1);
    let largest = 0;
    for (let step = 0; step < 3000; step++) {
      snapshot = snapshot.withChanges({ upsert: [syntheticSkill(next, [`s${step % 200}`], step + 1)], remove: [] }, step + 2);
      largest = Math.max(largest, snapshot.overlaySize);
    }
    assert.ok(largest > 0, 'changes go to the overlay');
    assert.ok(largest < 6000, `overlay bounded (largest ${largest})`);
    assert.equal(snapshot.size, 200);
  });
});

/** A fresh tree of skill folders, changed at random: add, edit, rename (folder and name), delete, nest. */
class RandomTree {
  readonly root = mkdtempSync(join(tmpdir(), 'skillport-incremental-'));
  readonly folders = new Set<string>();
  #n = 0;

  constructor(readonly next: () => number) {
    temps.push(this.root);
  }

  #write(rel: string, name: string, body: string): void {
    const dir = join(this.root, rel);
    mkdirSync(join(dir, 'refs'), { recursive: true });
    writeFileSync(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: Does ${name} things. Use when asked for ${name}.\n---\n\n# ${name}\n\n${body}\n`);
    writeFileSync(join(dir, 'refs', 'notes.md'), `notes ${body}\n`);
    this.folders.add(rel);
  }

  /** One random change; returns the paths it touched (what a watcher would report). */
  step(): string[] {
    const names = ['alpha', 'beta', 'gamma', 'delta'];
    const existing = [...this.folders].sort();
    const roll = this.next();
    if (existing.length === 0 || roll < 0.3) {
      // Add: sometimes nested in another skill, sometimes named unlike its folder (so two may want one URI).
      const parent = existing.length > 0 && this.next() < 0.3 ? pick(this.next, existing) : pick(this.next, ['', 'team', 'team/sub', 'other']);
      const folder = pick(this.next, names);
      const rel = parent === '' ? folder : `${parent}/${folder}`;
      if (this.folders.has(rel)) return this.step();
      const name = this.next() < 0.7 ? folder : pick(this.next, names);
      this.#write(rel, name, `v${this.#n++}`);
      return [join(this.root, rel)];
    }
    const rel = pick(this.next, existing);
    const dir = join(this.root, rel);
    if (roll < 0.55) {
      // Edit in place (sometimes the name, which moves the skill's URI).
      const name = this.next() < 0.7 ? rel.split('/').at(-1)! : pick(this.next, names);
      this.#write(rel, name, `v${this.#n++}`);
      return [join(dir, 'SKILL.md')];
    }
    if (roll < 0.75) {
      // Rename the folder (and everything nested in it).
      const target = `${rel
        .split('/')
        .slice(0, -1)
        .concat(pick(this.next, names) + String(this.#n++ % 3))
        .join('/')}`;
      if (this.folders.has(target) || [...this.folders].some((other) => other.startsWith(`${target}/`))) return this.step();
      renameSync(dir, join(this.root, target));
      for (const other of [...this.folders]) {
        if (other === rel || other.startsWith(`${rel}/`)) {
          this.folders.delete(other);
          this.folders.add(target + other.slice(rel.length));
        }
      }
      return [dir, join(this.root, target)];
    }
    // Delete the folder (and what is nested in it).
    rmSync(dir, { recursive: true, force: true });
    for (const other of [...this.folders]) if (other === rel || other.startsWith(`${rel}/`)) this.folders.delete(other);
    return [dir];
  }
}

function listingOf(snapshot: CatalogSnapshot): string[] {
  return snapshot.skills.map((skill) => `${skill.uri} ${skill.packageDigest} ${skill.origin.kind === 'folder' ? skill.origin.dir : ''}`);
}

describe('incremental folder catalog (ADR 0130)', () => {
  test('after random add/edit/rename/delete of skill folders, the live catalog equals a fresh scan (listing, digests, pages, problems)', async () => {
    for (const seed of [11, 12, 13]) {
      const next = random(seed);
      const tree = new RandomTree(next);
      for (let i = 0; i < 6; i++) tree.step();
      const roots = [normaliseRoot(tree.root, undefined)];
      const catalog = await LiveCatalog.open({ roots, limits: DEFAULT_LIMITS, scanThreads: 0 });
      try {
        for (let step = 0; step < 40; step++) {
          const paths = [...tree.step(), ...(next() < 0.3 ? tree.step() : [])];
          await catalog.reload(paths);
          const fresh = await LiveCatalog.open({ roots, limits: DEFAULT_LIMITS, scanThreads: 0 });
          const label = `seed ${seed} step ${step}`;
          assert.deepEqual(listingOf(catalog.snapshot), listingOf(fresh.snapshot), label);
          const uris = fresh.snapshot.skills.flatMap((skill) => [skill.uri, skill.rootUri, ...skill.files.map((file) => file.uri), `${skill.rootUri}/refs`]);
          const names = new Set(fresh.snapshot.skills.map((skill) => skill.name));
          // Skill objects differ (each scan makes its own), so answers are compared by what they say.
          for (const uri of uris) {
            assert.equal(catalog.snapshot.skill(uri)?.packageDigest, fresh.snapshot.skill(uri)?.packageDigest, `${label}: ${uri}`);
            assert.equal(catalog.snapshot.file(uri)?.skill.uri, fresh.snapshot.file(uri)?.skill.uri, `${label}: file ${uri}`);
            assert.deepEqual(catalog.snapshot.directory(uri), fresh.snapshot.directory(uri), `${label}: directory ${uri}`);
          }
          for (const name of names)
            assert.deepEqual(
              catalog.snapshot.named(name).map((s) => s.uri),
              fresh.snapshot.named(name).map((s) => s.uri),
            );
          const problems = (c: LiveCatalog) => c.problems.map((p) => `${p.severity} ${p.path} ${p.message}`).sort();
          assert.deepEqual(problems(catalog), problems(fresh), `${label}: problems`);
          fresh.close();
        }
      } finally {
        catalog.close();
      }
    }
  });

  test('the incremental assembly equals assemble() over every folder, whatever order folders come and go in', async () => {
    const next = random(99);
    const tree = new RandomTree(next);
    const roots = [normaliseRoot(tree.root, undefined)];
    const order = (a: ScannedFolder, b: ScannedFolder) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0);
    const assembly = new Assembly(order);
    let folders: ScannedFolder[] = [];
    for (let step = 0; step < 60; step++) {
      tree.step();
      // Rescan from disk; keep the objects of folders whose package is unchanged, like the live catalog does.
      const fresh = scanRoot(roots[0]!, { limits: DEFAULT_LIMITS }).folders;
      const removed = folders.filter(
        (old) => !fresh.some((f) => f.dir === old.dir && f.inspection.skill?.packageDigest === old.inspection.skill?.packageDigest),
      );
      const added = fresh.filter((f) => !folders.some((old) => f.dir === old.dir && f.inspection.skill?.packageDigest === old.inspection.skill?.packageDigest));
      folders = [...folders.filter((f) => !removed.includes(f)), ...added];
      assembly.update(removed, added);
      const full = assemble([...folders].sort(order));
      assert.deepEqual([...assembly.served.keys()].sort(), full.skills.map((s) => s.uri).sort(), `step ${step}: URIs`);
      for (const skill of full.skills) assert.equal(assembly.served.get(skill.uri)!.packageDigest, skill.packageDigest);
      assert.deepEqual(assembly.problems.map((p) => p.message).sort(), full.problems.map((p) => p.message).sort(), `step ${step}: problems`);
    }
  });

  test('a full rebuild keeps the skill objects of unchanged folders (one copy of the catalog, not two)', () => {
    const root = mkdtempSync(join(tmpdir(), 'skillport-rebuild-'));
    temps.push(root);
    // Plain skills, a folder named otherwise than its skill, and a nested one.
    for (const [dir, name] of [
      ['alpha', 'alpha'],
      ['beta', 'beta'],
      ['folder-x', 'gamma'],
      ['alpha/inner', 'inner'],
    ] as const) {
      mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(join(root, dir, 'SKILL.md'), `---\nname: ${name}\ndescription: Does ${name} things.\n---\n\n# ${name}\n`);
      writeFileSync(join(root, dir, 'notes.md'), `notes of ${name}\n`);
    }
    const roots = [normaliseRoot(root, undefined)];
    const order = (a: ScannedFolder, b: ScannedFolder) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0);
    const folders = scanRoot(roots[0]!, { limits: DEFAULT_LIMITS }).folders.sort(order);
    const first = new Assembly(order);
    first.update([], folders);
    assert.equal(first.served.size, 4);
    // What a restart's check or a full rescan does: a new assembly over the same (kept) folder objects.
    const rebuilt = new Assembly(order, first);
    rebuilt.update([], folders);
    assert.deepEqual([...rebuilt.served.keys()], [...first.served.keys()]);
    for (const [uri, skill] of rebuilt.served) assert.equal(skill, first.served.get(uri), `${uri}: the same object`);
    // Without the previous assembly, every skill is built again (what the check of a restored catalog used to do).
    const fresh = new Assembly(order);
    fresh.update([], folders);
    for (const [uri, skill] of fresh.served) assert.notEqual(skill, first.served.get(uri));
  });
});

describe('a lone change is applied without waiting out the debounce (issue 13)', () => {
  test('an edit after a quiet spell is served while a burst debounce of ten minutes would still be waiting', async () => {
    const root = mkdtempSync(join(tmpdir(), 'skillport-lone-'));
    temps.push(root);
    for (const name of ['alpha', 'beta']) {
      mkdirSync(join(root, name));
      writeFileSync(join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: Does ${name} things.\n---\n\n# ${name}\n`);
    }
    const roots = [normaliseRoot(root, undefined)];
    // Only the first event after a quiet spell may be applied soon: with the old single debounce this never applies.
    const catalog = await LiveCatalog.open({ roots, limits: DEFAULT_LIMITS, scanThreads: 0, debounceMs: 600_000, settleMs: 600_000 });
    catalog.watch();
    try {
      const skill = catalog.snapshot.skills[0]!;
      assert.ok(skill.origin.kind === 'folder');
      const dir = skill.origin.dir;
      const path = join(dir, 'SKILL.md');
      writeFileSync(path, readFileSync(path, 'utf8').replace(/\n$/, '\nA new line.\n'));
      for (let i = 0; i < 3000 && catalog.snapshot.skill(skill.uri)?.packageDigest === skill.packageDigest; i++) await new Promise((r) => setTimeout(r, 10));
      await catalog.settled();
      assert.notEqual(catalog.snapshot.skill(skill.uri)?.packageDigest, skill.packageDigest, 'the edit is served');
      assert.equal(
        catalog.snapshot.skill(skill.uri)?.packageDigest,
        scanRoot(roots[0]!, { limits: DEFAULT_LIMITS }).folders.find((f) => f.dir === dir)?.inspection.skill?.packageDigest,
      );
    } finally {
      catalog.close();
    }
  });
});

describe('the persisted catalog follows changes with a journal (issue 13)', () => {
  /** What a restart would start from, or a fresh scan finds: folder → package digest and problems. */
  const stateOf = (folders: readonly ScannedFolder[]) =>
    folders.map((f) => `${f.dir} ${f.inspection.skill?.packageDigest ?? '-'} ${f.inspection.problems.map((p) => p.message).join('; ')}`).sort();

  test('changes are appended, not rewritten: a restart restores exactly the catalog the last run ended with', async () => {
    for (const seed of [21, 22]) {
      const next = random(seed);
      const tree = new RandomTree(next);
      for (let i = 0; i < 6; i++) tree.step();
      const roots = [normaliseRoot(tree.root, undefined)];
      const cache = mkdtempSync(join(tmpdir(), 'skillport-persisted-'));
      temps.push(cache);
      const path = join(cache, 'catalog.json');
      const options = { roots, limits: DEFAULT_LIMITS, scanThreads: 0, persistPath: path };
      (await LiveCatalog.open(options)).close(); // cold: a base
      const base = readFileSync(path);
      for (let run = 0; run < 5; run++) {
        const catalog = await LiveCatalog.open(options);
        assert.ok(catalog.restoredAtStart, `seed ${seed} run ${run}: restored`);
        for (let step = 0; step < 6; step++) await catalog.reload(tree.step());
        catalog.close();
        const label = `seed ${seed} run ${run}`;
        // The base stays as it was: each run's changes went to the journal beside it.
        assert.deepEqual(readFileSync(path), base, `${label}: the base was not rewritten`);
        assert.ok(existsSync(`${path}.log`), `${label}: a journal`);
        const restored = new PersistedCatalog(path, roots, DEFAULT_LIMITS).load();
        assert.ok(restored !== undefined, label);
        assert.deepEqual(stateOf(restored), stateOf(scanRoot(roots[0]!, { limits: DEFAULT_LIMITS }).folders), label);
      }
    }
  });

  test('a base checked on a worker while it is read (loadChecked) says what load says, and nothing from a damaged one', async () => {
    const tree = new RandomTree(random(47));
    for (let i = 0; i < 8; i++) tree.step();
    const roots = [normaliseRoot(tree.root, undefined)];
    const cache = mkdtempSync(join(tmpdir(), 'skillport-persisted-'));
    temps.push(cache);
    const path = join(cache, 'catalog.json');
    (await LiveCatalog.open({ roots, limits: DEFAULT_LIMITS, scanThreads: 0, persistPath: path })).close();
    const expected = stateOf(new PersistedCatalog(path, roots, DEFAULT_LIMITS).load()!);
    // From 0 bytes on: the worker path whatever the size.
    assert.deepEqual(stateOf((await new PersistedCatalog(path, roots, DEFAULT_LIMITS).loadChecked(undefined, 0))!), expected);
    const bytes = readFileSync(path);
    const at = Math.floor(bytes.length / 2);
    bytes[at] = bytes[at] === 0x61 ? 0x62 : 0x61; // inside a string: still JSON, only the checksum tells
    writeFileSync(path, bytes);
    assert.equal(new PersistedCatalog(path, roots, DEFAULT_LIMITS).load(), undefined);
    assert.equal(await new PersistedCatalog(path, roots, DEFAULT_LIMITS).loadChecked(undefined, 0), undefined);
  });

  test('a restored folder is the scanned one: every field, every file record (packed straight from the base)', () => {
    const root = mkdtempSync(join(tmpdir(), 'skillport-restore-'));
    temps.push(root);
    // Folder names the concatenated path must not get wrong (a dot-folder goes through join), a link, nested skills.
    for (const [rel, name] of [
      ['plain', 'plain'],
      ['team/.hidden/dot', 'dot'],
      ['a b/ü', 'umlaut'],
      ['plain/nested', 'nested'],
    ] as const) {
      const dir = join(root, rel);
      mkdirSync(join(dir, 'refs', 'deep'), { recursive: true });
      // One declares what it needs: its requirements are saved with its frontmatter and must come back alike.
      const requires = name === 'nested' ? 'requires:\n  mcp: [rube]\n' : '';
      writeFileSync(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: Does ${name} things.\n${requires}---\n\n# ${name}\n\n## Usage\n`);
      writeFileSync(join(dir, 'refs', 'notes.md'), `notes ${name}\n`);
      writeFileSync(join(dir, 'refs', 'deep', 'data.json'), '{}\n');
      symlinkSync(join('refs', 'notes.md'), join(dir, 'link.md'));
    }
    const roots = [normaliseRoot(root, undefined)];
    const scanned = scanRoot(roots[0]!, { limits: DEFAULT_LIMITS }).folders;
    const path = join(root, '..', `${basename(root)}-catalog.json`);
    temps.push(path);
    new PersistedCatalog(path, roots, DEFAULT_LIMITS).writeBase(scanned);
    const restored = new PersistedCatalog(path, roots, DEFAULT_LIMITS).load();
    assert.ok(restored !== undefined);
    {
      // Served from a fresh restore: its entry's requirements come from the saved scan, the frontmatter text is
      // parsed only once something reads the frontmatter (a page's entry), and then it is the scanned one.
      const lazy = new PersistedCatalog(path, roots, DEFAULT_LIMITS).load()!.find((folder) => folder.segments.join('/') === 'plain/nested')!;
      const source = lazy.inspection.skill as CompactSkill;
      const scannedSkill = scanned.find((folder) => folder.segments.join('/') === 'plain/nested')!.inspection.skill!;
      const built = buildCatalogSkill(source, ['plain', 'nested'], { kind: 'folder', root: root, dir: lazy.dir, realDir: source.realDir });
      assert.ok(typeof built !== 'string');
      assert.deepEqual(built.requirements, scannedSkill.requirements);
      assert.ok(source.unparsed, 'reading the requirements parses no frontmatter');
      assert.deepEqual(built.entry.frontmatter, scannedSkill.frontmatter);
      assert.equal(source.unparsed, false);
      assert.ok(Object.isFrozen(built.frontmatter));
    }
    const plain = (folder: ScannedFolder) => {
      const skill = folder.inspection.skill;
      return {
        dir: folder.dir,
        segments: folder.segments,
        problems: folder.inspection.problems,
        // Field by field: a restored skill's frontmatter and requirements are accessors (its frontmatter parsed when first read).
        skill:
          skill === undefined
            ? undefined
            : {
                dir: skill.dir,
                realDir: skill.realDir,
                folderName: skill.folderName,
                name: skill.name,
                description: skill.description,
                frontmatter: skill.frontmatter,
                headings: skill.headings,
                totalBytes: skill.totalBytes,
                packageDigest: skill.packageDigest,
                requirements: skill.requirements,
                files: skill.files,
              },
      };
    };
    const byDir = (folders: readonly ScannedFolder[]) => folders.map(plain).sort((a, b) => (a.dir < b.dir ? -1 : 1));
    assert.equal(restored.length, 4);
    // Every InspectedSkill field is compared above (a field added later must be added there too).
    const fields = new Set([
      'dir',
      'realDir',
      'folderName',
      'name',
      'description',
      'frontmatter',
      'headings',
      'totalBytes',
      'packageDigest',
      'requirements',
      'files',
    ]);
    for (const folder of scanned) for (const key of Object.keys(folder.inspection.skill ?? {})) assert.ok(fields.has(key), `${key} is compared`);
    assert.ok(
      scanned.some((folder) => folder.inspection.skill?.requirements !== undefined),
      'a skill with requirements is compared',
    );
    assert.ok(
      scanned.some((folder) => folder.inspection.skill?.files.some((file) => file.target !== undefined)),
      'a link is recorded',
    );
    assert.deepEqual(byDir(restored), byDir(scanned));

    // A digest not written the canonical way is kept as given, not normalised.
    const odd = scanned.find((folder) => folder.segments.join('/') === 'plain')!;
    const skill = odd.inspection.skill!;
    const upper = `sha256:${skill.files[0]!.digest.slice(7).toUpperCase()}`;
    const changed: ScannedFolder = {
      ...odd,
      inspection: { ...odd.inspection, skill: { ...skill, files: skill.files.map((file, index) => (index === 0 ? { ...file, digest: upper } : file)) } },
    };
    new PersistedCatalog(path, roots, DEFAULT_LIMITS).writeBase([changed]);
    const again = new PersistedCatalog(path, roots, DEFAULT_LIMITS).load()!;
    assert.equal(again[0]!.inspection.skill!.files[0]!.digest, upper);
    assert.deepEqual(again[0]!.inspection.skill!.files.slice(1), skill.files.slice(1));
  });

  test('a torn journal line (a crash mid-append) and a journal left by an older base are not believed', async () => {
    const tree = new RandomTree(random(31));
    for (let i = 0; i < 5; i++) tree.step();
    const roots = [normaliseRoot(tree.root, undefined)];
    const cache = mkdtempSync(join(tmpdir(), 'skillport-persisted-'));
    temps.push(cache);
    const path = join(cache, 'catalog.json');
    const options = { roots, limits: DEFAULT_LIMITS, scanThreads: 0, persistPath: path };
    (await LiveCatalog.open(options)).close();
    const catalog = await LiveCatalog.open(options);
    await catalog.reload(tree.step());
    await catalog.reload(tree.step());
    catalog.close();
    const good = readFileSync(`${path}.log`, 'utf8');
    const expected = stateOf(scanRoot(roots[0]!, { limits: DEFAULT_LIMITS }).folders);
    const load = () => stateOf(new PersistedCatalog(path, roots, DEFAULT_LIMITS).load()!);
    assert.deepEqual(load(), expected);

    // A torn last line: ignored, and what came before it stands.
    appendFileSync(`${path}.log`, good.slice(0, 40)); // a line begun, never finished
    assert.deepEqual(load(), expected, 'torn last line');
    // A line whose bytes changed (its checksum no longer matches): the journal ends before it.
    const lines = good.trimEnd().split('\n');
    assert.ok(lines.length >= 2, 'two changes, two lines at least');
    const last = lines.at(-1)!;
    const damaged = `${last.slice(0, 80)}${last[80] === '0' ? '1' : '0'}${last.slice(81)}`;
    writeFileSync(`${path}.log`, `${lines.slice(0, -1).join('\n')}\n`);
    const before = load();
    assert.notDeepEqual(before, expected, 'the last line matters');
    writeFileSync(`${path}.log`, `${[...lines.slice(0, -1), damaged].join('\n')}\n`);
    assert.deepEqual(load(), before, 'a damaged line is dropped with what follows it');

    // A damaged journal is never appended to: the next save writes a whole base (and an empty journal after it).
    const baseBefore = readFileSync(path);
    const restarted = await LiveCatalog.open(options);
    await restarted.reload(tree.step());
    restarted.close();
    assert.notDeepEqual(readFileSync(path), baseBefore, 'a new base');
    assert.equal(existsSync(`${path}.log`), false, 'no journal after a new base');
    assert.ok(new PersistedCatalog(path, roots, DEFAULT_LIMITS).load() !== undefined);

    // A journal that followed an older base (a crash between writing a base and removing the journal) is ignored.
    const current = load();
    writeFileSync(`${path}.log`, good);
    assert.deepEqual(load(), current, "an older base's journal");
  });
});

describe('pre-serialised pages (issue 13)', () => {
  test('a page is made once per snapshot and key, never served for another snapshot, and the byte budget holds', async () => {
    const { PageCache } = await import('../src/http/page-cache.js');
    const cache = new PageCache(1000, 600);
    const a = new CatalogSnapshot([], 1);
    const b = new CatalogSnapshot([], 2);
    let made = 0;
    const make = (text: string) => () => {
      made++;
      return text;
    };
    assert.equal(cache.get(a, 'p1', make('x'.repeat(400)))!.toString(), 'x'.repeat(400));
    assert.equal(cache.get(a, 'p1', make('other'))!.toString(), 'x'.repeat(400), 'a hit');
    assert.equal(made, 1);
    assert.equal(cache.get(b, 'p1', make('y'.repeat(400)))!.toString(), 'y'.repeat(400), 'another snapshot: its own bytes');
    assert.equal(cache.get(a, 'p2', make('z'.repeat(400)))!.length, 400);
    assert.ok(cache.bytes <= 1000, `budget kept (${cache.bytes})`);
    assert.equal(cache.get(a, 'p1', make('again'))!.toString(), 'again', 'the oldest went first');
    assert.equal(cache.get(a, 'big', make('b'.repeat(700)))!.length, 700, 'too big to keep, still answered');
    assert.equal(
      cache.get(a, 'none', () => undefined),
      undefined,
    );
  });
});

describe('per-principal views follow deltas (ADR 0130)', () => {
  test('a view derived from the parent view equals one built afresh (listing, names by rank, session, fingerprint)', async () => {
    const { ViewCache } = await import('../src/access/views.js');
    const { parsePolicy } = await import('../src/access/policy.js');
    const { parsePrincipalSpec } = await import('../src/access/principal.js');
    const policy = parsePolicy(`
rules:
  - uri: skill://a/
    allow: [org:acme]
  - uri: skill://b/
    allow: [public]
  - skills: c
    deny: [user:mallory]
  - skills: d
    allow: [user:alice]
sessions:
  - for: project:web
    required: [b, skill://a/b/SKILL.md]
    pinned: [d]
`);
    const principals = ['user:alice org:acme', 'user:mallory org:acme', 'user:bob', 'user:carol project:web'].map((spec) => parsePrincipalSpec(spec));
    const next = random(5);
    const segments = ['a', 'b', 'c', 'd'];
    const paths = segments.flatMap((x) => [[x], ...segments.map((y) => [x, y])]);
    let version = 0;
    const live = new Map<string, CatalogSkill>();
    for (const path of paths)
      if (next() < 0.5) {
        const skill = syntheticSkill(next, path, version++);
        live.set(skill.uri, skill);
      }
    const incremental = new ViewCache();
    incremental.setPolicy(policy);
    let snapshot = new CatalogSnapshot([...live.values()], 1);
    for (const principal of principals) incremental.fingerprint(incremental.view(snapshot, principal));
    let derived = 0;
    for (let step = 0; step < 80; step++) {
      const path = pick(next, paths);
      const uri = `skill://${path.join('/')}/SKILL.md`;
      const delta = live.has(uri) && next() < 0.4 ? { upsert: [], remove: [uri] } : { upsert: [syntheticSkill(next, path, version++)], remove: [] };
      const parent = snapshot;
      snapshot = snapshot.withChanges(delta, step + 2);
      for (const gone of delta.remove) live.delete(gone);
      for (const skill of delta.upsert) live.set(skill.uri, skill);
      const fresh = new ViewCache();
      fresh.setPolicy(policy);
      const rebuilt = new CatalogSnapshot([...live.values()], 0);
      for (const principal of principals) {
        const view = incremental.view(snapshot, principal);
        if (view.parent?.deref() === incremental.view(parent, principal)) derived++;
        const expected = fresh.view(rebuilt, principal);
        const label = `step ${step} ${JSON.stringify(principal.user)}`;
        assertSameAnswers(view, expected, [...live.keys()], segments, label);
        const { sessionCatalog } = await import('../src/access/views.js');
        assert.deepEqual(
          sessionCatalog(view) && { r: sessionCatalog(view)!.required.map((s) => s.uri), p: sessionCatalog(view)!.pinned.map((s) => s.uri) },
          sessionCatalog(expected) && { r: sessionCatalog(expected)!.required.map((s) => s.uri), p: sessionCatalog(expected)!.pinned.map((s) => s.uri) },
          `${label}: session`,
        );
        assert.equal(incremental.fingerprint(view), fresh.fingerprint(expected), `${label}: fingerprint`);
      }
    }
    assert.ok(derived > 100, `views were derived from their parents (${derived})`);
  });
});
