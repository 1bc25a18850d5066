import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { CORPUS, runCli, startHttp, storeDir } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * Real skills publish as they are: every skill of the public corpus that `serve` serves also validates with exit
 * 0 and publishes into a real registry (`serve --data`), warnings and all. Skipped when the corpus is absent.
 */
const skip = existsSync(CORPUS) ? false : `corpus not found at ${CORPUS}`;

interface Report {
  valid: boolean;
  summary: { checked: number; valid: number; invalid: number; warned: number; servable: number };
  skills: Array<{ path: string; name?: string; valid: boolean; servable: boolean; problems: Array<{ severity: string; message: string }> }>;
}

describe('the corpus: what serve serves validates and publishes', { skip }, () => {
  let report: Report;
  let servable: Report['skills'];
  let server: RunningServer;
  before(async () => {
    const run = await runCli(['validate', '--json', CORPUS]);
    report = JSON.parse(run.stdout) as Report;
    servable = report.skills.filter((skill) => skill.servable);
  });
  after(async () => {
    await server?.stop();
  });

  test('serve serves exactly the skills validate calls valid, and groups their warnings', async () => {
    server = await startHttp([CORPUS, '--no-watch', '--no-web']);
    const served = /serving (\d+) skills/.exec(server.stderr());
    assert.equal(Number(served?.[1]), servable.length, server.stderr());
    // The start-up prints errors (skills not served), a few skills' warnings and one count: not a screen of them.
    const before = server.stderr().slice(0, server.stderr().indexOf('skillport: serving'));
    assert.ok(before.split('\n').length < 30, before);
    assert.match(before, /warning: \d+ more skills have warnings \(served as they are\); `skillport validate .*` lists them/);
    // The same skills, one for one: a served URI ends with the skill's name (skill://…/<name>/SKILL.md).
    const listed = await runCli(['ls', server.url, '--json']);
    const uris = (JSON.parse(listed.stdout) as { skills: Array<{ uri: string }> }).skills.map((skill) => skill.uri);
    assert.deepEqual(uris.map((uri) => uri.split('/').at(-2)).sort(), servable.map((skill) => skill.name!).sort());
  });

  test('every served skill validates with exit 0 (warnings are warnings); --strict refuses the ones with warnings', async () => {
    for (const skill of servable) assert.equal(skill.valid, true, `${skill.path}: ${JSON.stringify(skill.problems)}`);
    const run = await runCli(['validate', '--quiet', ...servable.map((skill) => skill.path)]);
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    // (A skill folder given holds its nested skills too: more may be checked than given.)
    assert.match(run.stderr, /^(\d+) skills checked: \1 valid \(\d+ with warnings\), 0 invalid$/m, run.stderr.slice(-600));
    assert.ok(!/^error:/m.test(run.stderr), run.stderr);
    const strict = await runCli(['validate', '--strict', '--json', ...servable.map((skill) => skill.path)]);
    assert.equal(strict.code, 1);
    const strictReport = JSON.parse(strict.stdout) as Report;
    const warned = strictReport.skills.filter((skill) => skill.problems.length > 0);
    assert.ok(warned.length >= servable.filter((skill) => skill.problems.length > 0).length);
    assert.equal(strictReport.summary.invalid, warned.length);
    for (const skill of warned) assert.ok(!skill.valid && skill.problems.every((problem) => problem.severity === 'error'), skill.path);
  });

  test('every served skill publishes into a registry server, warnings and all', async () => {
    const data = storeDir();
    const registry = await startHttp(['--data', data, '--no-watch', '--no-web'], { SKILLPORT_TOKEN: 'corpus-publisher' });
    try {
      // Most corpus skills carry no version: one is given. A registry has one name space and the corpus holds a
      // few names twice or more (brand-guidelines from four repositories): the n-th skill of a name is 1.0.n.
      const rounds: string[][] = [];
      const seen = new Map<string, number>();
      for (const skill of servable) {
        const round = seen.get(skill.name!) ?? 0;
        seen.set(skill.name!, round + 1);
        (rounds[round] ??= []).push(skill.path);
      }
      for (const [round, paths] of rounds.entries()) {
        const run = await runCli(['publish', '--quiet', '--registry', registry.url, '--version', `1.0.${round}`, ...paths], {
          SKILLPORT_TOKEN: 'corpus-publisher',
        });
        assert.equal(
          run.code,
          0,
          run.stderr
            .split('\n')
            .filter((line) => line.startsWith('error:'))
            .join('\n') || run.stderr.slice(-2000),
        );
        if (paths.length > 1) assert.match(run.stderr, new RegExp(`^${paths.length} skills: ${paths.length} published, 0 already there, 0 refused$`, 'm'));
      }
      const listed = await runCli(['ls', registry.url, '--json']);
      // The registry lists one (the latest) version per name.
      assert.equal((JSON.parse(listed.stdout) as { skills: unknown[] }).skills.length, seen.size);
    } finally {
      await registry.stop();
    }
  });
});
