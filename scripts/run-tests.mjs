#!/usr/bin/env node
// Runs every compiled test file with node:test, after making sure the test-only tools are installed:
// the official MCP conformance CLI and a Node 22 to run it (it needs Node >= 22), both from the npm registry,
// into .tools/ (ignored by git). Set SKILLPORT_SKIP_CONFORMANCE=1 to leave them out, SKILLPORT_INSPECTOR=1 to add the
// MCP Inspector (skipped otherwise).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
    execFileSync('npm', ['install', '--prefix', tools, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', CONFORMANCE, 'node@22'], {
      stdio: 'inherit',
    });
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
// tsc never deletes outputs: a test moved to another package (or deleted) leaves its old .test.js behind in a checkout
// built before the move. Only compiled tests whose TypeScript source still exists run.
const live = (file) => {
  const [pkgDir, rel] = file.split(`${join('dist', 'test')}/`);
  return existsSync(join(pkgDir, 'test', rel.replace(/\.js$/, '.ts')));
};
files.splice(0, files.length, ...files.filter(live));
const filter = process.argv.slice(2);
const selected = filter.length > 0 ? files.filter((file) => filter.some((part) => file.includes(part))) : files;
if (selected.length === 0) {
  // node --test with no files would fall back to searching the whole tree (bench data included).
  process.stderr.write(`no test file matches ${filter.join(', ')}\n`);
  process.exit(1);
}
// The usual report on stdout (spec on a terminal, TAP otherwise), plus a TAP copy read afterwards for the skips.
const tapFile = join(mkdtempSync(join(tmpdir(), 'skillport-tests-')), 'report.tap');
const reporters = [
  '--test-reporter',
  process.stdout.isTTY ? 'spec' : 'tap',
  '--test-reporter-destination',
  'stdout',
  '--test-reporter',
  'tap',
  '--test-reporter-destination',
  tapFile,
];
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...reporters, ...selected.sort()], { stdio: 'inherit', cwd: root });

const tap = existsSync(tapFile) ? readFileSync(tapFile, 'utf8') : '';
const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tap)?.[1] ?? 0);

// Every skipped test with its reason, so that a skip is seen in the summary rather than lost in the log.
const skips = tap
  .split('\n')
  .map((line) => /^\s*ok \d+ - (.*?) # SKIP ?(.*)$/.exec(line))
  .filter((match) => match !== null)
  .map((match) => ({ test: match[1], reason: match[2] || '(no reason given)' }));
if (skips.length > 0) {
  process.stdout.write(`\nskipped ${skips.length} test${skips.length === 1 ? '' : 's'}:\n`);
  for (const { test, reason } of skips) process.stdout.write(`- ${test}: ${reason}\n`);
}
// The corpus tests skip only where there is no corpus; where it is present, a skip means they silently did not run.
const corpus = resolve(root, '../shared/corpus/skills');
const corpusSkips = skips.filter(({ test, reason }) => /corpus/i.test(`${test} ${reason}`));
if (existsSync(corpus) && corpusSkips.length > 0 && filter.length === 0) {
  process.stderr.write(`error: the corpus is present at ${corpus}, but ${corpusSkips.length} corpus test(s) skipped\n`);
  result.status = 1;
}
// The last line, in the plain shape any CI reads: how many passed, failed and skipped.
process.stdout.write(`\ntests: ${count('pass')} passed, ${count('fail') + count('cancelled')} failed, ${Math.max(count('skipped'), skips.length)} skipped\n`);
process.exit(result.status ?? 1);
