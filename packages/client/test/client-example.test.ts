import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { MockLanguageModelV2 } from 'ai/test';
import { EXAMPLES, REPO, startHttp } from '@skillport/test-kit';

/**
 * The README's AI SDK example (examples/client/ai-sdk-agent.mjs), run for real against a skillport server with
 * the AI SDK's own scripted model in place of an LLM: the model is given the catalog, calls load_skill, and gets
 * the verified skill back through the AI SDK's tool loop.
 */
interface Example {
  runAgent(options: { model: unknown; prompt: string; sources: string[]; cache?: string | boolean }): Promise<{
    text: string;
    steps: Array<{ toolResults: Array<{ output: unknown }> }>;
    session: { active: unknown[] };
  }>;
}

test('the AI SDK example type-checks (strict, checkJs)', () => {
  const tsc = join(REPO, 'node_modules/typescript/bin/tsc');
  const args = [
    '--noEmit',
    '--allowJs',
    '--checkJs',
    '--strict',
    '--skipLibCheck',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--target',
    'es2022',
    '--types',
    'node',
    join(REPO, 'examples/client/ai-sdk-agent.mjs'),
  ];
  const run = spawnSync(process.execPath, [tsc, ...args], { encoding: 'utf8', cwd: REPO, timeout: 120_000 });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
});

test('the AI SDK example runs an agent loop with skills from a real server', async () => {
  const server = await startHttp([EXAMPLES]);
  try {
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    const model = new MockLanguageModelV2({
      doGenerate: [
        {
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'load_skill', input: JSON.stringify({ name: 'csv-data-cleaning' }) }],
          finishReason: 'tool-calls',
          usage,
          warnings: [],
        },
        {
          content: [
            {
              type: 'tool-call',
              toolCallId: 'c2',
              toolName: 'read_skill_resource',
              input: JSON.stringify({ name: 'csv-data-cleaning', path: 'references/pitfalls.md' }),
            },
          ],
          finishReason: 'tool-calls',
          usage,
          warnings: [],
        },
        { content: [{ type: 'text', text: 'Cleaned.' }], finishReason: 'stop', usage, warnings: [] },
      ],
    });
    const example = (await import(pathToFileURL(join(REPO, 'examples/client/ai-sdk-agent.mjs')).href)) as Example;
    const result = await example.runAgent({
      model,
      prompt: 'My CSV export has duplicate rows',
      sources: [server.url],
      cache: mkdtempSync(join(tmpdir(), 'skillport-example-')),
    });
    assert.equal(result.text, 'Cleaned.');
    const system = JSON.stringify(model.doGenerateCalls[0]!.prompt[0]);
    assert.match(system, /<available_skills>/);
    assert.match(system, /<name>csv-data-cleaning<\/name>/);
    const toolNames = (model.doGenerateCalls[0]!.tools ?? []).map((tool) => tool.name).sort();
    assert.deepEqual(toolNames, ['load_skill', 'read_skill_resource', 'read_skill_uri']);
    const outputs = result.steps.flatMap((step) => step.toolResults.map((item) => String(item.output)));
    assert.match(outputs[0]!, /^<skill_content name="csv-data-cleaning" origin="127\.0\.0\.1:\d+"/);
    assert.match(outputs[1]!, /^<skill_resource skill="csv-data-cleaning" origin="127\.0\.0\.1:\d+" path="references\/pitfalls\.md">/);
    assert.equal(result.session.active.length, 1);
  } finally {
    await server.stop();
  }
});
