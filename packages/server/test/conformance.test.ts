import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { EXAMPLES, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * The official SEP-2640 server scenarios of @modelcontextprotocol/conformance, run against a real skillport
 * process. scripts/run-tests.mjs installs the CLI and the Node 22 it needs into .tools/ and passes their paths.
 */
const node = process.env['SKILLPORT_CONFORMANCE_NODE'];
const cli = process.env['SKILLPORT_CONFORMANCE_CLI'];
const scenarios = ['sep-2640-skills-enumeration', 'sep-2640-skills-manifest', 'sep-2640-skills-directory'];

describe('official conformance scenarios (SEP-2640 server)', { skip: node === undefined ? 'SKILLPORT_SKIP_CONFORMANCE=1' : false }, () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttp([EXAMPLES]);
  });
  after(async () => {
    await server.stop();
  });

  for (const scenario of scenarios) {
    for (const wire of ['2026-07-28', '2025-11-25'] as const) {
      test(`${scenario} (${wire})`, () => {
        const args = [cli!, 'server', '--url', server.url, '--scenario', scenario];
        if (wire === '2025-11-25') args.push('--spec-version', '2025-11-25', '--force');
        const run = spawnSync(node!, args, { encoding: 'utf8', timeout: 120_000 });
        const output = `${run.stdout}\n${run.stderr}`;
        assert.equal(run.status, 0, output);
        assert.match(output, /Passed: (\d+)\/\1, 0 failed/, output);
        assert.doesNotMatch(output, /\bFAILURE\b/, output);
      });
    }
  }
});
