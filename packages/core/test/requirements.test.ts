import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  availabilityRank,
  availabilitySummary,
  discoverSkills,
  inspectSkillFiles,
  inspectSkillFolder,
  judgeAvailability,
  mergeAvailable,
  parseSkillMarkdown,
  readRequirements,
  readinessText,
  requirementsFromWire,
  splitToolList,
} from '../src/index.js';
import { CORPUS, makeTree, removeTrees } from './helpers.js';

after(removeTrees);

const md = (frontmatter: string) => `---\nname: demo\ndescription: A demo skill.\n${frontmatter}\n---\n# Demo\n`;

describe('readRequirements: every form skills write', () => {
  test('requires: {mcp: [rube]} (the corpus convention), flow and block lists, servers as mappings', () => {
    assert.deepEqual(readRequirements({ requires: { mcp: ['rube'] } }).requirements?.mcpServers, [{ name: 'rube' }]);
    const block = readRequirements({
      requires: { mcp: ['rube', { name: 'github', url: 'https://api.example/mcp', transport: 'streamable_http' }], tools: 'Bash' },
    });
    assert.deepEqual(block.problems, []);
    assert.deepEqual(block.requirements?.mcpServers, [{ name: 'rube' }, { name: 'github', url: 'https://api.example/mcp', transport: 'streamable_http' }]);
    assert.deepEqual(block.requirements?.tools, ['Bash']);
    assert.deepEqual(block.requirements?.sources, ['requires']);
  });

  test("Codex's agents/openai.yaml dependencies.tools entries of type mcp", () => {
    const yaml = [
      'interface:',
      '  display_name: "Release Check"',
      'dependencies:',
      '  tools:',
      '    - type: "mcp"',
      '      value: "internalReleaseApi"',
      '      description: "Release system"',
      '      transport: "streamable_http"',
      '      url: "https://example.com/mcp"',
    ].join('\n');
    const reading = readRequirements({}, yaml);
    assert.deepEqual(reading.problems, []);
    assert.deepEqual(reading.requirements?.mcpServers, [
      { name: 'internalReleaseApi', description: 'Release system', transport: 'streamable_http', url: 'https://example.com/mcp' },
    ]);
    assert.deepEqual(reading.requirements?.sources, ['agents/openai.yaml']);
    // The same server named in requires merges into one entry, keeping the sidecar's details.
    const both = readRequirements({ requires: { mcp: 'InternalReleaseAPI' } }, yaml);
    assert.equal(both.requirements?.mcpServers.length, 1);
    assert.equal(both.requirements?.mcpServers[0]?.url, 'https://example.com/mcp');
  });

  test('allowed-tools: kept as information; an mcp__server__tool entry needs that server', () => {
    const reading = readRequirements({ 'allowed-tools': 'Read, mcp__sentry__search_issues, mcp__sentry__update_issue, Bash(npx expo *)' });
    assert.deepEqual(reading.requirements?.allowedTools, ['Read', 'mcp__sentry__search_issues', 'mcp__sentry__update_issue', 'Bash(npx expo *)']);
    assert.deepEqual(reading.requirements?.mcpServers, [{ name: 'sentry' }]);
    assert.deepEqual(reading.requirements?.tools, []);
    assert.deepEqual(splitToolList('Read Write  Bash(git clone:*),Edit'), ['Read', 'Write', 'Bash(git clone:*)', 'Edit']);
  });

  test('agents, compatibility and the metadata form', () => {
    const reading = readRequirements({
      agents: ['claude-code', 'codex-cli'],
      compatibility: 'Requires the ax CLI.',
      metadata: { 'dev.skillport/requires': 'mcp:github tool:create_issue scope:billing agent:codex' },
    });
    assert.deepEqual(reading.problems, []);
    const req = reading.requirements!;
    assert.deepEqual(req.mcpServers, [{ name: 'github' }]);
    assert.deepEqual(req.tools, ['create_issue']);
    assert.deepEqual(req.scopes, ['billing']);
    assert.deepEqual(req.agents, ['claude-code', 'codex-cli', 'codex']);
    assert.equal(req.compatibility, 'Requires the ax CLI.');
    assert.deepEqual(req.sources, ['agents', 'metadata', 'compatibility']);
  });

  test('nothing declared: no requirements, no problems', () => {
    assert.deepEqual(readRequirements({ name: 'x', description: 'y' }), { problems: [] });
  });

  test('malformed declarations are warnings, left out, never errors', () => {
    const cases: Array<[Record<string, unknown>, string | undefined, RegExp]> = [
      [{ requires: ['rube'] }, undefined, /'requires' must be a mapping/],
      [{ requires: { mcp: 3 } }, undefined, /requires\.mcp must be a name or a list/],
      [{ requires: { mcp: ['has space'] } }, undefined, /is not a name/],
      [{ requires: { mcp: [''] } }, undefined, /must be a non-empty name/],
      [{ requires: { network: ['x'] } }, undefined, /requires\.network is not understood/],
      [{ agents: 7 }, undefined, /'agents' must be a list/],
      [{ metadata: { 'dev.skillport/requires': 'github' } }, undefined, /is not kind:name/],
      [{}, 'dependencies: [1]', /dependencies must be a mapping/],
      [{}, 'dependencies:\n  tools: {type: mcp}', /dependencies\.tools must be a list/],
      [{}, 'dependencies:\n  tools:\n    - type: env_var\n      value: TOKEN', /type "env_var" is not understood/],
      [{}, 'dependencies:\n  tools:\n    - type: mcp', /dependencies\.tools\[0\]\.name must be a non-empty name/],
      [{}, 'dependencies:\n  tools:\n    - type: mcp\n      value: x\n      url: file:///etc', /is not an http\(s\) URL/],
      [{}, 'a: [unclosed', /not valid YAML/],
      [{}, `dependencies: ${'['.repeat(20_000)}${']'.repeat(20_000)}`, /nested too deeply at line 1, column \d+/],
    ];
    for (const [frontmatter, yaml, pattern] of cases) {
      const reading = readRequirements(frontmatter, yaml);
      assert.ok(
        reading.problems.some((problem) => problem.severity === 'warning' && pattern.test(problem.message)),
        `${JSON.stringify(frontmatter)} ${yaml}: ${JSON.stringify(reading.problems)}`,
      );
      assert.ok(
        reading.problems.every((problem) => problem.severity === 'warning'),
        'never an error',
      );
    }
  });

  test('bounded: a hostile list keeps at most 64 entries per kind', () => {
    const many = Array.from({ length: 500 }, (_, index) => `server-${index}`);
    assert.equal(readRequirements({ requires: { mcp: many } }).requirements?.mcpServers.length, 64);
  });
});

describe('inspection carries requirements and their warnings', () => {
  test('a folder: requires + agents/openai.yaml, warnings name the file', () => {
    const base = makeTree({
      'demo/SKILL.md': md('requires:\n  mcp: [rube]\n  tools: 5'),
      'demo/agents/openai.yaml': 'dependencies:\n  tools:\n    - type: mcp\n      value: github\n',
    });
    const inspection = inspectSkillFolder(join(base, 'demo'));
    assert.ok(inspection.skill);
    assert.deepEqual(
      inspection.skill.requirements?.mcpServers.map((server) => server.name),
      ['rube', 'github'],
    );
    const warning = inspection.problems.find((problem) => /requires\.tools/.test(problem.message));
    assert.ok(warning && warning.severity === 'warning' && warning.path.endsWith('SKILL.md'), JSON.stringify(inspection.problems));
  });

  test('in memory (archives, registry uploads): the same reading', () => {
    const inspected = inspectSkillFiles(
      [
        { path: 'SKILL.md', bytes: Buffer.from(md('')) },
        { path: 'agents/openai.yaml', bytes: Buffer.from('dependencies:\n  tools:\n    - {type: mcp, value: render, url: "https://mcp.render.com/mcp"}\n') },
      ],
      { folderName: 'demo' },
    );
    assert.deepEqual(inspected.skill?.requirements?.mcpServers, [{ name: 'render', url: 'https://mcp.render.com/mcp' }]);
  });
});

describe('judgeAvailability', () => {
  const req = readRequirements({ requires: { mcp: ['rube'], tools: ['Bash'] }, agents: ['codex'] }).requirements!;

  test('unknown when nothing is said, needs when the host lacks it, ready when provided', () => {
    assert.equal(judgeAvailability(req, {}).status, 'unknown');
    const lacking = judgeAvailability(req, { mcpServers: ['github'], tools: ['Bash'], agent: 'codex' });
    assert.deepEqual(lacking, { status: 'needs', needs: { mcpServers: ['rube'] } });
    assert.equal(availabilitySummary(lacking), 'needs MCP server "rube"');
    assert.deepEqual(judgeAvailability(req, { mcpServers: ['Rube'], tools: ['Bash'], agent: 'Codex' }), { status: 'ready' });
    assert.deepEqual(judgeAvailability(req, { mcpServers: ['rube'], tools: ['Bash'], agent: 'claude-code' }), {
      status: 'needs',
      needs: { agents: ['codex'] },
    });
  });

  test('no judged requirement (allowed-tools, compatibility alone): ready', () => {
    const info = readRequirements({ 'allowed-tools': 'Read Bash', compatibility: 'Linux' }).requirements;
    assert.deepEqual(judgeAvailability(info, { mcpServers: [] }), { status: 'ready' });
    assert.equal(readinessText(info, { status: 'ready' }), undefined);
  });

  test('the host and the policy together: a union', () => {
    const merged = mergeAvailable({ mcpServers: ['github'] }, { mcpServers: ['rube'], scopes: ['billing'] }, undefined);
    assert.deepEqual(merged, { mcpServers: ['github', 'rube'], scopes: ['billing'] });
  });

  test('readiness in words a model acts on, and ranks for ordering', () => {
    const needs = judgeAvailability(req, { mcpServers: [], tools: ['Bash'], agent: 'codex' });
    assert.match(readinessText(req, needs)!, /^Not ready: the MCP server "rube" must be connected to this host\. Do not start/);
    assert.ok(availabilityRank({ status: 'ready' }) < availabilityRank(judgeAvailability(req, {})));
    assert.ok(availabilityRank(judgeAvailability(req, {})) < availabilityRank(needs));
  });

  test('requirementsFromWire reads what a server sent and drops what is malformed', () => {
    assert.deepEqual(requirementsFromWire(JSON.parse(JSON.stringify(req))), req);
    assert.equal(requirementsFromWire('x'), undefined);
    assert.deepEqual(requirementsFromWire({ mcpServers: [{ name: 1 }, { name: 'ok' }], tools: [1, 'Bash'] })?.mcpServers, [{ name: 'ok' }]);
  });
});

describe('the shared corpus', { skip: existsSync(CORPUS) ? false : `corpus not found at ${CORPUS}` }, () => {
  const skills = existsSync(CORPUS) ? discoverSkills(CORPUS).skills : [];
  const withRequires = skills.filter((skill) => /^requires:/m.test(readFileSync(join(skill.dir, 'SKILL.md'), 'utf8').split(/^---$/m)[1] ?? ''));
  const withCodex = skills.filter((skill) => existsSync(join(skill.dir, 'agents', 'openai.yaml')));

  test('the 25 skills carrying requires each need the MCP server rube, with no warning', () => {
    assert.equal(withRequires.length, 25);
    let served = 0;
    for (const skill of withRequires) {
      // Read from the frontmatter whether or not the skill passes the other rules (one has a name with capitals).
      const reading = readRequirements(parseSkillMarkdown(readFileSync(join(skill.dir, 'SKILL.md'), 'utf8')).frontmatter);
      assert.deepEqual(
        reading,
        { requirements: { mcpServers: [{ name: 'rube' }], tools: [], scopes: [], agents: [], allowedTools: [], sources: ['requires'] }, problems: [] },
        skill.dir,
      );
      const inspection = inspectSkillFolder(skill.dir);
      if (inspection.skill === undefined) continue;
      served++;
      assert.deepEqual(inspection.skill.requirements, reading.requirements, skill.dir);
    }
    assert.ok(served >= 24, `${served} served`);
  });

  test('the 26 Codex sidecars parse without a warning (none of them declares dependencies)', () => {
    assert.equal(withCodex.length, 26);
    for (const skill of withCodex) {
      const inspection = inspectSkillFolder(skill.dir);
      assert.ok(inspection.skill, skill.dir);
      assert.deepEqual(
        inspection.problems.filter((problem) => problem.path.endsWith('openai.yaml')),
        [],
        skill.dir,
      );
      assert.ok(!inspection.skill.requirements?.sources.includes('agents/openai.yaml'), skill.dir);
    }
  });

  test('across the corpus: 25 requires, 41 allowed-tools, 18 compatibility, 6 agents, and not one warning', () => {
    const counts: Record<string, number> = {};
    const warnings: string[] = [];
    for (const skill of skills) {
      let frontmatter: Record<string, unknown>;
      try {
        frontmatter = parseSkillMarkdown(readFileSync(join(skill.dir, 'SKILL.md'), 'utf8')).frontmatter;
      } catch {
        continue;
      }
      const sidecar = join(skill.dir, 'agents', 'openai.yaml');
      const reading = readRequirements(frontmatter, existsSync(sidecar) ? readFileSync(sidecar, 'utf8') : undefined);
      for (const problem of reading.problems) warnings.push(`${skill.dir}: ${problem.message}`);
      for (const source of reading.requirements?.sources ?? []) counts[source] = (counts[source] ?? 0) + 1;
    }
    assert.deepEqual(counts, { requires: 25, 'allowed-tools': 41, compatibility: 18, agents: 6 });
    assert.deepEqual(warnings, []);
  });
});
