#!/usr/bin/env node
// Runs every compiled test file with node:test, after making sure the test-only tools are installed:
// the official MCP conformance CLI and a Node 22 to run it (it needs Node >= 22), both from the npm registry,
// into .tools/ (ignored by git). Set SKILLPORT_SKIP_CONFORMANCE=1 to leave them out, SKILLPORT_INSPECTOR=1 to add the
// MCP Inspector (skipped otherwise).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const tools = join(root, '.tools');
const CONFORMANCE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
// The MCP Inspector (its CLI mode is tested in packages/cli/test/inspector.test.ts) is about 110 MB with a web UI,
// so it is installed only on request: SKILLPORT_INSPECTOR=1. Its own prefix, so the install above is left alone.
const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';

if (process.env.SKILLPORT_SKIP_CONFORMANCE !== '1') {
  const ready = existsSync(join(tools, 'node_modules/.bin/conformance')) && existsSync(join(tools, 'node_modules/node/bin/node'));
  if (!ready) {
    process.stderr.write(`test setup: installing ${CONFORMANCE} and node@22 into .tools/\n`);
    execFileSync('npm', ['install', '--prefix', tools, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', CONFORMANCE, 'node@22'], { stdio: 'inherit' });
  }
  process.env.SKILLPORT_CONFORMANCE_NODE = join(tools, 'node_modules/node/bin/node');
  process.env.SKILLPORT_CONFORMANCE_CLI = join(tools, 'node_modules/.bin/conformance');
}

if (process.env.SKILLPORT_INSPECTOR === '1') {
  const prefix = join(tools, 'inspector');
  // It needs Node >= 22.19: the Node 22 installed for the conformance CLI, or its own.
  const sharedNode = join(tools, 'node_modules/node/bin/node');
  const packages = existsSync(sharedNode) ? [INSPECTOR] : [INSPECTOR, 'node@22'];
  if (!existsSync(join(prefix, 'node_modules/@modelcontextprotocol/inspector/package.json'))) {
    process.stderr.write(`test setup: installing ${packages.join(' and ')} into .tools/inspector/\n`);
    execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', ...packages], { stdio: 'inherit' });
  }
  process.env.SKILLPORT_INSPECTOR_CLI = join(prefix, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  process.env.SKILLPORT_INSPECTOR_NODE = existsSync(sharedNode) ? sharedNode : join(prefix, 'node_modules/node/bin/node');
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
