import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { REPO } from '@skillport/test-kit';
import { environment } from '../src/environment.js';

/** The environment is read in one module: the CLI's environment.ts; the libraries take options. */

function withEnv<T>(values: Record<string, string | undefined>, run: () => T): T {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  try {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    return run();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

test("the libraries' budgets: whole numbers are read, anything else keeps the default", () => {
  const unset = {
    SKILLPORT_PAGE_CACHE_MB: undefined,
    SKILLPORT_PG_POOL_MAX: undefined,
    SKILLPORT_PG_BLOB_CACHE_MB: undefined,
    SKILLPORT_PG_ACCESS_POOL_MAX: undefined,
    SKILLPORT_WATCH_LIMIT: undefined,
    SKILLPORT_CONTENT_CACHE_MB: undefined,
  };
  const none = withEnv(unset, () => environment());
  assert.equal(none.pageCacheMb, undefined);
  assert.equal(none.pgPoolMax, undefined);
  assert.equal(none.watchLimit, undefined);
  assert.equal(none.contentCacheMb, undefined);
  const set = withEnv(
    {
      ...unset,
      SKILLPORT_PAGE_CACHE_MB: ' 0 ',
      SKILLPORT_PG_POOL_MAX: '25',
      SKILLPORT_PG_BLOB_CACHE_MB: '512',
      SKILLPORT_PG_ACCESS_POOL_MAX: '2',
      SKILLPORT_WATCH_LIMIT: '0',
      SKILLPORT_CONTENT_CACHE_MB: '128',
    },
    () => environment(),
  );
  assert.deepEqual([set.pageCacheMb, set.pgPoolMax, set.pgBlobCacheMb, set.pgAccessPoolMax, set.watchLimit, set.contentCacheMb], [0, 25, 512, 2, 0, 128]);
  for (const wrong of ['', 'lots', '-5', '1.5', '9999999']) {
    assert.equal(withEnv({ SKILLPORT_PAGE_CACHE_MB: wrong }, () => environment()).pageCacheMb, undefined, wrong);
    assert.equal(withEnv({ SKILLPORT_CONTENT_CACHE_MB: wrong }, () => environment()).contentCacheMb, undefined, wrong);
  }
  // A pool of no connections is no pool: the default stays.
  assert.equal(withEnv({ SKILLPORT_PG_POOL_MAX: '0' }, () => environment()).pgPoolMax, undefined);
});

test('SKILLPORT_WORD_VECTORS=0 turns the word vectors off; anything else leaves them on', () => {
  assert.equal(withEnv({ SKILLPORT_WORD_VECTORS: '0' }, () => environment()).wordVectors, false);
  for (const value of [undefined, '', '1', 'yes'])
    assert.equal(withEnv({ SKILLPORT_WORD_VECTORS: value }, () => environment()).wordVectors, true, String(value));
});

test('no library reads process.env: only the CLI environment module (and code that hands a child its environment)', () => {
  // Each of these passes the whole environment to a process it starts, or expands ${VAR} in a config file the user wrote.
  const handsOn = new Set([
    'packages/client/src/connect.ts',
    'packages/server/src/providers/git/git-command.ts',
    'packages/cli/src/config.ts',
    'packages/test-kit/src',
  ]);
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && /process\.env\b/.test(readFileSync(path, 'utf8'))) found.push(relative(REPO, path));
    }
  };
  for (const pkg of readdirSync(join(REPO, 'packages'))) {
    const src = join(REPO, 'packages', pkg, 'src');
    if (statSync(join(REPO, 'packages', pkg)).isDirectory() && readdirSync(join(REPO, 'packages', pkg)).includes('src')) walk(src);
  }
  const readers = found.filter((path) => path !== 'packages/cli/src/environment.ts' && !handsOn.has(path) && !path.startsWith('packages/test-kit/src/'));
  assert.deepEqual(readers, []);
});
