import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

/**
 * The official SEP-2640 host scenarios (`sep-2640-client-*` of @modelcontextprotocol/conformance) against
 * @skillport/client, through the runner in conformance-client.ts. The scenario list is read from the CLI itself,
 * so a scenario added to the suite is run too; the test fails if none is found.
 */
const node = process.env['SKILLPORT_CONFORMANCE_NODE'];
const cli = process.env['SKILLPORT_CONFORMANCE_CLI'];
const runner = join(dirname(fileURLToPath(import.meta.url)), 'conformance-client.js');

function clientScenarios(): string[] {
  const listed = spawnSync(node!, [cli!, 'list'], { encoding: 'utf8', timeout: 60_000 });
  return [...new Set([...`${listed.stdout}`.matchAll(/sep-2640-client-[a-z0-9-]+/g)].map((match) => match[0]))].sort();
}

describe('official conformance scenarios (SEP-2640 client)', { skip: node === undefined ? 'SKILLPORT_SKIP_CONFORMANCE=1' : false }, () => {
  const scenarios = node === undefined ? [] : clientScenarios();

  test('the suite has client scenarios', () => {
    assert.ok(scenarios.length >= 4, `found: ${scenarios.join(', ')}`);
  });

  for (const scenario of scenarios) {
    test(scenario, () => {
      const run = spawnSync(node!, [cli!, 'client', '--command', `${process.execPath} ${runner}`, '--scenario', scenario], {
        encoding: 'utf8',
        timeout: 120_000,
      });
      const output = `${run.stdout}\n${run.stderr}`;
      assert.equal(run.status, 0, output);
      assert.match(output, /Passed: (\d+)\/\1, 0 failed/, output);
      assert.doesNotMatch(output, /\bFAILURE\b/, output);
    });
  }
});
