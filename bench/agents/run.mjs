#!/usr/bin/env node
// bench/agents: seed 003's benchmark. The same tasks under five setups (no skills; MCP server instructions only; a
// local bootstrap skill + dynamic activation; the remote catalog injected at initialisation; the same SKILL.md
// installed locally), each from the real parts (a real `skillport serve --http`, @skillport/client, the folder
// source). Every setup runs every task twice: cold (empty client cache), then warm (the seed's target is judged warm).
// Metrics per setup, each on its own (the seed's list); a table, an SVG chart, JSON, and the seed's verdict.
// Usage: npm run bench:agents -- [--tasks DIR|FILE] [--limit N] [--skills DIR] [--json] [--svg FILE] [--transcripts DIR]
//        [--setups seed|unmet|ID,ID]   (default seed: the five; unmet: hosts lacking a server a skill needs)
//        [--model-url URL --model NAME]   (key from SKILLPORT_MODEL_KEY or OPENAI_API_KEY; without a model: scripted)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from 'gpt-tokenizer';
import { measuredCommit, options } from '../args.mjs';
import { ModelAgent, ScriptedAgent } from './agents.mjs';
import { SETUPS, UNMET_SETUPS, openSetup } from './setups.mjs';

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const flags = options();
const asJson = flags.flag('json');
const limit = Number(flags.value('limit', '0'));
const maxSteps = Number(flags.value('steps', '8'));
const skillsDir = resolve(flags.value('skills', join(repo, '../shared/corpus/skills')));
const tasksPath = resolve(flags.value('tasks', join(repo, 'bench/agents/tasks')));
const svgPath = flags.value('svg', undefined);
const transcripts = flags.value('transcripts', undefined);
const modelUrl = flags.value('model-url', process.env.SKILLPORT_MODEL_URL);
const modelName = flags.value('model', process.env.SKILLPORT_MODEL);
const setupsWanted = flags.value('setups', 'seed');
const ALL_SETUPS = [...SETUPS, ...UNMET_SETUPS];
const chosenSetups =
  setupsWanted === 'seed'
    ? SETUPS
    : setupsWanted === 'unmet'
      ? UNMET_SETUPS
      : setupsWanted
          .split(',')
          .map((id) => ALL_SETUPS.find((setup) => setup.id === id) ?? fail(`unknown setup ${id} (${ALL_SETUPS.map((setup) => setup.id).join(', ')})`));
const log = (line) => {
  if (!flags.flag('quiet')) process.stderr.write(`${line}\n`);
};

function fail(message) {
  process.stderr.write(`bench agents: ${message}\n`);
  process.exit(2);
}

// --- tasks ------------------------------------------------------------------------------------------------------
function loadTasks(path) {
  if (!existsSync(path)) fail(`no tasks at ${path}`);
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((name) => name.endsWith('.json'))
        .sort()
        .map((name) => join(path, name))
    : [path];
  const tasks = files.flatMap((file) => JSON.parse(readFileSync(file, 'utf8')));
  for (const task of tasks) {
    if (typeof task.id !== 'string' || typeof task.prompt !== 'string' || !Array.isArray(task.skills) || task.skills.length === 0)
      fail(`task ${JSON.stringify(task).slice(0, 80)}: needs id, prompt and skills`);
  }
  return limit > 0 ? tasks.slice(0, limit) : tasks;
}
const tasks = loadTasks(tasksPath);
if (!existsSync(skillsDir)) fail(`no skills folder at ${skillsDir} (--skills DIR)`);

// --- the server ---------------------------------------------------------------------------------------------------
async function startServer(dir) {
  const cli = join(repo, 'packages/cli/dist/src/bin.js');
  const proc = spawn(process.execPath, [cli, 'serve', '--http', '--port', '0', '--no-cache', '--no-watch', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stderr = '';
  const url = await new Promise((done, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${stderr}`)), 300_000);
    proc.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = / on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        done(match[1]);
      }
    });
    proc.on('exit', (code) => reject(new Error(`server exited (${code}):\n${stderr}`)));
  });
  return { url, stop: () => new Promise((done) => (proc.exitCode !== null ? done() : (proc.once('exit', done), proc.kill('SIGTERM')))) };
}

// --- one run -----------------------------------------------------------------------------------------------------
const tokens = (text) => (text ? encode(text).length : 0);
const messageText = (messages) =>
  messages.map((message) => `${message.content ?? ''}${message.tool_calls ? JSON.stringify(message.tool_calls) : ''}`).join('\n');
const expectedChecks = (task) => task.answer?.includes ?? [];

async function runTask(setup, agent, task) {
  const system = { role: 'system', content: setup.system };
  const user = { role: 'user', content: task.prompt };
  let messages = [system, user];
  const byName = new Map(setup.tools.map((tool) => [tool.name, tool]));
  const record = {
    task: task.id,
    calls: [],
    cyclesBeforeWork: undefined,
    activated: [],
    hallucinated: 0,
    forbidden: 0,
    reads: { made: 0, ok: 0 },
    tokens: { catalog: tokens(setup.system), activation: 0, reads: 0, total: 0 },
    activationMs: [],
    compaction: undefined,
    listed: false,
    candidates: [],
    answer: '',
    // Calls to a tool the host does not have (a skill's steps that need a server it lacks), and activations of a
    // skill whose requirements the host did not meet (whatever the model was told).
    failedActions: 0,
    unmetActivations: 0,
  };
  let cycles = 0;
  for (let step = 0; step < maxSteps; step++) {
    if (task.compaction && record.cyclesBeforeWork !== undefined && record.compaction === undefined) {
      // Compaction: the conversation is cut to the system prompt and the task; the host re-injects what it pinned.
      const restored = setup.reinject();
      // Survival: the skill activated before compaction is in force after it (whether or not it was the right one).
      record.compaction = { survived: record.activated.length > 0 && restored.includes(`<skill_content name="${record.activated[0]}"`) };
      messages = [system, user, ...(restored ? [{ role: 'user', content: `Skills restored after context compaction:\n${restored}`, restored: true }] : [])];
    }
    record.tokens.total += tokens(messageText(messages));
    const decision = await agent.step(messages, setup.tools, task);
    if (decision.toolCalls === undefined) {
      record.answer = decision.content ?? '';
      break;
    }
    cycles++;
    messages.push({ role: 'assistant', content: null, tool_calls: decision.toolCalls });
    for (const call of decision.toolCalls) {
      const name = call.function.name;
      let args = {};
      try {
        args = JSON.parse(call.function.arguments || '{}');
      } catch {
        args = {};
      }
      const tool = byName.get(name);
      if (tool === undefined) record.failedActions++;
      const started = performance.now();
      const output = tool ? await tool.execute(args).catch((error) => `Error: ${error.message}`) : `Error: no tool named ${name}`;
      const ms = performance.now() - started;
      record.calls.push({ name, args, ms, error: output.startsWith('Error') });
      if (tool?.forbidden || task.forbidden?.includes(name)) record.forbidden++;
      if (name === 'list_skills') record.listed = true;
      if ((name === 'load_skill' || name === 'activate_skill') && args.name !== 'skillport-bootstrap') {
        if (output.startsWith('Error') && /not found|unknown|no skill/i.test(output)) record.hallucinated++;
        if (!output.startsWith('Error')) {
          record.activated.push(args.name);
          if (setup.ready !== undefined && !(await setup.ready(args.name).catch(() => true))) record.unmetActivations++;
          record.activationMs.push(ms);
          record.tokens.activation += tokens(output);
          if (record.cyclesBeforeWork === undefined) record.cyclesBeforeWork = cycles;
        }
      }
      if (name === 'read_skill_resource') {
        record.reads.made++;
        if (!output.startsWith('Error')) {
          record.reads.ok++;
          record.tokens.reads += tokens(output);
        }
      }
      messages.push({ role: 'tool', tool_call_id: call.id, name, content: output });
    }
  }
  record.candidates = [...(agent.candidates ?? [])];
  const baseName = (id) => String(id).split('@')[0];
  const rightSkill = record.activated.some((id) => task.skills.includes(baseName(id)));
  const readsDone = (task.reads ?? []).every((path) =>
    record.calls.some((made) => made.name === 'read_skill_resource' && made.args.path === path && !made.error),
  );
  record.passed =
    rightSkill && readsDone && record.forbidden === 0 && record.failedActions === 0 && expectedChecks(task).every((check) => record.answer.includes(check));
  // A task whose skill needs a server: where the host lacks it, the answer must say what to connect.
  record.requiresServer = (task.requires?.mcp ?? []).length > 0;
  record.toldMissing = record.requiresServer && task.requires.mcp.every((server) => record.answer.includes(`"${server}"`));
  record.rightSkill = rightSkill;
  record.inTopK = record.candidates.some((id) => task.skills.includes(baseName(id)));
  record.messages = messages;
  return record;
}

// --- metrics ------------------------------------------------------------------------------------------------------
const mean = (values) => (values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length);
const median = (values) => (values.length === 0 ? null : [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]);
const round = (value, digits = 3) => (value === null || Number.isNaN(value) ? null : Number(value.toFixed(digits)));

function metricsOf(setupId, warm, cold, cacheStats) {
  const compaction = warm.filter((run) => run.compaction !== undefined);
  const needsListing = setupId === 'instructions' || setupId === 'bootstrap';
  const reads = warm.reduce((sum, run) => sum + run.reads.made, 0);
  return {
    passRate: round(mean(warm.map((run) => (run.passed ? 1 : 0)))),
    listingTriggered: needsListing ? round(mean(warm.map((run) => (run.listed ? 1 : 0)))) : round(mean(warm.map((run) => (run.listed ? 1 : 0)))),
    rightSkillInTopK: round(mean(warm.map((run) => (run.inTopK ? 1 : 0)))),
    correctActivation: round(mean(warm.map((run) => (run.rightSkill ? 1 : 0)))),
    hallucinatedSkillIds: warm.reduce((sum, run) => sum + run.hallucinated, 0),
    toolCyclesBeforeWork: round(mean(warm.filter((run) => run.cyclesBeforeWork !== undefined).map((run) => run.cyclesBeforeWork)) ?? 0, 2),
    activationMsCold: round(median(cold.flatMap((run) => run.activationMs)), 1),
    activationMsWarm: round(median(warm.flatMap((run) => run.activationMs)), 1),
    cacheHitRate: cacheStats ? round(cacheStats.blobHits / Math.max(1, cacheStats.blobHits + cacheStats.blobMisses)) : null,
    tokens: round(mean(warm.map((run) => run.tokens.total)), 0),
    tokensCatalog: round(mean(warm.map((run) => run.tokens.catalog)), 0),
    tokensActivation: round(mean(warm.map((run) => run.tokens.activation)), 0),
    tokensReads: round(mean(warm.map((run) => run.tokens.reads)), 0),
    resourceCorrectness: reads === 0 ? null : round(warm.reduce((sum, run) => sum + run.reads.ok, 0) / reads),
    compactionSurvival: compaction.length === 0 ? null : round(mean(compaction.map((run) => (run.compaction.survived ? 1 : 0)))),
    forbiddenActions: warm.reduce((sum, run) => sum + run.forbidden, 0),
    failedActions: warm.reduce((sum, run) => sum + run.failedActions, 0),
    unmetActivations: warm.reduce((sum, run) => sum + run.unmetActivations, 0),
    toldWhatIsMissing: round(mean(warm.filter((run) => run.requiresServer).map((run) => (run.toldMissing ? 1 : 0)))),
  };
}

// --- main -----------------------------------------------------------------------------------------------------------
const agentFor = () =>
  modelUrl
    ? new ModelAgent({ url: modelUrl, model: modelName ?? 'default', apiKey: process.env.SKILLPORT_MODEL_KEY ?? process.env.OPENAI_API_KEY })
    : new ScriptedAgent();
if (modelUrl && !modelName) fail('--model-url needs --model NAME');
log(`bench agents: ${tasks.length} tasks, ${chosenSetups.length} setups, agent ${agentFor().name}, skills from ${skillsDir}`);
const server = await startServer(skillsDir);
log(`server: ${server.url}`);
const env = { serverUrl: server.url, skillsDir, bootstrapDir: join(repo, 'bench/agents/bootstrap') };
const results = [];
try {
  for (const { id, name } of chosenSetups) {
    const cacheDir = mkdtempSync(join(tmpdir(), 'skillport-bench-agents-cache-'));
    const passes = {};
    let cacheStats;
    for (const pass of ['cold', 'warm']) {
      const setup = await openSetup(id, { ...env, cacheDir });
      const before = setup.cache ? { ...setup.cache.stats } : undefined;
      const runs = [];
      for (const task of tasks) runs.push(await runTask(setup, agentFor(), task));
      if (setup.cache && pass === 'warm')
        cacheStats = { blobHits: setup.cache.stats.blobHits - before.blobHits, blobMisses: setup.cache.stats.blobMisses - before.blobMisses };
      await setup.close();
      passes[pass] = runs;
      log(`${name} (${pass}): ${runs.filter((run) => run.passed).length}/${runs.length} passed`);
    }
    if (transcripts) {
      mkdirSync(transcripts, { recursive: true });
      for (const run of passes.warm) writeFileSync(join(transcripts, `${id}--${run.task}.json`), JSON.stringify({ setup: id, ...run }, null, 2));
    }
    results.push({ setup: name, id, metrics: metricsOf(id, passes.warm, passes.cold, cacheStats) });
  }
} finally {
  await server.stop();
}

// The seed's target: warm, each dynamic setup within 5 points of the local skill's pass rate, at most one extra tool
// cycle, and zero forbidden external effects.
const local = results.find((result) => result.id === 'local')?.metrics;
if (local !== undefined) for (const result of results) result.metrics.passGapVsLocalPoints = round((local.passRate - result.metrics.passRate) * 100, 1);
const verdicts = results
  .filter((result) => local !== undefined && (result.id === 'bootstrap' || result.id === 'catalog'))
  .map((result) => {
    const quality = result.metrics.passGapVsLocalPoints <= 5;
    const cycles = result.metrics.toolCyclesBeforeWork - local.toolCyclesBeforeWork <= 1;
    const safe = result.metrics.forbiddenActions === 0;
    return { setup: result.setup, quality, cycles, safe, meets: quality && cycles && safe };
  });
const agentName = agentFor().name;
const report = {
  commit: measuredCommit(),
  agent: agentName,
  tasks: tasks.length,
  skills: skillsDir,
  setups: results.map(({ setup, metrics }) => ({ setup, metrics })),
  verdict: verdicts,
};

if (svgPath) writeFileSync(svgPath, chart(report));
if (asJson) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  const names = Object.keys(results[0].metrics);
  process.stdout.write(
    `\n### Agent benchmark: ${tasks.length} tasks, agent ${agentName}, warm pass (activation latency cold and warm), commit ${report.commit}\n\n`,
  );
  process.stdout.write(`| metric | ${results.map((result) => result.setup).join(' | ')} |\n|---|${results.map(() => '---:').join('|')}|\n`);
  for (const metric of names)
    process.stdout.write(`| ${metric} | ${results.map((result) => (result.metrics[metric] === null ? 'n/a' : result.metrics[metric])).join(' | ')} |\n`);
  if (verdicts.length > 0) process.stdout.write('\nVerdict (seed 003: within 5 points of local, at most one extra tool cycle, zero forbidden effects):\n');
  for (const verdict of verdicts)
    process.stdout.write(
      `- ${verdict.setup}: ${verdict.meets ? 'meets the target' : `misses it (${[!verdict.quality && 'quality', !verdict.cycles && 'tool cycles', !verdict.safe && 'forbidden effects'].filter(Boolean).join(', ')})`}\n`,
    );
}

/** A bar chart of pass rate and tool cycles per setup, as SVG (no dependency). */
function chart({ setups, agent, tasks: count, commit }) {
  const width = 760;
  const rowHeight = 56;
  const left = 300;
  const scale = width - left - 60;
  const maxCycles = Math.max(1, ...setups.map((entry) => entry.metrics.toolCyclesBeforeWork));
  const rows = setups.map((entry, at) => {
    const y = 50 + at * rowHeight;
    const pass = entry.metrics.passRate ?? 0;
    const cyclesWidth = (entry.metrics.toolCyclesBeforeWork / maxCycles) * scale;
    return `<text x="10" y="${y + 16}" font-size="13">${entry.setup}</text>
<rect x="${left}" y="${y}" width="${(pass * scale).toFixed(1)}" height="18" fill="#2f6fbf"/><text x="${left + pass * scale + 6}" y="${y + 14}" font-size="12">pass ${(pass * 100).toFixed(0)} %</text>
<rect x="${left}" y="${y + 22}" width="${cyclesWidth.toFixed(1)}" height="14" fill="#d08b2c"/><text x="${left + cyclesWidth + 6}" y="${y + 34}" font-size="12">${entry.metrics.toolCyclesBeforeWork} tool cycles before work</text>`;
  });
  const height = 70 + setups.length * rowHeight;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif"><rect width="100%" height="100%" fill="#fff"/>
<text x="10" y="24" font-size="15" font-weight="bold">Agent benchmark: ${count} tasks, ${agent}, commit ${commit}</text>
${rows.join('\n')}
</svg>
`;
}
