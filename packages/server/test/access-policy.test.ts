import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CatalogSkill } from '../src/catalog/model.js';
import { CatalogSnapshot } from '../src/catalog/snapshot.js';
import { PolicyError, globToRegExp, parsePolicy } from '../src/access/policy.js';
import { hasScope, parsePrincipalSpec, principalKey, viewKey } from '../src/access/principal.js';
import type { Principal } from '../src/access/principal.js';
import { ViewCache, sessionCatalog } from '../src/access/views.js';
import { parseSince } from '@skillport/core';

/** A catalog skill as the catalog builds it (only what visibility looks at differs between them). */
function skill(path: string, name = path.split('/').at(-1)!): CatalogSkill {
  const uri = `skill://${path}/SKILL.md`;
  const digest = `sha256:${Buffer.from(path).toString('hex').padEnd(64, '0').slice(0, 64)}`;
  return {
    uri,
    rootUri: `skill://${path}`,
    name,
    description: `${name} skill`,
    frontmatter: { name, description: `${name} skill` },
    headings: [],
    files: [{ uri, path: 'SKILL.md', size: 10, digest, mimeType: 'text/markdown' }],
    totalBytes: 10,
    packageDigest: digest,
    origin: { kind: 'folder', root: '/r', dir: `/r/${path}`, realDir: `/r/${path}` },
    entry: { uri, frontmatter: { name, description: `${name} skill` }, resources: [] } as unknown as CatalogSkill['entry'],
  };
}

const who = (spec: string): Principal => parsePrincipalSpec(spec);
const uris = (snapshot: CatalogSnapshot) => snapshot.skills.map((s) => s.uri.slice('skill://'.length, -'/SKILL.md'.length));

describe('policy parsing', () => {
  test('defaults: deny unnamed skills, default precedence', () => {
    const policy = parsePolicy('');
    assert.equal(policy.default, 'none');
    assert.deepEqual(policy.precedence, ['user', 'agent', 'project', 'org', 'public']);
    assert.deepEqual(parsePolicy('precedence: [org]').precedence, ['org', 'user', 'agent', 'project', 'public']);
  });

  test('every mistake is one line naming its place', () => {
    const cases: Array<[string, RegExp]> = [
      ['default: maybe', /^p: default must be "none" or "public"$/],
      ['rules: {}', /^p: rules must be a list$/],
      ['rules: [{allow: [public]}]', /^p: rules\[0\]: give skills \(name globs\) or uri/],
      ['rules: [{skills: x}]', /^p: rules\[0\]: give allow or deny subjects$/],
      ['rules: [{skills: x, allow: [team:a]}]', /^p: rules\[0\]\.allow: "team:a" is not public, user:NAME/],
      ['rules: [{skills: x, allow: ["org:a b"]}]', /org "a b" is not a valid name/],
      ['rules: [{uri: "https://x/", allow: [public]}]', /must start with skill:\/\//],
      ['rules: [{skills: x, allow: [public], alow: [public]}]', /unknown key "alow"/],
      ['rules: [{skills: x, allow: [public], publish: [team:a]}]', /^p: rules\[0\]\.publish: "team:a" is not public, user:NAME/],
      ['rules: [{skills: x, revoke: [org:a]}]', /^p: rules\[0\]: give allow or deny subjects$/],
      ['precedence: [user, user]', /names a kind twice/],
      ['precedence: [team]', /"team" is not one of/],
      ['sessions: [{pinned: [a]}]', /sessions\[0\]\.for must be a subject/],
      ['grants: {}', /^p: grants must be a list$/],
      ['grants: [{connections: [rube]}]', /^p: grants\[0\]\.for must be a subject/],
      ['grants: [{for: org:a, connection: [rube]}]', /^p: grants\[0\]: unknown key "connection" \(expected for, connections, tools, scopes\)$/],
      ['grants: [{for: org:a, scopes: ["two words"]}]', /^p: grants\[0\]\.scopes: "two words" is not a name/],
      ['grants: [{for: "team:a", scopes: [x]}]', /^p: grants\[0\]\.for: "team:a" is not public/],
      ['unmet: hide', /^p: unmet must be "list" or "omit"$/],
      ['colour: red', /unknown key "colour"/],
      ['a: [', /not valid YAML/],
      ['- 1', /must be a mapping/],
      [`x: &a [${'*a,'.repeat(200)}]`, /not valid YAML|unknown key/],
      [`rules: ${'['.repeat(50_000)}`, /nested too deeply at line 1, column \d+/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => parsePolicy(text, 'p'),
        (error: unknown) => error instanceof PolicyError && message.test(error.message) && !error.message.includes('\n'),
        text,
      );
    }
  });

  test('globs match whole names; regex characters are literal', () => {
    assert.ok(globToRegExp('acme-*').test('acme-deploy'));
    assert.ok(!globToRegExp('acme-*').test('xacme-deploy'));
    assert.ok(globToRegExp('a?c').test('abc'));
    assert.ok(!globToRegExp('a.c').test('abc'));
    assert.ok(globToRegExp('a.c').test('a.c'));
  });
});

describe('views', () => {
  const snapshot = new CatalogSnapshot(
    [
      skill('acme/deploy'),
      skill('acme/onboarding', 'onboarding'),
      skill('public/onboarding', 'onboarding'),
      skill('users/alice/onboarding', 'onboarding'),
      skill('misc/loose'),
      skill('acme/secret'),
    ],
    1,
  );
  const views = new ViewCache();
  views.setPolicy(
    parsePolicy(`
rules:
  - uri: skill://acme/
    allow: [org:acme]
  - uri: skill://public/
    allow: [public]
  - uri: skill://users/alice/
    allow: [user:alice]
  - skills: secret
    deny: [user:mallory]
sessions:
  - for: project:web
    required: [deploy, skill://nowhere/x/SKILL.md]
    pinned: [onboarding, loose]
`),
  );

  test('rules, default none, deny wins', () => {
    assert.deepEqual(uris(views.view(snapshot, who('user:alice org:acme'))), [
      'acme/deploy',
      'acme/onboarding',
      'acme/secret',
      'public/onboarding',
      'users/alice/onboarding',
    ]);
    assert.deepEqual(uris(views.view(snapshot, who('user:mallory org:acme'))), ['acme/deploy', 'acme/onboarding', 'public/onboarding']);
    assert.deepEqual(uris(views.view(snapshot, who('user:bob'))), ['public/onboarding']);
  });

  test('write grants: publish needs the name visible and, where a rule names publish subjects, one of them', () => {
    const grants = new ViewCache();
    grants.setPolicy(
      parsePolicy(`
rules:
  - skills: "acme-*"
    allow: [org:acme]
    revoke: [user:lead]
  - skills: "shared-*"
    allow: [public]
    publish: [org:acme]
  - skills: "shared-secret"
    deny: [user:mallory]
`),
    );
    const at = (name: string) => `skill://${name}/SKILL.md`;
    const of = (spec: string, name: string) => grants.writeGrants(who(spec), name, at(name));
    assert.deepEqual(of('user:ci org:acme', 'acme-deploy'), { publish: true, revoke: false });
    assert.deepEqual(of('user:lead org:acme', 'acme-deploy'), { publish: true, revoke: true });
    assert.deepEqual(of('user:lead org:acme', 'acme-new'), { publish: true, revoke: true });
    // Not visible: nothing, whatever the grants say (the lead outside org acme does not see acme's names).
    assert.deepEqual(of('user:lead org:beta', 'acme-deploy'), { publish: false, revoke: false });
    assert.deepEqual(of('user:ci org:beta', 'acme-deploy'), { publish: false, revoke: false });
    // Visible to all, published by acme only; a name no rule matches under default none: nobody may create it.
    assert.deepEqual(of('user:ci org:beta', 'shared-guide'), { publish: false, revoke: false });
    assert.deepEqual(of('user:ci org:acme', 'shared-guide'), { publish: true, revoke: false });
    assert.deepEqual(of('user:mallory org:acme', 'shared-secret'), { publish: false, revoke: false });
    assert.deepEqual(of('user:ci org:acme', 'orphan'), { publish: false, revoke: false });
  });

  test('precedence picks the name-based skill; all stay reachable by URI', () => {
    const alice = views.view(snapshot, who('user:alice org:acme'));
    assert.deepEqual(
      alice.named('onboarding').map((s) => s.uri),
      ['skill://users/alice/onboarding/SKILL.md'],
    );
    assert.ok(alice.skill('skill://public/onboarding/SKILL.md'));
    const carol = views.view(snapshot, who('user:carol org:acme'));
    assert.deepEqual(
      carol.named('onboarding').map((s) => s.uri),
      ['skill://acme/onboarding/SKILL.md'],
    );
    views.setPolicy({ ...views.policy, precedence: ['public', 'org', 'user', 'agent', 'project'] });
    assert.deepEqual(
      views
        .view(snapshot, who('user:alice org:acme'))
        .named('onboarding')
        .map((s) => s.uri),
      ['skill://public/onboarding/SKILL.md'],
    );
  });

  test('views are cached per snapshot and subjects, and rebuilt for a new policy', () => {
    const a = views.view(snapshot, who('user:alice org:acme'));
    assert.equal(views.view(snapshot, who('org:acme user:alice scope:admin')), a, 'scopes do not change what one sees');
    const fingerprint = views.fingerprint(a);
    views.setPolicy(parsePolicy('default: public'));
    const b = views.view(snapshot, who('user:alice org:acme'));
    assert.equal(b, snapshot, 'an open policy serves the snapshot itself');
    assert.notEqual(views.fingerprint(b), fingerprint);
  });

  test('session catalog: required then pinned, only what the principal may see', () => {
    views.setPolicy(
      parsePolicy(
        'default: none\nrules:\n  - uri: skill://acme/\n    allow: [org:acme]\n  - uri: skill://public/\n    allow: [public]\nsessions:\n  - for: project:web\n    required: [deploy]\n    pinned: [onboarding, loose, deploy]\n',
      ),
    );
    const session = sessionCatalog(views.view(snapshot, who('user:carol org:acme project:web')));
    assert.deepEqual(
      session?.required.map((s) => s.uri),
      ['skill://acme/deploy/SKILL.md'],
    );
    assert.deepEqual(
      session?.pinned.map((s) => s.uri),
      ['skill://acme/onboarding/SKILL.md'],
    );
    assert.equal(sessionCatalog(views.view(snapshot, who('user:carol org:acme'))), undefined);
    const outsider = sessionCatalog(views.view(snapshot, who('user:x project:web')));
    assert.deepEqual(outsider?.required, []);
    assert.deepEqual(
      outsider?.pinned.map((s) => s.uri),
      ['skill://public/onboarding/SKILL.md'],
    );
  });
});

describe('principals', () => {
  test('spec parsing, scopes, keys', () => {
    const p = who('user:alice,org:acme org:beta project:web agent:ci scope:publish');
    assert.deepEqual([p.user, p.orgs, p.projects, p.agent, [...p.scopes]], ['alice', ['acme', 'beta'], ['web'], 'ci', ['publish']]);
    assert.ok(hasScope(p, 'read'));
    assert.ok(!hasScope(p, 'admin'));
    assert.ok(hasScope(who('user:x scope:admin'), 'publish'));
    assert.equal(viewKey(who('org:b org:a user:x')), viewKey(who('user:x org:a org:b')));
    assert.notEqual(principalKey(who('user:x')), principalKey(who('user:x scope:admin')));
    assert.throws(() => who('user:a:b'), /not a valid name/);
    assert.throws(() => who('team:a'), /not user:NAME/);
  });

  test('--since accepts ISO times and spans', () => {
    const now = Date.parse('2026-11-30T12:00:00Z');
    assert.equal(parseSince('2h', now), '2026-11-30T10:00:00.000Z');
    assert.equal(parseSince('2026-11-29', now), '2026-11-29T00:00:00.000Z');
    assert.equal(parseSince('yesterday', now), undefined);
    assert.equal(parseSince('12', now), undefined);
  });
});

describe('private skills in views', () => {
  const listed = [skill('tool'), skill('other')];
  const snapshot = new CatalogSnapshot(listed, 1);
  const pending = { ...skill('2.0.0/tool', 'tool'), entry: { _meta: { 'dev.skillport/version': '2.0.0' } } as unknown as CatalogSkill['entry'] };
  const fresh = skill('1.0.0/fresh', 'fresh');

  test('a caller given nothing keeps the snapshot itself; one given private skills gets a view of its own that holds them', () => {
    const views = new ViewCache();
    let generation = 1;
    let given: CatalogSkill[] = [pending, fresh];
    views.addPrivate({ generation: () => generation, for: (principal) => (principal.user === 'ci' ? given : []) });
    const reader = who('user:alice');
    const publisher = who('user:ci');
    assert.equal(views.view(snapshot, reader), snapshot, 'an open policy and nothing private: the snapshot itself');
    const own = views.view(snapshot, publisher);
    assert.notEqual(own, snapshot);
    assert.deepEqual(uris(own), ['1.0.0/fresh', '2.0.0/tool', 'other', 'tool']);
    assert.equal(views.view(snapshot, publisher), own, 'cached while nothing moved');
    // By name the served skill wins; the private one is reached by its URI, or by version through the view.
    assert.deepEqual(
      own.named('tool').map((s) => s.uri),
      ['skill://tool/SKILL.md'],
    );
    assert.equal(own.named('fresh')[0], fresh, 'a name with nothing served means the private skill');
    const byVersion = own.version('skill://tool/SKILL.md', { version: '2.0.0' });
    assert.ok(byVersion !== undefined && 'skill' in byVersion && byVersion.skill === pending);
    assert.equal(snapshot.skill(pending.uri), undefined);
    // What it is given changes (an approval, a rejection): a new view without it, and never the old one again.
    given = [fresh];
    generation++;
    const after = views.view(snapshot, publisher);
    assert.notEqual(after, own);
    assert.deepEqual(uris(after), ['1.0.0/fresh', 'other', 'tool']);
    assert.notEqual(views.fingerprint(after), views.fingerprint(own));
    given = [];
    generation++;
    assert.equal(views.view(snapshot, publisher), snapshot);
  });

  test('a private skill at a URI the catalog lists is not added (the catalog keeps it)', () => {
    const views = new ViewCache();
    const clash = { ...skill('other'), packageDigest: 'sha256:'.padEnd(71, '1') };
    views.addPrivate({ generation: () => 1, for: () => [clash] });
    const view = views.view(snapshot, who('user:ci'));
    assert.equal(view.skill('skill://other/SKILL.md'), listed[1]);
    assert.equal(view.size, 2);
  });
});

describe("views: a skill nested in another (its files are the outer skill's too)", () => {
  const views = new ViewCache();
  views.setPolicy(
    parsePolicy(`
default: public
rules:
  - skills: "secret-*"
    allow: [user:alice]
`),
  );
  const outer = skill('outer');
  const nested = skill('outer/references/secret-x', 'secret-x');
  const beside = skill('secret-y');
  const alice = who('user:alice');
  const bob = who('user:bob');

  test('the outer skill is shown only to those who may see every skill inside it', () => {
    const snapshot = new CatalogSnapshot([outer, nested, beside, skill('plain')], 1);
    assert.deepEqual(uris(views.view(snapshot, alice)), ['outer', 'outer/references/secret-x', 'plain', 'secret-y']);
    const seen = views.view(snapshot, bob);
    assert.deepEqual(uris(seen), ['plain']);
    assert.equal(seen.file('skill://outer/references/secret-x/SKILL.md'), undefined, 'the nested skill is not read through the outer one');
    assert.equal(seen.file('skill://outer/SKILL.md'), undefined);
  });

  test('a nested skill added or removed while serving decides the outer skill in derived views too', () => {
    const first = new CatalogSnapshot([outer, skill('plain')], 1);
    assert.deepEqual(uris(views.view(first, bob)), ['outer', 'plain']);
    const added = first.withChanges({ upsert: [nested], remove: [] }, 2);
    const withNested = views.view(added, bob);
    assert.deepEqual(uris(withNested), ['plain'], "the outer skill leaves bob's view once a hidden skill appears inside it");
    assert.equal(withNested.file('skill://outer/references/secret-x/SKILL.md'), undefined);
    const removed = added.withChanges({ upsert: [], remove: [nested.uri] }, 3);
    assert.deepEqual(uris(views.view(removed, bob)), ['outer', 'plain'], 'and comes back when it is gone');
    assert.deepEqual(uris(views.view(added, alice)), ['outer', 'outer/references/secret-x', 'plain']);
  });
});
