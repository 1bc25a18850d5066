import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  FolderSkillSource,
  McpSkillSource,
  SkillSession,
  SkillSet,
  callSkillTool,
  renderCatalog,
  skillTools,
  toJsonSchemaTools,
  toOpenAITools,
  answerOpenAIToolCall,
} from '../src/index.js';
import type { TemplateInputRequest } from '../src/index.js';
import { aiSdkTools } from '../src/adapters/ai-sdk.js';
import { EXAMPLES, makeTree, skillMd, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { startProxy } from '@skillport/test-kit';
import type { Proxy } from '@skillport/test-kit';

/**
 * What the model gets from @skillport/client (instructions, tools, errors), session duties (pins, dedupe,
 * reinject, export, JSON), direct references with origin markers, and template skills, against real servers.
 */
describe('client sessions', () => {
  let refs: RunningServer;
  let other: RunningServer;
  let proxy: Proxy;
  const tree = makeTree({
    'code-standards/SKILL.md': skillMd(
      'code-standards',
      'Coding standards <and> "conventions" & naming. Use when writing code.',
      'allowed-tools: Bash(rm:*) Read\n',
      '# Code standards\n\nFollow the naming rules in skill://code-standards/references/naming.md.\nSee also skill://elsewhere/SKILL.md.\n',
    ),
    'code-standards/references/naming.md': '# Naming\n\nFor examples, see skill://code-standards/references/examples.md.\n',
    'code-standards/references/examples.md': '# Examples\n\nfooBar, FooBar.\n',
    'plain/SKILL.md': skillMd('plain', 'A plain skill. Use for plain tasks.'),
  });
  const config = join(tree, 'skillport.yaml');
  writeFileSync(
    config,
    `name: refs\ninstructions: "Follow our coding standards. Load skill://code-standards/SKILL.md for details."\ndirs: [${JSON.stringify(tree)}]\n`,
  );
  const otherTree = makeTree({ 'plain/SKILL.md': skillMd('plain', 'Another plain skill. Use for other plain tasks.'), 'b-skill/SKILL.md': skillMd('b-skill') });

  before(async () => {
    refs = await startHttp(['--config', config]);
    other = await startHttp([otherTree]);
    proxy = await startProxy(refs.url);
  });
  after(async () => {
    await proxy.stop();
    await refs.stop();
    await other.stop();
  });

  const setOf = () =>
    new SkillSet([
      new McpSkillSource(proxy.url, { origin: 'refs' }),
      new McpSkillSource(other.url, { origin: 'other' }),
      new FolderSkillSource(EXAMPLES, { origin: 'local' }),
    ]);

  test('instructions: escaped, sorted catalog with origins; names namespaced; server instructions only on request; omitted when empty', async () => {
    const set = setOf();
    const plainText = await set.session().instructions();
    assert.match(plainText, /<available_skills>/);
    assert.match(plainText, /<description>Coding standards &lt;and&gt; &quot;conventions&quot; &amp; naming\. Use when writing code\.<\/description>/);
    const names = [...plainText.matchAll(/<name>([^<]+)<\/name>/g)].map((match) => match[1]!);
    assert.deepEqual(names, [...names].sort());
    assert.ok(names.includes('plain@refs') && names.includes('plain@other') && names.includes('code-standards'));
    assert.match(plainText, /<origin>refs<\/origin>/);
    assert.doesNotMatch(plainText, /Follow our coding standards/);
    assert.doesNotMatch(plainText, /read_skill_uri/);
    const withServer = await set.session({ includeServerInstructions: true, directReferences: true }).instructions();
    assert.match(
      withServer,
      /<server_instructions origin="refs">\n\[Origin: refs\]\nFollow our coding standards\. Load skill:\/\/code-standards\/SKILL\.md for details\./,
    );
    assert.doesNotMatch(withServer, /\[Origin: other\]/, 'no marker on content without skill:// references');
    const templated = await set.session({ instructionsTemplate: 'SKILLS:\n{available_skills}\nEND' }).instructions();
    assert.match(templated, /^SKILLS:\n<available_skills>[\s\S]*<\/available_skills>\nEND$/);
    const empty = new SkillSet([new FolderSkillSource(makeTree({ 'x.txt': 'no skills' }))]);
    assert.equal(await empty.session().instructions(), '');
    assert.equal(renderCatalog([]), '');
    await set.close();
  });

  test('tools: load once, dedupe, pinned reads, one-line errors, allowed-tools ignored unless approved', async () => {
    const set = setOf();
    const session = set.session();
    const tools = await skillTools(session);
    const call = (name: string, args: unknown) => callSkillTool(tools, name, args);
    const loaded = await call('load_skill', { name: 'code-standards' });
    assert.match(loaded, /^<skill_content name="code-standards" origin="refs" uri="skill:\/\/code-standards\/SKILL\.md" digest="sha256:[0-9a-f]{64}">/);
    assert.match(loaded, /references\/naming\.md \(\d+ bytes\)/);
    assert.doesNotMatch(loaded, /Bash\(rm/, 'allowed-tools must not reach the model unapproved');
    assert.doesNotMatch(loaded, /\[Origin:/, 'markers only with direct references on');
    assert.deepEqual(session.allowedTools(), {});
    proxy.reset();
    assert.match(await call('load_skill', { name: 'code-standards' }), /already active/);
    assert.equal(proxy.total(), 0);
    const errors = [
      await call('load_skill', { name: 'plain' }),
      await call('load_skill', { name: 'nope' }),
      await call('load_skill', {}),
      await call('read_skill_resource', { name: 'code-standards', path: '../plain/SKILL.md' }),
      await call('read_skill_resource', { name: 'code-standards', path: 'references/secret.md' }),
      await call('read_skill_uri', { uri: 'skill://x/SKILL.md', origin: 'refs' }),
      await call('load_skill', '{not json'),
    ];
    for (const error of errors) assert.match(error, /^Error: [^\n]+$/, error);
    assert.match(errors[0]!, /several origins; use one of: plain@other, plain@refs/);
    assert.match(errors[4]!, /its files: references\/examples\.md, references\/naming\.md/);
    const naming = await call('read_skill_resource', { name: 'code-standards', path: 'references/naming.md' });
    assert.match(naming, /^<skill_resource skill="code-standards" origin="refs" path="references\/naming\.md">\n# Naming/);

    const approved = setOf().session({ approveAllowedTools: (skill, tools) => skill.origin === 'refs' && tools.includes('Read') });
    const approvedText = await callSkillTool(await skillTools(approved), 'load_skill', { name: 'code-standards' });
    assert.match(approvedText, /Pre-approved tools for this skill: Bash\(rm:\*\) Read/);
    assert.deepEqual(approved.allowedTools(), { 'code-standards': ['Bash(rm:*)', 'Read'] });
    await set.close();
  });

  test('reinject after compaction, export to a delegated agent, JSON round trip', async () => {
    const set = setOf();
    const session = set.session();
    await session.activate('code-standards');
    await session.activate('csv-data-cleaning');
    const reinjected = session.reinject();
    assert.match(reinjected, /<skill_content name="code-standards"[\s\S]*<skill_content name="csv-data-cleaning" origin="local"/);

    const json = JSON.stringify(session);
    const restored = set.session({}, json);
    assert.equal(restored.reinject(), reinjected);
    proxy.reset();
    const text = await callSkillTool(await skillTools(restored), 'read_skill_resource', { name: 'code-standards', path: 'references/examples.md' });
    assert.match(text, /fooBar/);
    assert.equal(proxy.counts['skills/list'] ?? 0, 0, 'a restored session reuses its pins');

    const exported = session.export();
    assert.deepEqual(
      exported.skills.map((skill) => skill.name),
      ['code-standards', 'csv-data-cleaning'],
    );
    const delegate = setOf().session();
    const result = await delegate.importActive(JSON.parse(JSON.stringify(exported)));
    assert.deepEqual(result, { activated: ['code-standards', 'csv-data-cleaning'], refused: [] });
    assert.equal(delegate.reinject(), reinjected);
    const tampered = structuredClone(exported);
    tampered.skills[0]!.skillMdDigest = `sha256:${'0'.repeat(64)}`;
    const refused = await setOf().session().importActive(tampered);
    assert.deepEqual(refused.activated, ['csv-data-cleaning']);
    assert.match(refused.refused[0]!, /code-standards: .*differs from the exported one/);
    await set.close();
  });

  test('direct references: [Origin: X] markers only where skill:// appears; reads stay on the origin that mentioned them', async () => {
    const set = setOf();
    const session = set.session({ directReferences: true, includeServerInstructions: true });
    const tools = await skillTools(session);
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['load_skill', 'read_skill_resource', 'read_skill_uri'],
    );
    await session.instructions();
    const call = (name: string, args: unknown) => callSkillTool(tools, name, args);
    const loaded = await call('load_skill', { name: 'code-standards' });
    assert.match(loaded, /^<skill_content [^>]+>\n\[Origin: refs\]\n# Code standards/);
    const plain = await call('load_skill', { name: 'plain@other' });
    assert.doesNotMatch(plain, /\[Origin:/);
    const naming = await call('read_skill_uri', { uri: 'skill://code-standards/references/naming.md', origin: 'refs' });
    assert.match(naming, /^<skill_resource origin="refs" uri="skill:\/\/code-standards\/references\/naming\.md">\n\[Origin: refs\]\n# Naming/);
    const examples = await call('read_skill_uri', { uri: 'skill://code-standards/references/examples.md', origin: 'refs' });
    assert.match(examples, /fooBar/);
    assert.doesNotMatch(examples, /\[Origin:/);
    // Content from refs mentioned skill://elsewhere/SKILL.md: it may not be read on another server.
    const cross = await call('read_skill_uri', { uri: 'skill://elsewhere/SKILL.md', origin: 'other' });
    assert.match(cross, /^Error: skill:\/\/elsewhere\/SKILL\.md was not mentioned by content from 'other'/);
    const missing = await call('read_skill_uri', { uri: 'skill://elsewhere/SKILL.md', origin: 'refs' });
    assert.match(missing, /^Error: [^\n]*not a file of any skill on refs/);
    assert.match(await call('read_skill_uri', { uri: 'skill://code-standards/../plain/SKILL.md', origin: 'refs' }), /^Error: /);
    assert.match(
      await call('read_skill_uri', { uri: 'skill://x/SKILL.md', origin: 'nowhere' }),
      /^Error: Unknown origin 'nowhere'\. Origins: refs, other, local/,
    );
    await set.close();
  });

  test('large text in parts with offset, binaries as a base64 envelope', async () => {
    const set = new SkillSet([new FolderSkillSource(EXAMPLES)]);
    const session = set.session({ maxTextBytes: 5000, maxBinaryBytes: 100_000 });
    const tools = await skillTools(session);
    const first = await callSkillTool(tools, 'read_skill_resource', { name: 'csv-data-cleaning', path: 'scripts/profile_csv.py' });
    assert.match(first, /\[bytes 0-5000 of 12498; read the rest with offset 5000\]\n<\/skill_resource>$/);
    const last = await callSkillTool(tools, 'read_skill_resource', { name: 'csv-data-cleaning', path: 'scripts/profile_csv.py', offset: 10000 });
    assert.match(last, /\[bytes 10000-12498 of 12498; end of file\]/);
    assert.match(
      await callSkillTool(tools, 'read_skill_resource', { name: 'csv-data-cleaning', path: 'scripts/profile_csv.py', offset: 99999 }),
      /^Error: offset 99999 is past the end/,
    );
    assert.match(
      await callSkillTool(tools, 'read_skill_resource', { name: 'csv-data-cleaning', path: 'scripts/profile_csv.py', offset: -1 }),
      /^Error: 'offset' must be a non-negative integer/,
    );
    const logo = await callSkillTool(tools, 'read_skill_resource', { name: 'release-notes', path: 'assets/logo.png' });
    const envelope = JSON.parse(logo.split('\n')[1]!) as { mediaType: string; encoding: string; data: string; size: number };
    assert.equal(envelope.mediaType, 'image/png');
    assert.equal(envelope.encoding, 'base64');
    assert.equal(Buffer.from(envelope.data, 'base64').byteLength, envelope.size);
  });

  test('adapters: OpenAI functions, plain JSON schema, Vercel AI SDK tools', async () => {
    const set = setOf();
    const session = set.session({ directReferences: true });
    const tools = await skillTools(session);
    const openai = toOpenAITools(tools);
    assert.equal(openai[0]!.type, 'function');
    assert.equal(openai[0]!.function.name, 'load_skill');
    assert.ok((openai[0]!.function.parameters['properties'] as { name: { enum: string[] } }).name.enum.includes('plain@other'));
    const reply = await answerOpenAIToolCall(tools, { id: 'call_1', function: { name: 'load_skill', arguments: '{"name":"plain@other"}' } });
    assert.equal(reply.role, 'tool');
    assert.equal(reply.tool_call_id, 'call_1');
    assert.match(reply.content, /<skill_content name="plain@other" origin="other"/);
    assert.deepEqual(
      toJsonSchemaTools(tools).map((tool) => Object.keys(tool)),
      [
        ['name', 'description', 'inputSchema'],
        ['name', 'description', 'inputSchema'],
        ['name', 'description', 'inputSchema'],
      ],
    );
    const ai = aiSdkTools(tools);
    assert.deepEqual(Object.keys(ai), ['load_skill', 'read_skill_resource', 'read_skill_uri']);
    const out = await ai['read_skill_resource']!.execute!({ name: 'plain@other', path: 'x.md' }, { toolCallId: 't', messages: [] });
    assert.match(String(out), /^Error: /);
    await set.close();
  });
});

describe('template skills in a session', () => {
  test('selector callback, and a serialisable pending request answered later; two variables in order with context', async () => {
    const dir = makeTree({
      'docs/widgets/SKILL.md': skillMd('widgets'),
      'docs/gadgets/SKILL.md': skillMd('gadgets'),
      'api/widgets/v1/SKILL.md': skillMd('v1'),
      'api/widgets/v2/SKILL.md': skillMd('v2'),
      'api/gadgets/v3/SKILL.md': skillMd('v3', 'Gadgets API version 3. Use for gadgets v3.'),
      'api/gadgets/v3/references/endpoints.md': '# Endpoints\n',
    });
    const server = await startHttp([
      '--template',
      `skill://docs/{product}/SKILL.md=${dir}/docs`,
      '--template',
      `skill://api/{product}/{version}/SKILL.md=${dir}/api`,
    ]);
    try {
      const set = new SkillSet([new McpSkillSource(server.url, { origin: 'docs' })]);
      const session = set.session();
      const templates = await session.templates();
      assert.deepEqual(templates.map((template) => [template.uriTemplate, template.variables]).sort(), [
        ['skill://api/{product}/{version}/SKILL.md', ['product', 'version']],
        ['skill://docs/{product}/SKILL.md', ['product']],
      ]);
      const docs = templates.find((template) => template.variables.length === 1)!;
      const api = templates.find((template) => template.variables.length === 2)!;

      const asked: TemplateInputRequest[] = [];
      const chosen = await session.resolveTemplate(docs, (request) => {
        asked.push(request);
        return request.values.includes('gadgets') ? 'gadgets' : undefined;
      });
      assert.equal(chosen?.name, 'gadgets');
      assert.deepEqual(asked[0]!.values, ['gadgets', 'widgets']);

      // Pending-input flow: ask, serialise the session, answer in a restored session.
      const first = await session.requestTemplateInput(api);
      assert.equal(first.variable, 'product');
      assert.deepEqual(first.values, ['gadgets', 'widgets']);
      const stored = JSON.stringify(session);
      const later = SkillSession.fromJSON(set, stored);
      assert.deepEqual(
        later.pendingInputs().map((request) => request.id),
        [first.id],
      );
      const step = await later.answer(first.id, 'gadgets');
      assert.ok('request' in step);
      assert.equal(step.request.variable, 'version');
      assert.deepEqual(step.request.context, { product: 'gadgets' });
      assert.deepEqual(step.request.values, ['v3'], 'the second variable completes with the first as context');
      const done = await later.answer(step.request.id, 'v3');
      assert.ok('skill' in done);
      assert.equal(done.skill.uri, 'skill://api/gadgets/v3/SKILL.md');
      assert.deepEqual(later.chosenTemplateValues()[`docs ${api.uriTemplate}`], { product: 'gadgets', version: 'v3' });
      const tools = await skillTools(later);
      assert.match(await callSkillTool(tools, 'load_skill', { name: done.skill.id }), /Instructions for v3/);
      assert.match(await callSkillTool(tools, 'read_skill_resource', { name: done.skill.id, path: 'references/endpoints.md' }), /# Endpoints/);
      await assert.rejects(later.answer('no-such-request', 'x'), /no pending template question/);
      const bad = await later.requestTemplateInput(docs);
      await assert.rejects(later.answer(bad.id, '../etc'), /not a valid value/);
      await set.close();

      // A draft-era client finds the same families as mcp-resource-template entries of skill://index.json.
      const draft = new SkillSet([new McpSkillSource(server.url, { origin: 'draft', mode: 'index' })]);
      const draftSession = draft.session();
      const draftTemplates = await draftSession.templates();
      assert.deepEqual(draftTemplates.map((template) => template.uriTemplate).sort(), [
        'skill://api/{product}/{version}/SKILL.md',
        'skill://docs/{product}/SKILL.md',
      ]);
      const widgets = await draftSession.resolveTemplate(draftTemplates.find((template) => template.variables.length === 1)!, (request) =>
        request.values.find((value) => value === 'widgets'),
      );
      assert.equal(widgets?.uri, 'skill://docs/widgets/SKILL.md');
      const text = await callSkillTool(await skillTools(draftSession), 'load_skill', { name: widgets!.id });
      // This server also lists the family's skills in its index (with digests): the resolved URI is that listed,
      // verified skill, not an unverified copy.
      assert.match(text, /^<skill_content name="widgets" origin="draft" uri="skill:\/\/docs\/widgets\/SKILL\.md">\n# widgets/);
      await draft.close();
    } finally {
      await server.stop();
    }
  });
});
