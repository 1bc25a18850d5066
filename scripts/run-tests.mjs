#!/usr/bin/env node
// Runs every compiled test file with node:test, after making sure the test-only tools are installed:
// the official MCP conformance CLI and a Node 22 to run it (it needs Node >= 22), both from the npm registry,
// into .tools/ (ignored by git). Set SKILLPORT_SKIP_CONFORMANCE=1 to leave them out.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const tools = join(root, '.tools');
const CONFORMANCE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';

if (process.env.SKILLPORT_SKIP_CONFORMANCE !== '1') {
  const ready = existsSync(join(tools, 'node_modules/.bin/conformance')) && existsSync(join(tools, 'node_modules/node/bin/node'));
  if (!ready) {
    process.stderr.write(`test setup: installing ${CONFORMANCE} and node@22 into .tools/\n`);
    execFileSync('npm', ['install', '--prefix', tools, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', CONFORMANCE, 'node@22'], { stdio: 'inherit' });
  }
  process.env.SKILLPORT_CONFORMANCE_NODE = join(tools, 'node_modules/node/bin/node');
  process.env.SKILLPORT_CONFORMANCE_CLI = join(tools, 'node_modules/.bin/conformance');
}

const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.test.js')) files.push(path);
  }
};
for (const pkg of readdirSync(join(root, 'packages'))) {
  const dir = join(root, 'packages', pkg, 'dist', 'test');
  if (existsSync(dir)) walk(dir);
}
const filter = process.argv.slice(2);
const selected = filter.length > 0 ? files.filter((file) => filter.some((part) => file.includes(part))) : files;
if (selected.length === 0) {
  // node --test with no files would fall back to searching the whole tree (bench data included).
  process.stderr.write(`no test file matches ${filter.join(', ')}\n`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...selected.sort()], { stdio: 'inherit', cwd: root });
process.exit(result.status ?? 1);
