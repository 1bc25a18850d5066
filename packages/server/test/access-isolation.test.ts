import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { makeTree, startHttp } from '@skillport/test-kit';
import type { Era, RunningServer } from '@skillport/test-kit';
import { connectAs, createToken, outcome, rawRequest } from '@skillport/test-kit';

/**
 * The isolation matrix (principals x skills x surfaces): two organisations, a user, a project and an agent share one
 * server, and no principal may learn anything about a skill it cannot see, by any request a client can send.
 *
 * The oracle: for each principal P, a second server holds on disk only the skills P may see (same policy, same
 * tokens). Every request P sends (listings, name and URI guesses for every skill that exists anywhere, completion
 * prefixes, searches naming hidden skills, tools, prompts, the index, the HTTP API, the fast path) must get exactly
 * the same answer from both. So a hidden skill answers exactly like one that does not exist, and nothing it holds
 * (name, description, body, files) shows anywhere. Each skill also carries secret markers that must never appear in
 * any answer to a principal who cannot see it.
 */
interface SkillSpec {
  /** Path of the skill folder under the served tree (its URI path). */
  path: string;
  name: string;
  /** Who may see it, by this test's own reading of the policy below. */
  seenBy: string[];
  template?: boolean;
  /** More frontmatter (a skill requiring a scope that only some principals are granted). */
  frontmatter?: string;
}

const SKILLS: SkillSpec[] = [
  { path: 'acme/acme-deploy', name: 'acme-deploy', seenBy: ['alice', 'carol'] },
  { path: 'acme/onboarding', name: 'onboarding', seenBy: ['alice', 'carol'] },
  { path: 'globex/globex-ledger', name: 'globex-ledger', seenBy: ['bob'] },
  { path: 'globex/onboarding', name: 'onboarding', seenBy: ['bob'] },
  { path: 'public/style-guide', name: 'style-guide', seenBy: ['alice', 'bob', 'carol', 'bot', 'dave'] },
  { path: 'public/onboarding', name: 'onboarding', seenBy: ['alice', 'bob', 'carol', 'bot', 'dave'] },
  { path: 'users/alice/alice-notes', name: 'alice-notes', seenBy: ['alice'] },
  { path: 'users/alice/onboarding', name: 'onboarding', seenBy: ['alice'] },
  { path: 'projects/web/web-checklist', name: 'web-checklist', seenBy: ['carol'] },
  { path: 'agents/bot/bot-routine', name: 'bot-routine', seenBy: ['bot'] },
  // Public by its rule, but it requires a scope the policy grants acme only: hidden from everyone else.
  { path: 'public/payroll-run', name: 'payroll-run', seenBy: ['alice', 'carol'], frontmatter: 'requires:\n  scopes: [payroll]\n' },
  // Public by its rule, but a skill nested in it (its files are the outer skill's too) requires payroll: shown only to
  // those who may see both, or the outer skill's listing and reads would give the nested one away.
  { path: 'public/handbook', name: 'handbook', seenBy: ['alice', 'carol'] },
  {
    path: 'public/handbook/references/handbook-payroll',
    name: 'handbook-payroll',
    seenBy: ['alice', 'carol'],
    frontmatter: 'requires:\n  scopes: [payroll]\n',
  },
  { path: 'docs/acme-widget', name: 'acme-widget', seenBy: ['alice', 'carol'], template: true },
  { path: 'docs/globex-gadget', name: 'globex-gadget', seenBy: ['bob'], template: true },
];

const PRINCIPALS: Record<string, string[]> = {
  alice: ['--user', 'alice', '--org', 'acme'],
  bob: ['--user', 'bob', '--org', 'globex'],
  carol: ['--user', 'carol', '--org', 'acme', '--project', 'web'],
  bot: ['--user', 'ci', '--agent', 'release-bot'],
  dave: ['--user', 'dave'],
};

const POLICY = `
default: none
precedence: [user, agent, project, org, public]
rules:
  - uri: skill://acme/
    allow: [org:acme]
  - uri: skill://globex/
    allow: [org:globex]
  - uri: skill://public/
    allow: [public]
  - uri: skill://users/alice/
    allow: [user:alice]
  - uri: skill://projects/web/
    allow: [project:web]
  - uri: skill://agents/bot/
    allow: [agent:release-bot]
  - skills: ["acme-*"]
    allow: [org:acme]
  - skills: "globex-*"
    allow: [org:globex]
sessions:
  - for: project:web
    required: [web-checklist]
    pinned: [style-guide, globex-ledger, skill://globex/onboarding/SKILL.md, payroll-run]
grants:
  - for: org:acme
    scopes: [payroll]
`;

const marker = (skill: SkillSpec, part: string) => `MK${part}${skill.path.replace(/[^a-z]/g, 'X').toUpperCase()}`;

function files(skills: SkillSpec[]): { tree: Record<string, string>; docs: Record<string, string> } {
  const tree: Record<string, string> = {};
  const docs: Record<string, string> = {};
  for (const skill of skills) {
    const target = skill.template ? docs : tree;
    const path = skill.template ? skill.path.slice('docs/'.length) : skill.path;
    target[`${path}/SKILL.md`] =
      `---\nname: ${skill.name}\ndescription: Helps with ${skill.name} work ${marker(skill, 'DESC')}. Use when asked about ${skill.name}.\n${skill.frontmatter ?? ''}---\n\n# ${skill.name}\n\n## Steps ${marker(skill, 'HEAD')}\n\nDo it. ${marker(skill, 'BODY')}\n`;
    target[`${path}/references/notes.md`] = `Notes ${marker(skill, 'FILE')}\n`;
  }
  return { tree, docs };
}

describe('isolation matrix: principals x skills x surfaces, zero leaks', () => {
  const data = mkdtempSync(join(tmpdir(), 'skillport-iso-data-'));
  const policy = join(mkdtempSync(join(tmpdir(), 'skillport-iso-policy-')), 'policy.yaml');
  writeFileSync(policy, POLICY);
  const tokens: Record<string, string> = {};
  let shared: RunningServer;
  const alone: Record<string, RunningServer> = {};

  const serve = (skills: SkillSpec[]) => {
    const { tree, docs } = files(skills);
    // Every world has both folders, even when one is empty, so the server's shape is the same.
    const treeDir = makeTree({ '.keep': '', ...tree });
    const docsDir = makeTree({ '.keep': '', ...docs });
    return startHttp([
      treeDir,
      '--template',
      `skill://docs/{product}/SKILL.md=${docsDir}`,
      '--tools',
      'full,asm',
      '--auth',
      'tokens',
      '--data',
      data,
      '--policy',
      policy,
      '--no-watch',
    ]);
  };

  before(async () => {
    for (const [name, args] of Object.entries(PRINCIPALS)) tokens[name] = await createToken(data, args);
    const servers = await Promise.all([serve(SKILLS), ...Object.keys(PRINCIPALS).map((name) => serve(SKILLS.filter((skill) => skill.seenBy.includes(name))))]);
    shared = servers[0]!;
    Object.keys(PRINCIPALS).forEach((name, index) => (alone[name] = servers[index + 1]!));
  });
  after(async () => {
    await Promise.all([shared, ...Object.values(alone)].filter(Boolean).map((server) => server.stop()));
  });

  const uriOf = (skill: SkillSpec) => `skill://${skill.path}/SKILL.md`;
  const ghost: SkillSpec = { path: 'globex/never-existed', name: 'never-existed', seenBy: [] };

  /** Every request a principal sends, through a real MCP client, with each answer kept for comparison. */
  async function surfaces(client: Client, url: string, era: Era, token: string): Promise<Array<[string, unknown]>> {
    const answers: Array<[string, unknown]> = [];
    const ask = async (what: string, run: () => Promise<unknown>) => answers.push([what, await outcome(run)]);
    const skillsClient = new SkillsClient(client);
    answers.push(['instructions', client.getInstructions()]);
    await ask('tools/list', () => client.listTools());
    await ask('skills/list', () => skillsClient.list());
    await ask('resources/list', () => client.listResources());
    await ask('resources/templates/list', () => client.listResourceTemplates());
    await ask('prompts/list', () => client.listPrompts());
    await ask('index.json', () => client.readResource({ uri: 'skill://index.json' }));
    await ask('list_skills', () => client.callTool({ name: 'list_skills', arguments: {} }));
    // agentskills-mcp-server's surface (--tools asm): its catalogs and usage text follow the caller's view too.
    for (const uri of ['skills://catalog/xml', 'skills://catalog/markdown', 'skills://tools-usage-instructions'])
      await ask(uri, () => client.readResource({ uri }));
    for (const prefix of ['', 'o', 'g', 'acme', 'x']) {
      await ask(`complete skill_id ${prefix}`, () =>
        client.complete({ ref: { type: 'ref/resource', uri: 'skills://{skill_id}/resources' }, argument: { name: 'skill_id', value: prefix } }),
      );
    }
    for (const prefix of ['', 'a', 'g', 'globex', 'acme-', 'x']) {
      await ask(`complete ${prefix}`, () =>
        client.complete({ ref: { type: 'ref/resource', uri: 'skill://docs/{product}/SKILL.md' }, argument: { name: 'product', value: prefix } }),
      );
    }
    let id = 1000;
    for (const skill of [...SKILLS, ghost]) {
      const uri = uriOf(skill);
      const root = uri.slice(0, -'/SKILL.md'.length);
      await ask(`skills/get ${uri}`, () => skillsClient.get(uri));
      await ask(`read ${uri}`, () => client.readResource({ uri }));
      await ask(`read notes ${uri}`, () => client.readResource({ uri: `${root}/references/notes.md` }));
      await ask(`directory ${root}`, () => skillsClient.readDirectory(root));
      await ask(`directory refs ${root}`, () => skillsClient.readDirectory(`${root}/references`));
      await ask(`prompt ${skill.name}`, () => client.getPrompt({ name: skill.name }));
      await ask(`prompt path ${skill.path}`, () => client.getPrompt({ name: skill.path }));
      await ask(`search ${skill.name}`, () => client.callTool({ name: 'list_skills', arguments: { query: skill.name } }));
      await ask(`search marker ${skill.name}`, () =>
        client.callTool({ name: 'list_skills', arguments: { query: `${skill.name} ${marker(skill, 'DESC')} ${marker(skill, 'HEAD')}` } }),
      );
      await ask(`activate name ${skill.name}`, () => client.callTool({ name: 'activate_skill', arguments: { name: skill.name } }));
      await ask(`activate uri ${uri}`, () => client.callTool({ name: 'activate_skill', arguments: { uri } }));
      await ask(`activate root ${root}`, () => client.callTool({ name: 'activate_skill', arguments: { uri: root } }));
      await ask(`read tool ${uri}`, () => client.callTool({ name: 'read_skill_resource', arguments: { uri, path: 'references/notes.md' } }));
      await ask(`read tool name ${skill.name}`, () =>
        client.callTool({ name: 'read_skill_resource', arguments: { name: skill.name, path: 'references/notes.md' } }),
      );
      await ask(`outline ${uri}`, () => client.callTool({ name: 'get_skill_outline', arguments: { uri } }));
      await ask(`section ${uri}`, () => client.callTool({ name: 'get_skill_section', arguments: { uri, key: 'steps' } }));
      // asm's tools resolve skill_id in the caller's view: by name and by path (they share one resolver, ids.ts).
      for (const skill_id of [skill.name, skill.path]) {
        await ask(`get_skill_body ${skill_id}`, () => client.callTool({ name: 'get_skill_body', arguments: { skill_id } }));
        await ask(`get_skill_reference ${skill_id}`, () => client.callTool({ name: 'get_skill_reference', arguments: { skill_id, name: 'notes.md' } }));
      }
      await ask(`asm resources ${skill.path}`, () => client.readResource({ uri: `skills://${encodeURIComponent(skill.path)}/resources` }));
      // The same reads as raw requests shaped like the SDK client's, so the HTTP fast path answers the visible ones.
      for (const [method, params] of [
        ['resources/read', { uri }],
        ['resources/read', { uri: `${root}/references/notes.md` }],
        ['skills/get', { uri }],
        ['resources/directory/read', { uri: root }],
      ] as const) {
        const raw = await rawRequest(url, era, token, id, method, params);
        answers.push([`raw ${method} ${params.uri}`, raw]);
        id++;
      }
    }
    const api = async (path: string) => {
      const response = await fetch(url.replace(/\/mcp$/, path), { headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, body: await response.json() };
    };
    await ask('GET /api/v1/catalog', () => api('/api/v1/catalog'));
    await ask('GET /api/v1/me', () => api('/api/v1/me'));
    return answers;
  }

  for (const era of ['modern', 'legacy'] as const) {
    for (const name of Object.keys(PRINCIPALS)) {
      test(`${name} (${era}): every surface answers as if the hidden skills did not exist`, async () => {
        const token = tokens[name]!;
        const [a, b] = await Promise.all([connectAs(shared.url, era, token), connectAs(alone[name]!.url, era, token)]);
        try {
          const [onShared, onAlone] = await Promise.all([surfaces(a, shared.url, era, token), surfaces(b, alone[name]!.url, era, token)]);
          assert.equal(onShared.length, onAlone.length);
          for (let i = 0; i < onShared.length; i++) {
            assert.deepEqual(onShared[i], onAlone[i], `${name} (${era}): ${onShared[i]![0]} differs from a server without the hidden skills`);
          }
          // And the secret markers of every hidden skill appear nowhere (a search that sent markers may echo its query).
          const everything = JSON.stringify(onShared);
          const unechoed = JSON.stringify(onShared.filter(([what]) => !what.startsWith('search marker')));
          for (const skill of SKILLS.filter((candidate) => !candidate.seenBy.includes(name))) {
            for (const part of ['DESC', 'HEAD']) assert.ok(!unechoed.includes(marker(skill, part)), `${name} saw ${marker(skill, part)}`);
            for (const part of ['BODY', 'FILE']) assert.ok(!everything.includes(marker(skill, part)), `${name} saw ${marker(skill, part)}`);
          }
          // The visible ones are really there (the comparison is not vacuous).
          for (const skill of SKILLS.filter((candidate) => candidate.seenBy.includes(name))) {
            assert.ok(everything.includes(marker(skill, 'BODY')), `${name} should see ${skill.path}`);
            assert.ok(everything.includes(marker(skill, 'FILE')), `${name} should read ${skill.path}'s files`);
          }
        } finally {
          await Promise.all([a.close(), b.close()]);
        }
      });
    }
  }

  test('precedence: a shared name means the best-ranked visible skill; each stays reachable by URI', async () => {
    const expected: Record<string, string> = {
      alice: 'users/alice/onboarding',
      bob: 'globex/onboarding',
      carol: 'acme/onboarding',
      bot: 'public/onboarding',
      dave: 'public/onboarding',
    };
    for (const [name, path] of Object.entries(expected)) {
      const client = await connectAs(shared.url, 'modern', tokens[name]!);
      try {
        const result = (await client.callTool({ name: 'activate_skill', arguments: { name: 'onboarding' } })) as { content: Array<{ text: string }> };
        assert.match(result.content[0]!.text, new RegExp(`uri="skill://${path}/SKILL.md"`), `${name} gets ${path}`);
        // Another visible skill of the same name is still reachable by its URI.
        if (name === 'alice') {
          const other = (await client.callTool({ name: 'activate_skill', arguments: { uri: 'skill://public/onboarding/SKILL.md' } })) as {
            content: Array<{ text: string }>;
          };
          assert.match(other.content[0]!.text, /uri="skill:\/\/public\/onboarding\/SKILL.md"/);
          const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
          assert.ok(prompts.includes('onboarding'));
          assert.ok(prompts.includes('public/onboarding') && prompts.includes('acme/onboarding'));
          assert.equal(new Set(prompts).size, prompts.length, 'prompt names are unique');
        }
      } finally {
        await client.close();
      }
    }
  });

  test("session catalog: list_skills without a query returns the project's required and pinned skills (hidden ones left out)", async () => {
    const client = await connectAs(shared.url, 'modern', tokens['carol']!);
    try {
      const listed = (await client.callTool({ name: 'list_skills', arguments: {} })) as {
        structuredContent: { skills: Array<{ uri: string; required?: boolean; pinned?: boolean }>; session: boolean; searchable: number };
      };
      assert.equal(listed.structuredContent.session, true);
      assert.deepEqual(
        listed.structuredContent.skills.map((skill) => [skill.uri, skill.required ?? false, skill.pinned ?? false]),
        [
          ['skill://projects/web/web-checklist/SKILL.md', true, false],
          ['skill://public/style-guide/SKILL.md', false, true],
          ['skill://public/payroll-run/SKILL.md', false, true],
        ],
      );
      assert.equal(listed.structuredContent.searchable, SKILLS.filter((skill) => skill.seenBy.includes('carol')).length);
      // With a query it searches everything carol may see.
      const searched = (await client.callTool({ name: 'list_skills', arguments: { query: 'acme deploy' } })) as {
        structuredContent: { skills: Array<{ name: string }> };
      };
      assert.equal(searched.structuredContent.skills[0]?.name, 'acme-deploy');
      assert.match(client.getInstructions() ?? '', /requires these skills: activate each before starting work: web-checklist/);
    } finally {
      await client.close();
    }
  });
});
