import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { SkillportServer } from '../src/index.js';

/**
 * A plain server (folders, no access data) loads no native module: better-sqlite3 is loaded only when an access
 * store is opened (`--data`). Native addons show up in the process report's shared objects once loaded. This file
 * runs in its own process (node --test), so nothing else has loaded them before.
 */
const examples = resolve(import.meta.dirname, '../../../../examples/skills');
const loadedSqlite = () => (process.report.getReport() as { sharedObjects: string[] }).sharedObjects.some((path) => /better_sqlite3/.test(path));
const data = mkdtempSync(join(tmpdir(), 'skillport-lazy-'));
after(() => rmSync(data, { recursive: true, force: true }));

test('a plain serve over folders, stdio and HTTP, loads no native module; an access store loads SQLite when opened', async () => {
  assert.equal(loadedSqlite(), false, 'nothing loaded it before the test');
  const plain = await SkillportServer.open({ dirs: [examples], cacheDir: false, scanThreads: 0 });
  const running = await plain.serveHttp({ host: '127.0.0.1', port: 0 });
  const health = (await (await fetch(running.url.replace(/\/mcp$/, '/healthz'))).json()) as { skills: number };
  assert.ok(health.skills > 0);
  const listed = await fetch(running.url.replace(/\/mcp$/, '/api/v1/catalog'));
  assert.equal(listed.status, 200);
  await plain.close();
  assert.equal(loadedSqlite(), false, 'serving folders loaded better-sqlite3');

  const withData = await SkillportServer.open({ dirs: [examples], cacheDir: false, scanThreads: 0, access: { dataDir: data } });
  assert.equal(loadedSqlite(), true, 'an access store is SQLite: opening one loads it');
  await withData.close();
});
