import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { makeTarGz } from '@skillport/test-kit';
import { connectHttp, connectStdio, makeTree, skillMd, startHttp } from '@skillport/test-kit';
import type { Era } from '@skillport/test-kit';
import { callText, publish } from '@skillport/test-kit';
import { startStaticHost } from '@skillport/test-kit';

/**
 * `--tools asm`: a host written for agentskills-mcp-server (seed 002) switched to skillport by changing only the
 * command. The host here does what that server's Agent Framework context provider does: it reads
 * skills://catalog/xml and skills://tools-usage-instructions and injects them as instructions, then calls the
 * eight tools by the documented names and parameters, over stdio and HTTP, with skills from a folder, an
 * archive, a registry and a static host behind the server.
 */

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from([0x00, 0x00, 0x00, 0x0d, 0xff, 0xfe, 0x80, 0x81])]);
const BIG = Buffer.alloc(3000, 0xff);
const BODY = [
  '# Incident Response',
  '',
  'Use this runbook when production is degraded. Read references/severity-levels.md first.',
  '',
  '## Severity levels',
  '',
  'A full database outage is SEV1. Partial degradation is SEV2.',
  '',
  '### Install',
  '',
  'Install the pager CLI.',
  '',
  '## Escalation',
  '',
  'Page the on-call engineer with scripts/page-oncall.sh.',
  '',
  '### Install',
  '',
  'Install the escalation bot.',
  '',
].join('\n');
/** agentskills-mcp-server rejected spec-valid `compatibility` strings; skillport serves them. */
const INCIDENT = skillMd(
  'incident-response',
  'Runbook for production incidents. Use when a service is down or degraded.',
  'license: MIT\ncompatibility: Requires bash and network access to the pager API.\n',
  BODY,
);
const INCIDENT_FILES: Record<string, string | Uint8Array> = {
  'SKILL.md': INCIDENT,
  'references/severity-levels.md': '# Severity levels\n\nSEV1: full outage.\n',
  'scripts/page-oncall.sh': '#!/bin/sh\necho paging\n',
  'assets/architecture.png': PNG,
  'assets/big.bin': BIG,
  'LICENSE.txt': 'MIT\n',
};
const STYLE = skillMd('api-style-guide', 'House rules for HTTP APIs. Use when designing or reviewing an API.');

function folderOf(name: string, files: Record<string, string | Uint8Array>, base = makeTree({})): string {
  makeTree(Object.fromEntries(Object.entries(files).map(([path, content]) => [`${name}/${path}`, content])), base);
  return base;
}

async function readText(client: Client, uri: string): Promise<string> {
  const result = await client.readResource({ uri });
  return (result.contents[0] as { text: string }).text;
}

/** What AgentSkillsMcpContextProvider.before_run does: two resources into its default prompt template. */
async function injectedInstructions(client: Client, format: 'xml' | 'markdown' = 'xml'): Promise<string> {
  const catalog = await readText(client, `skills://catalog/${format}`);
  const usage = await readText(client, 'skills://tools-usage-instructions');
  return `You have access to a set of skills that provide domain-specific knowledge, procedures, and supporting resources. Use them when a task aligns with a skill's domain.\n\n${catalog}\n\n${usage}`;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await callText(client, name, args);
  assert.equal(result.isError, false, `${name} ${JSON.stringify(args)} failed: ${result.text}`);
  return result.text;
}

const EIGHT = [
  'get_skill_asset',
  'get_skill_body',
  'get_skill_metadata',
  'get_skill_outline',
  'get_skill_reference',
  'get_skill_script',
  'get_skill_section',
  'list_skill_resources',
];

/** The documented flow for incident-response: metadata, outline, section, resources, reference, script, asset. */
async function walk(client: Client, id = 'incident-response', options: { binaries?: boolean; other?: boolean } = {}): Promise<void> {
  const instructions = await injectedInstructions(client);
  assert.match(instructions, new RegExp(`<name>${id.replace(/[/.]/g, '\\$&')}</name>`));
  assert.match(instructions, /<description>Runbook for production incidents\./);
  assert.match(instructions, /get_skill_body\(skill_id\)/);
  assert.match(instructions, /get_skill_reference\(skill_id, name\)/);

  const metadata = JSON.parse(await call(client, 'get_skill_metadata', { skill_id: id })) as Record<string, unknown>;
  assert.equal(metadata['name'], 'incident-response');
  assert.equal(metadata['license'], 'MIT');
  assert.equal(metadata['compatibility'], 'Requires bash and network access to the pager API.');

  assert.equal((await call(client, 'get_skill_body', { skill_id: id })).trim(), BODY.trim());

  const outline = await call(client, 'get_skill_outline', { skill_id: id });
  assert.match(outline, new RegExp(`^'${id.replace(/[/.]/g, '\\$&')}': ~\\d+ tokens in 5 sections\\.`));
  // Flat keys: the repeated heading gets -2, not a path under its parent.
  for (const key of ['incident-response', 'severity-levels', 'install', 'escalation', 'install-2'])
    assert.match(outline, new RegExp(`- ${key} \\(~\\d+\\) — `));
  assert.match(outline, /Call get_skill_body instead: the whole body is only ~\d+ tokens/);

  // Sections do not nest: the parent's text stops at its child's heading.
  const severity = await call(client, 'get_skill_section', { skill_id: id, key: 'severity-levels' });
  assert.match(severity, /^## Severity levels\n\nA full database outage is SEV1/);
  assert.doesNotMatch(severity, /Install the pager CLI/);
  assert.match(await call(client, 'get_skill_section', { skill_id: id, key: 'install-2' }), /Install the escalation bot/);
  const missing = await callText(client, 'get_skill_section', { skill_id: id, key: 'rollback' });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /has no section 'rollback'; available keys: incident-response, severity-levels, install, escalation, install-2/);

  const listing = JSON.parse(await call(client, 'list_skill_resources', { skill_id: id })) as Record<string, string[]>;
  assert.deepEqual(listing['references'], ['severity-levels.md']);
  assert.deepEqual(listing['scripts'], ['page-oncall.sh']);
  if (options.binaries !== false) assert.deepEqual(listing['assets'], ['architecture.png', 'big.bin']);
  if (options.other !== false) assert.deepEqual(listing['other'], ['LICENSE.txt']);
  assert.deepEqual(JSON.parse(await readText(client, `skills://${encodeURIComponent(id)}/resources`)), listing);

  assert.equal(await call(client, 'get_skill_reference', { skill_id: id, name: 'severity-levels.md' }), '# Severity levels\n\nSEV1: full outage.\n');
  // The path inside the skill works too (models often pass it).
  assert.equal(await call(client, 'get_skill_reference', { skill_id: id, name: 'references/severity-levels.md' }), '# Severity levels\n\nSEV1: full outage.\n');
  assert.equal(await call(client, 'get_skill_script', { skill_id: id, name: 'page-oncall.sh' }), '#!/bin/sh\necho paging\n');
  if (options.binaries === false) return;
  const png = JSON.parse(await call(client, 'get_skill_asset', { skill_id: id, name: 'architecture.png' })) as Record<string, unknown>;
  assert.deepEqual(
    { ...png, digest: undefined },
    { name: 'architecture.png', media_type: 'image/png', size_bytes: PNG.byteLength, encoding: 'base64', content: PNG.toString('base64'), digest: undefined },
  );
  assert.equal(png['digest'], `sha256:${createHash('sha256').update(PNG).digest('hex')}`);
  // Past the inline ceiling (--binary-max 2KiB here): described, not inlined.
  const big = JSON.parse(await call(client, 'get_skill_asset', { skill_id: id, name: 'big.bin' })) as Record<string, unknown>;
  assert.equal(big['encoding'], 'none');
  assert.equal(big['size_bytes'], BIG.byteLength);
  assert.equal(big['content'], undefined);
  assert.match(String(big['note']), /exceeds the 2048-byte inline limit/);
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

describe('--tools asm: the agentskills-mcp-server surface', () => {
  const tree = folderOf('api-style-guide', { 'SKILL.md': STYLE }, folderOf('incident-response', INCIDENT_FILES));

  for (const [transport, era] of [
    ['stdio', 'legacy'],
    ['http', 'modern'],
    ['http', 'legacy'],
  ] as Array<['stdio' | 'http', Era]>) {
    test(`a folder, over ${transport} (${era}): the documented flow, as the Agent Framework provider drives it`, async () => {
      const args = ['--tools', 'asm', '--binary-max', '2KiB', tree];
      if (transport === 'stdio') {
        const { client } = await connectStdio(args, era);
        try {
          assert.deepEqual(await toolNames(client), EIGHT);
          await walk(client);
        } finally {
          await client.close();
        }
      } else {
        const server = await startHttp(args);
        try {
          const client = await connectHttp(server.url, era);
          assert.deepEqual(await toolNames(client), EIGHT);
          await walk(client);
          const resources = (await client.listResources()).resources.map((resource) => resource.uri);
          for (const uri of ['skills://catalog/xml', 'skills://catalog/markdown', 'skills://tools-usage-instructions']) assert.ok(resources.includes(uri), uri);
          const templates = (await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate);
          assert.ok(templates.includes('skills://{skill_id}/resources'));
          await client.close();
        } finally {
          await server.stop();
        }
      }
    });
  }

  test('the catalogs: XML as the original renders it, and Markdown', async () => {
    const { client } = await connectStdio(['--tools', 'asm', tree], 'legacy');
    try {
      assert.equal(
        await readText(client, 'skills://catalog/xml'),
        [
          '<available_skills>',
          '  <skill>',
          '    <name>api-style-guide</name>',
          '    <description>House rules for HTTP APIs. Use when designing or reviewing an API.</description>',
          '  </skill>',
          '  <skill>',
          '    <name>incident-response</name>',
          '    <description>Runbook for production incidents. Use when a service is down or degraded.</description>',
          '  </skill>',
          '</available_skills>',
        ].join('\n'),
      );
      const markdown = await readText(client, 'skills://catalog/markdown');
      assert.match(markdown, /^# Available Skills\n\n## api-style-guide\n- \*\*Description\*\*: House rules for HTTP APIs\./);
      assert.match(markdown, /## incident-response\n- \*\*Description\*\*: Runbook for production incidents\./);
      // Completion of the template's variable, from what the caller sees.
      const completion = await client.complete({
        ref: { type: 'ref/resource', uri: 'skills://{skill_id}/resources' },
        argument: { name: 'skill_id', value: 'inc' },
      });
      assert.deepEqual(completion.completion.values, ['incident-response']);
    } finally {
      await client.close();
    }
  });

  test('a skill archive beside a folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillport-asm-archive-'));
    const archive = join(dir, 'incident-response.tar.gz');
    writeFileSync(archive, makeTarGz(Object.entries(INCIDENT_FILES).map(([path, content]) => ({ path, content }))));
    const style = folderOf('api-style-guide', { 'SKILL.md': STYLE });
    const server = await startHttp(['--tools', 'asm', '--binary-max', '2KiB', archive, style]);
    try {
      const client = await connectHttp(server.url, 'modern');
      await walk(client);
      await client.close();
    } finally {
      await server.stop();
    }
  });

  test('a registry (--data): the listed version, and an exact version by its path', async () => {
    const data = mkdtempSync(join(tmpdir(), 'skillport-asm-registry-'));
    const folder = join(folderOf('incident-response', INCIDENT_FILES), 'incident-response');
    assert.equal((await publish([folder, '--data', data, '--version', '1.0.0'])).code, 0);
    const { client } = await connectStdio(['--tools', 'asm', '--binary-max', '2KiB', '--data', data], 'legacy');
    try {
      await walk(client);
      assert.match(
        await readText(client, 'skills://catalog/xml'),
        /<name>incident-response<\/name>\n {4}<description>[^<]*<\/description>\n {4}<version>1\.0\.0<\/version>/,
      );
      // An exact version, addressed by its path: the registry serves every version at skill://<version>/<name>/.
      const exact = JSON.parse(await call(client, 'get_skill_metadata', { skill_id: '1.0.0/incident-response' })) as Record<string, unknown>;
      assert.equal(exact['name'], 'incident-response');
    } finally {
      await client.close();
    }
  });

  test('a static host: archive entries in full, a lone SKILL.md says its files cannot be listed', async () => {
    const packed = makeTarGz(Object.entries(INCIDENT_FILES).map(([path, content]) => ({ path, content })));
    const guide = skillMd('guide-md', undefined, '', '# Guide\n\nRead references/extra.md.\n');
    const sha = (bytes: Uint8Array | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    const host = await startStaticHost({ '/.well-known/agent-skills/incident-response.tar.gz': packed, '/.well-known/agent-skills/guide-md/SKILL.md': guide });
    host.routes.set(
      '/.well-known/agent-skills/index.json',
      JSON.stringify({
        $schema: 'https://schemas.agentskills.io/discovery/0.2.0/schema.json',
        skills: [
          {
            name: 'incident-response',
            type: 'archive',
            description: 'Runbook for production incidents. Use when a service is down or degraded.',
            url: 'incident-response.tar.gz',
            digest: sha(packed),
          },
          {
            name: 'guide-md',
            type: 'skill-md',
            description: 'Does guide-md things. Use when the user asks for guide-md.',
            url: 'guide-md/SKILL.md',
            digest: sha(guide),
          },
        ],
      }),
    );
    const server = await startHttp(['--tools', 'asm', '--binary-max', '2KiB', '--remote', host.url]);
    try {
      const client = await connectHttp(server.url, 'modern');
      await walk(client);
      const listing = JSON.parse(await call(client, 'list_skill_resources', { skill_id: 'guide-md' })) as Record<string, unknown>;
      assert.equal(listing['supported'], false);
      assert.match(
        String(listing['note']),
        /cannot be listed: the host publishes only its SKILL\.md\. Take resource names from the skill's instructions instead\./,
      );
      const extra = await callText(client, 'get_skill_reference', { skill_id: 'guide-md', name: 'extra.md' });
      assert.equal(extra.isError, true);
      assert.match(extra.text, /has no reference 'extra\.md' served here: the host publishes only its SKILL\.md/);
      await client.close();
    } finally {
      await server.stop();
      await host.close();
    }
  });
});

describe('--tools asm: names shared by two skills, hostile input, hidden skills', () => {
  const tree = makeTree({
    'team-a/pdf/SKILL.md': skillMd('pdf', 'PDF tools of team A. Use for team A documents.'),
    'team-a/pdf/references/guide.md': 'team A guide\n',
    'team-b/pdf/SKILL.md': skillMd('pdf', 'PDF tools of team B. Use for team B documents.'),
    'team-b/pdf/references/guide.md': 'team B guide\n',
    'open/notes/SKILL.md': skillMd('notes'),
    'open/notes/references/guide.md': 'notes guide\n',
    'vault/secret-plan/SKILL.md': skillMd('secret-plan'),
    'vault/secret-plan/references/guide.md': 'secret\n',
  });
  const policy = join(mkdtempSync(join(tmpdir(), 'skillport-asm-policy-')), 'policy.yaml');
  let client: Client;
  before(async () => {
    writeFileSync(policy, 'default: public\nrules:\n  - uri: skill://vault/\n    allow: [org:vault]\n');
    ({ client } = await connectStdio(['--tools', 'asm', '--policy', policy, '--principal', 'user:eve', tree], 'legacy'));
  });
  after(async () => {
    await client?.close();
  });

  test('a shared name: the catalog gives each its path as skill_id, and the bare name says which to use', async () => {
    const xml = await readText(client, 'skills://catalog/xml');
    assert.match(xml, /<name>team-a\/pdf<\/name>/);
    assert.match(xml, /<name>team-b\/pdf<\/name>/);
    assert.equal(await call(client, 'get_skill_reference', { skill_id: 'team-b/pdf', name: 'guide.md' }), 'team B guide\n');
    assert.equal(await call(client, 'get_skill_reference', { skill_id: 'skill://team-a/pdf/SKILL.md', name: 'guide.md' }), 'team A guide\n');
    assert.deepEqual(JSON.parse(await readText(client, `skills://${encodeURIComponent('team-b/pdf')}/resources`)), {
      references: ['guide.md'],
      scripts: [],
      assets: [],
    });
    const both = await callText(client, 'get_skill_body', { skill_id: 'pdf' });
    assert.equal(both.isError, true);
    assert.match(both.text, /2 skills are named 'pdf'; call again with one of these skill_id values: team-a\/pdf, team-b\/pdf/);
  });

  test("path tricks in name and skill_id: a clear error, never another skill's file", async () => {
    for (const name of [
      '../../vault/secret-plan/references/guide.md',
      '../SKILL.md',
      '/etc/passwd',
      'references/../../notes/SKILL.md',
      'C:\\windows\\win.ini',
      'file:///etc/passwd',
      'a\u0000b',
      '',
    ]) {
      const result = await callText(client, 'get_skill_reference', { skill_id: 'open/notes', name });
      assert.equal(result.isError, true, name);
      assert.match(result.text, /^Error: /, name);
      assert.notEqual(result.text, 'secret\n', name);
    }
    const dotdot = await callText(client, 'get_skill_reference', { skill_id: 'open/notes', name: '../../vault/secret-plan/references/guide.md' });
    assert.match(dotdot.text, /may not contain '\.', '\.\.' or empty segments/);
    for (const skill_id of [
      '../vault/secret-plan',
      'open/../vault/secret-plan',
      'skill://open/../vault/secret-plan/SKILL.md',
      'open/notes/../../vault/secret-plan',
    ]) {
      const result = await callText(client, 'get_skill_reference', { skill_id, name: 'guide.md' });
      assert.equal(result.isError, true, skill_id);
      assert.doesNotMatch(result.text, /^secret/, skill_id);
    }
  });

  test('a hidden skill answers exactly like one that never existed, on every tool and the resource template', async () => {
    const xml = await readText(client, 'skills://catalog/xml');
    assert.doesNotMatch(xml, /secret/);
    assert.doesNotMatch(await readText(client, 'skills://catalog/markdown'), /secret/);
    const answer = async (id: string) => {
      const out: string[] = [];
      for (const [tool, extra] of [
        ['get_skill_metadata', {}],
        ['get_skill_body', {}],
        ['get_skill_outline', {}],
        ['get_skill_section', { key: 'x' }],
        ['list_skill_resources', {}],
        ['get_skill_reference', { name: 'guide.md' }],
        ['get_skill_script', { name: 'a.sh' }],
        ['get_skill_asset', { name: 'a.png' }],
      ] as Array<[string, Record<string, unknown>]>) {
        const result = await callText(client, tool, { skill_id: id, ...extra });
        assert.equal(result.isError, true);
        out.push(result.text.replaceAll(id, '<id>'));
      }
      const read = await client.readResource({ uri: `skills://${id}/resources` }).then(
        () => 'read',
        (error: Error) => error.message.replaceAll(id, '<id>'),
      );
      out.push(read);
      return out;
    };
    const hidden = await answer('secret-plan');
    const missing = await answer('wobbly-zebra');
    assert.deepEqual(hidden, missing);
    assert.match(hidden[0]!, /^Error: Skill '<id>' not found\. The skills are listed in skills:\/\/catalog\/xml\.$/);
    assert.deepEqual(await answer('vault/secret-plan'), await answer('vault/wobbly-zebra'));
    const completion = await client.complete({
      ref: { type: 'ref/resource', uri: 'skills://{skill_id}/resources' },
      argument: { name: 'skill_id', value: 's' },
    });
    assert.deepEqual(completion.completion.values, []);
  });
});

describe('--tools asm: single-skill fast path, both surfaces, config files', () => {
  const small = makeTree({
    'tiny/SKILL.md': skillMd('tiny', 'A tiny skill. Use when testing.', '', '# Tiny\n\nSay hello, then read references/more.md.\n'),
    'tiny/references/more.md': 'more\n',
  });

  test('--asm-fast-path: the catalogs serve the body, the four body tools are never registered, resource tools stay', async () => {
    const { client } = await connectStdio(['--tools', 'asm', '--asm-fast-path', small], 'legacy');
    try {
      assert.deepEqual(await toolNames(client), ['get_skill_asset', 'get_skill_reference', 'get_skill_script', 'list_skill_resources']);
      const instructions = await injectedInstructions(client);
      assert.match(
        instructions,
        /You have one skill, `tiny`; its full instructions are below\. Follow them when the task is in their domain\.\n\n<skill id="tiny">\n# Tiny\n\nSay hello, then read references\/more\.md\.\n<\/skill>/,
      );
      assert.doesNotMatch(instructions, /Choose a skill|get_skill_body/);
      assert.match(instructions, /### Bundled resources/);
      assert.equal(await readText(client, 'skills://catalog/markdown'), await readText(client, 'skills://catalog/xml'));
      assert.equal(await call(client, 'get_skill_reference', { skill_id: 'tiny', name: 'more.md' }), 'more\n');
    } finally {
      await client.close();
    }
  });

  test('without --asm-fast-path (as the original CLI), or over its ceiling, all eight tools', async () => {
    for (const args of [
      ['--tools', 'asm', small],
      ['--tools', 'asm', '--asm-fast-path', '--asm-fast-path-max', '5', small],
    ]) {
      const { client } = await connectStdio(args, 'legacy');
      try {
        assert.deepEqual(await toolNames(client), EIGHT);
        assert.match(await readText(client, 'skills://catalog/xml'), /<name>tiny<\/name>/);
      } finally {
        await client.close();
      }
    }
  });

  test('core,asm: both tool sets, one catalog: none in the instructions, even with --instructions-catalog', async () => {
    const tree = folderOf('api-style-guide', { 'SKILL.md': STYLE }, folderOf('incident-response', INCIDENT_FILES));
    const { client } = await connectStdio(['--tools', 'core,asm', '--instructions-catalog', tree], 'legacy');
    try {
      assert.deepEqual(await toolNames(client), [...EIGHT, 'activate_skill', 'list_skills', 'read_skill_resource'].sort());
      const instructions = client.getInstructions() ?? '';
      assert.doesNotMatch(instructions, /<available_skills>/);
      assert.match(instructions, /skills:\/\/catalog\/xml/);
      assert.match(await call(client, 'activate_skill', { name: 'incident-response' }), /Severity levels/);
      await walk(client, 'incident-response', { binaries: false });
    } finally {
      await client.close();
    }
    // One skill: core does not inline it in the instructions (asm's hosts would get it twice); activate_skill stays.
    const lone = await connectStdio(['--tools', 'core,asm', '--asm-fast-path', small], 'legacy');
    try {
      assert.doesNotMatch(lone.client.getInstructions() ?? '', /Say hello/);
      assert.ok((await toolNames(lone.client)).includes('activate_skill'));
      assert.match(await readText(lone.client, 'skills://catalog/xml'), /Say hello/);
    } finally {
      await lone.client.close();
    }
  });

  test('full,asm: one get_skill_outline/get_skill_section for both, by skill_id or by name; --vision; text in parts', async () => {
    const long = `${'0123456789abcdef'.repeat(100)}é${'x'.repeat(500)}\n`;
    const tree = folderOf('incident-response', { ...INCIDENT_FILES, 'references/long.md': long });
    const { client } = await connectStdio(['--tools', 'full,asm', '--vision', '--text-max', '1KiB', tree], 'legacy');
    try {
      assert.match(await call(client, 'get_skill_outline', { name: 'incident-response' }), /- severity-levels \(~\d+\)/);
      assert.match(await call(client, 'get_skill_outline', { skill_id: 'incident-response' }), /- install-2 \(~\d+\)/);
      // full's path keys still find their section.
      assert.match(await call(client, 'get_skill_section', { name: 'incident-response', key: 'incident-response/escalation/install' }), /escalation bot/);
      // --vision: an image (by its bytes) from assets or references is image content; scripts never are.
      const image = (await client.callTool({ name: 'get_skill_asset', arguments: { skill_id: 'incident-response', name: 'architecture.png' } })) as {
        content: Array<{ type: string; data?: string; mimeType?: string }>;
      };
      assert.deepEqual(image.content[0], { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' });
      // Text past --text-max: a clear error, then the parts with offset and length.
      const whole = await callText(client, 'get_skill_reference', { skill_id: 'incident-response', name: 'long.md' });
      assert.equal(whole.isError, true);
      assert.match(whole.text, /read it in parts with offset and length/);
      let text = '';
      for (let offset: number | undefined = 0; offset !== undefined; ) {
        const part = await call(client, 'get_skill_reference', { skill_id: 'incident-response', name: 'long.md', offset, length: 1024 });
        const note = /\n\[references\/long\.md: bytes (\d+)-(\d+) of \d+(?:; next: \{"offset": (\d+)\})?[^\]]*\]$/.exec(part);
        assert.ok(note, part.slice(-120));
        text += part.slice(0, note.index);
        offset = note[3] === undefined ? undefined : Number(note[3]);
      }
      assert.equal(text, long);
    } finally {
      await client.close();
    }
  });

  test("the seed's README: its server.json, with only the command changed, over stdio and Streamable HTTP", async () => {
    const dir = makeTree({});
    folderOf('incident-response', INCIDENT_FILES, join(dir, 'skills'));
    const config = join(dir, 'server.json');
    writeFileSync(
      config,
      JSON.stringify({ name: 'My Skills Server', skills: [{ id: 'incident-response', provider: 'fs', options: { root: './skills' } }] }, null, 4),
    );
    // `python -m agentskills_mcp_server --config server.json` becomes `skillport serve --config server.json`.
    const { client } = await connectStdio(['--config', config], 'legacy');
    try {
      assert.equal(client.getServerVersion()?.name, 'My Skills Server');
      assert.deepEqual(await toolNames(client), EIGHT);
      await walk(client, 'incident-response', { binaries: false });
    } finally {
      await client.close();
    }
    // `--transport streamable-http` becomes `--http`.
    const server = await startHttp(['--config', config]);
    try {
      const http = await connectHttp(server.url, 'legacy');
      assert.deepEqual(await toolNames(http), EIGHT);
      assert.match(await injectedInstructions(http, 'markdown'), /## incident-response/);
      await http.close();
    } finally {
      await server.stop();
    }
    // `tools: core` in the file (or --tools on the command line) overrides what a server.json implies.
    const withCore = join(dir, 'with-core.json');
    writeFileSync(withCore, JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), tools: 'core' }));
    const core = await connectStdio(['--config', withCore], 'legacy');
    try {
      // core's tools, and its own single-skill path: the skill is in the instructions.
      assert.deepEqual(await toolNames(core.client), ['activate_skill', 'list_skills', 'read_skill_resource']);
      assert.match(core.client.getInstructions() ?? '', /Severity levels/);
    } finally {
      await core.client.close();
    }
  });

  test('tools: [core, asm] as a list in a YAML config', async () => {
    const dir = makeTree({});
    const config = join(dir, 'skillport.yaml');
    writeFileSync(config, `dirs:\n  - ${small}\ntools: [core, asm]\n`);
    const { client } = await connectStdio(['--config', config], 'legacy');
    try {
      const names = await toolNames(client);
      assert.ok(names.includes('get_skill_body') && names.includes('activate_skill'));
    } finally {
      await client.close();
    }
  });
});

/**
 * Flat keys of repeated headings used to be found by trying `step`, `step-2`… from 2 each time: get_skill_outline
 * took 12.7 s at 20,000 headings, the whole server waiting. Work counted (lookups), not timed, then the real answer.
 */
describe('--tools asm: outlines of many repeated headings', () => {
  test('flat keys cost work linear in the sections', async () => {
    const { countLookups } = await import('@skillport/test-kit');
    const { flatten } = await import('../src/tools/asm/sections.js');
    const outline = (n: number) => ({
      sections: Array.from({ length: n }, (_, i) => ({
        key: `part-${i}/step`,
        title: 'Step',
        level: 2,
        startLine: i + 1,
        endLine: i + 1,
        tokens: 1,
        text: '',
      })),
      totalTokens: n,
      wholeBodyCheaper: false,
      advice: '',
    });
    const work = async (n: number) => (await countLookups(() => flatten(outline(n)))).lookups;
    const [small, large] = [await work(2000), await work(4000)];
    assert.ok(large / small < 2.5, `lookups for 2,000 sections: ${small}, for 4,000: ${large} (x${(large / small).toFixed(2)})`);
  });

  test('get_skill_outline of 20,000 headings answers every key: step, step-2 … step-20000', async () => {
    const body = `# Guide\n\n${'## Step\n\nDo it.\n\n'.repeat(20_000)}`;
    const tree = folderOf('many-steps', { 'SKILL.md': skillMd('many-steps', 'A skill of twenty thousand steps.', '', body) });
    const { client } = await connectStdio(['--tools', 'asm', tree], 'legacy');
    try {
      // A page at a time (serve-outline-pages.test.ts): every page's keys, walked by the cursor each names.
      const keys: string[] = [];
      let cursor: string | undefined;
      do {
        const outline = await call(client, 'get_skill_outline', { skill_id: 'many-steps', limit: 1000, ...(cursor ? { cursor } : {}) });
        assert.match(outline, /in 20,?001 sections\./);
        keys.push(...[...outline.matchAll(/^\s*- (\S+) \(~\d+\) — /gm)].map((match) => match[1]!));
        cursor = /\{"cursor": "([^"]+)"\}/.exec(outline)?.[1];
      } while (cursor !== undefined);
      assert.deepEqual(keys, ['guide', ...Array.from({ length: 20_000 }, (_, i) => (i === 0 ? 'step' : `step-${i + 1}`))]);
      assert.match(await call(client, 'get_skill_section', { skill_id: 'many-steps', key: 'step-20000' }), /^## Step\n\nDo it\./);
    } finally {
      await client.close();
    }
  });
});
