import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createToken, makeTree, startHttp, storeDir, tempFolder } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { Api, skillArchive } from './write-attack.js';

/**
 * Near-duplicates at publish are looked for in the whole catalog the publisher sees, folder-served skills included
 * (ADR 0230): a real `serve --http` of a folder and a registry, two organisations that do not see each other's.
 */
const POLICY = `default: none
rules:
  - skills: "acme-*"
    allow: [org:acme]
  - skills: "beta-*"
    allow: [org:beta]
gate:
  duplicates: warn
`;
const folderSkill = (name: string) =>
  `---\nname: ${name}\ndescription: Parses supplier invoices into ledger rows and flags totals that do not add up.\n---\n\n# ${name}\n`;

describe('near-duplicates against folder-served skills', () => {
  let server: RunningServer;
  let api: Api;
  const tokens: Record<string, string> = {};
  before(async () => {
    const data = storeDir();
    const policy = join(tempFolder('skillport-dup-policy-'), 'policy.yaml');
    writeFileSync(policy, POLICY);
    const folder = makeTree({
      'acme-invoice-parser/SKILL.md': folderSkill('acme-invoice-parser'),
      'beta-invoice-parser/SKILL.md': folderSkill('beta-invoice-parser'),
    });
    tokens['acme'] = await createToken(data, ['--user', 'acme-ci', '--org', 'acme', '--scope', 'publish']);
    tokens['beta'] = await createToken(data, ['--user', 'beta-ci', '--org', 'beta', '--scope', 'publish']);
    server = await startHttp([folder, '--data', data, '--auth', 'tokens', '--policy', policy]);
    api = new Api(server.url.replace(/\/mcp$/, ''));
  });
  after(async () => {
    await server?.stop();
  });

  test('a publish names the folder skill its audience sees, never one it cannot see', async () => {
    const acme = await api.publish(tokens['acme']!, skillArchive('acme-invoice-parsers', '1.0.0', 'Parse invoices.'));
    assert.equal(acme.status, 201, acme.text);
    const warnings = (JSON.parse(acme.text).warnings ?? []) as string[];
    assert.ok(
      warnings.some((w) => /acme-invoice-parsers is very close to acme-invoice-parser \([01]\.\d+ by (name|both)\)/.test(w)),
      warnings.join(' | '),
    );
    assert.doesNotMatch(acme.text, /beta-invoice-parser/);
    const beta = await api.publish(tokens['beta']!, skillArchive('beta-invoice-parsers', '1.0.0', 'Parse invoices.'));
    assert.equal(beta.status, 201, beta.text);
    assert.match(beta.text, /beta-invoice-parsers is very close to beta-invoice-parser/);
    assert.doesNotMatch(beta.text, /acme-invoice-parser/);
  });
});
