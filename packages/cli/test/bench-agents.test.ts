import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { EXAMPLES, REPO, makeTree } from '@skillport/test-kit';

/**
 * The agent benchmark (bench/agents, seed 003) in its small form: the five setups over the bundled examples with the
 * scripted agent, through a real server and the real client library. The figures that do not need a model's
 * judgement must come out as the setups make them (what survives compaction, what a catalog costs, what a cache
 * saves), and a model endpoint gets the tools in the OpenAI shape with the key from the environment.
 */
interface Report {
  agent: string;
  tasks: number;
  setups: Array<{ setup: string; metrics: Record<string, number | null> }>;
  verdict: Array<{ setup: string; meets: boolean }>;
}

function bench(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(REPO, 'bench/agents/run.mjs'), ...(args.includes('--skills') ? [] : ['--skills', EXAMPLES]), '--quiet', ...args],
      { env: { ...process.env, ...env }, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('bench agents (scripted, bundled examples)', () => {
  test('five setups in the seed order, each metric measured', { timeout: 600_000 }, async () => {
    const run = await bench(['--tasks', join(REPO, 'bench/agents/tasks-examples'), '--json']);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as Report;
    assert.equal(report.agent, 'scripted');
    assert.equal(report.tasks, 4);
    assert.deepEqual(
      report.setups.map((entry) => entry.setup),
      [
        '1. no skill support',
        '2. MCP server instructions only',
        '3. local bootstrap + dynamic activation',
        '4. remote catalog injected at initialisation',
        '5. same SKILL.md installed locally',
      ],
    );
    const [none, instructions, bootstrap, catalog, local] = report.setups.map((entry) => entry.metrics) as Array<Record<string, number | null>>;
    for (const metrics of report.setups.map((entry) => entry.metrics)) {
      for (const name of ['toolCyclesBeforeWork', 'passRate', 'tokens', 'forbiddenActions']) assert.equal(typeof metrics[name], 'number', name);
      assert.equal(metrics['forbiddenActions'], 0);
    }
    // Without skills nothing passes; with the local skill every task does.
    assert.equal(none!['passRate'], 0);
    assert.equal(local!['passRate'], 1);
    // Searching costs cycles: the local and injected catalogs activate at once; instructions-only searches first; the
    // bootstrap loads itself, searches, then activates.
    assert.equal(local!['toolCyclesBeforeWork'], 1);
    assert.equal(catalog!['toolCyclesBeforeWork'], 1);
    assert.equal(instructions!['toolCyclesBeforeWork'], 2);
    assert.equal(bootstrap!['toolCyclesBeforeWork'], 3);
    assert.equal(instructions!['listingTriggered'], 1);
    // A host session re-injects pinned skills after compaction; a plain MCP host has nothing to re-inject.
    assert.equal(catalog!['compactionSurvival'], 1);
    assert.equal(local!['compactionSurvival'], 1);
    assert.equal(instructions!['compactionSurvival'], 0);
    // The injected catalog costs tokens that a search-first setup does not pay; the warm cache answers every read.
    assert.ok(catalog!['tokensCatalog']! > instructions!['tokensCatalog']!);
    assert.equal(catalog!['cacheHitRate'], 1);
    assert.equal(catalog!['resourceCorrectness'], 1);
    assert.ok(report.verdict.some((entry) => entry.setup.startsWith('4.') && entry.meets));
  });

  test('a model endpoint gets the tools in the OpenAI shape and the key from the environment', { timeout: 600_000 }, async () => {
    const seen: Array<{ auth: string | undefined; body: { model: string; tools: Array<{ type: string; function: { name: string } }> } }> = [];
    const endpoint = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        seen.push({ auth: req.headers.authorization, body: JSON.parse(text) });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'Done.' } }], usage: { prompt_tokens: 1, completion_tokens: 1 } }));
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/v1`;
      const run = await bench(['--tasks', join(REPO, 'bench/agents/tasks-examples'), '--limit', '1', '--json', '--model-url', url, '--model', 'test-model'], {
        SKILLPORT_MODEL_KEY: 'sk-test',
      });
      assert.equal(run.code, 0, run.stderr);
      const report = JSON.parse(run.stdout) as Report;
      assert.equal(report.agent, 'model:test-model');
      assert.equal(seen.length, 10, 'one call per setup and pass: the model answered at once');
      assert.ok(seen.every((call) => call.auth === 'Bearer sk-test' && call.body.model === 'test-model'));
      const names = new Set(seen.flatMap((call) => call.body.tools.map((tool) => tool.function.name)));
      for (const name of ['run_shell', 'list_skills', 'activate_skill', 'load_skill', 'read_skill_resource']) assert.ok(names.has(name), name);
      assert.ok(seen.every((call) => call.body.tools.every((tool) => tool.type === 'function')));
    } finally {
      endpoint.close();
    }
  });
});

describe('bench agents: hosts lacking a server a skill needs (scripted)', () => {
  test('ignored readiness fails actions; told, the agent says what to connect; provided, the skill works', { timeout: 600_000 }, async () => {
    const body = (product: string) =>
      `# ${product} Automation via Rube MCP\n\n## Prerequisites\n\n- Rube MCP must be connected\n- Always call \`RUBE_SEARCH_TOOLS\` first to get current tool schemas\n`;
    const skills = makeTree({
      'sendfox-automation/SKILL.md': `---\nname: sendfox-automation\ndescription: Automate Sendfox tasks via Rube MCP (Composio).\nrequires:\n  mcp: [rube]\n---\n${body('Sendfox')}`,
      'buildkite-automation/SKILL.md': `---\nname: buildkite-automation\ndescription: Automate Buildkite tasks via Rube MCP (Composio).\nrequires:\n  mcp: [rube]\n---\n${body('Buildkite')}`,
      'meeting-notes/SKILL.md': '---\nname: meeting-notes\ndescription: Write meeting notes from a transcript.\n---\n# Notes\n',
    });
    const tasks = join(makeTree({ 'tasks.json': '' }), 'tasks.json');
    writeFileSync(
      tasks,
      JSON.stringify([
        { id: 'a', prompt: 'Automate Sendfox: send the newsletter to my Sendfox subscribers.', skills: ['sendfox-automation'], requires: { mcp: ['rube'] } },
        {
          id: 'b',
          prompt: 'Automate Buildkite: trigger a Buildkite build of the main pipeline.',
          skills: ['buildkite-automation'],
          requires: { mcp: ['rube'] },
        },
      ]),
    );
    const run = await bench(['--skills', skills, '--tasks', tasks, '--setups', 'unmet', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as Report;
    const [ignored, told, provided] = report.setups.map((entry) => entry.metrics) as Array<Record<string, number | null>>;
    assert.deepEqual(
      report.setups.map((entry) => entry.setup),
      ['6. host lacks a needed server, readiness ignored', '7. host lacks a needed server, told (marks and readiness)', '8. host has the server'],
    );
    // Not told, the agent follows the skill and calls the server's tool the host does not have.
    assert.equal(ignored!['failedActions'], 2);
    assert.equal(ignored!['unmetActivations'], 2);
    assert.equal(ignored!['passRate'], 0);
    // Told, it activates (the right skill) and says what to connect instead of failing.
    assert.equal(told!['failedActions'], 0);
    assert.equal(told!['toldWhatIsMissing'], 1);
    // With the server, the skill is ready and its first step works.
    assert.equal(provided!['failedActions'], 0);
    assert.equal(provided!['unmetActivations'], 0);
    assert.equal(provided!['passRate'], 1);
  });
});
