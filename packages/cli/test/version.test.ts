import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SERVER_VERSION } from '@skillport/server';
import { VERSION } from '../src/main.js';
import { REPO, runCli } from '@skillport/test-kit';

test('every package, the CLI and serverInfo report one version', async () => {
  for (const pkg of ['core', 'server', 'client', 'registry', 'cli']) {
    const manifest = JSON.parse(readFileSync(join(REPO, 'packages', pkg, 'package.json'), 'utf8')) as { version: string };
    assert.equal(manifest.version, VERSION, pkg);
  }
  assert.equal(SERVER_VERSION, VERSION);
  const run = await runCli(['--version']);
  assert.equal(run.stdout.trim(), VERSION);
});
