import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { stringify } from 'yaml';
import { RuleError, defaultRules, parseRules, scanSkill } from '../src/index.js';
import type { Example, SkillFile } from '../src/index.js';

/** An example as a skill: SKILL.md (frontmatter + body) and the example's file, if it names another. */
export function exampleSkill(example: Example): SkillFile[] {
  const frontmatter = { name: 'example-skill', description: 'An example skill for the rule tests.', ...example.frontmatter };
  const file = example.file ?? 'SKILL.md';
  const body = file === 'SKILL.md' ? (example.text ?? '') : (example.body ?? 'See the files.');
  const files: SkillFile[] = [{ path: 'SKILL.md', bytes: Buffer.from(`---\n${stringify(frontmatter)}---\n${body}\n`) }];
  if (file !== 'SKILL.md')
    files.push({ path: file, bytes: example.base64 !== undefined ? Buffer.from(example.base64, 'base64') : Buffer.from(example.text ?? '') });
  return files;
}

const rules = defaultRules();

describe('every rule, from its examples in rules.yaml', () => {
  for (const rule of rules.rules) {
    test(`${rule.id}: fires on its examples and stays quiet on its look-alikes`, () => {
      assert.ok(rule.examples.fire.length > 0, `${rule.id} has no example that fires`);
      assert.ok(rule.examples.quiet.length > 0, `${rule.id} has no benign look-alike`);
      for (const example of rule.examples.fire) {
        const report = scanSkill(exampleSkill(example));
        const mine = report.findings.filter((finding) => finding.rule === rule.id);
        assert.ok(mine.length > 0, `${rule.id} did not fire on ${JSON.stringify(example)}`);
        assert.equal(mine[0]!.severity, example.severity ?? rule.severity, `${rule.id} severity on ${JSON.stringify(example)}`);
        assert.equal(mine[0]!.category, rule.category);
      }
      for (const example of rule.examples.quiet) {
        const report = scanSkill(exampleSkill(example));
        const mine = report.findings.filter((finding) => finding.rule === rule.id);
        assert.deepEqual(mine, [], `${rule.id} fired on its benign look-alike ${JSON.stringify(example)}`);
      }
    });
  }

  test('every category of the issue has a rule', () => {
    const categories = new Set(rules.rules.map((rule) => rule.category));
    for (const category of ['hidden-text', 'host-injection', 'exfiltration', 'dangerous-script', 'obfuscation', 'secret', 'broad-tools', 'undeclared-binary'])
      assert.ok(categories.has(category as never), category);
  });
});

describe('the rule file is checked whole', () => {
  const base = (rule: string) => `discussion: {to: medium, when: []}\nrules:\n${rule}`;
  test('a bad expression names its rule', () => {
    assert.throws(
      () => parseRules(base('  - {id: bad-one, category: secret, severity: high, title: t, why: w, patterns: ["(unclosed"]}')),
      (error: unknown) => error instanceof RuleError && /bad-one/.test(error.message) && /patterns\[0\]/.test(error.message),
    );
  });
  test('an unknown category, detector, severity or key is refused', () => {
    assert.throws(() => parseRules(base('  - {id: r1, category: nope, severity: high, title: t, why: w, patterns: [x]}')), /category must be one of/);
    assert.throws(() => parseRules(base('  - {id: r1, category: secret, severity: high, title: t, why: w, detect: magic}')), /detect must be one of/);
    assert.throws(() => parseRules(base('  - {id: r1, category: secret, severity: critical, title: t, why: w, patterns: [x]}')), /severity must be/);
    assert.throws(() => parseRules(base('  - {id: r1, category: secret, severity: high, title: t, why: w, patterns: [x], typo: 1}')), /unknown key 'typo'/);
  });
  test("a flow rule's sources and sinks, the decode settings and named lists are checked when the file is read", () => {
    const flow = (params: string) => `  - {id: f1, category: exfiltration, severity: high, title: t, why: w, detect: flow, params: ${params}}`;
    assert.throws(() => parseRules(base(flow('{sinks: [x]}'))), /f1.*needs params\.sources/);
    assert.throws(() => parseRules(base(flow('{sources: [x], sinks: ["(bad"]}'))), /f1.*params\.sinks\[0\]/);
    assert.throws(() => parseRules(base(flow('{sources: ["@nowhere"], sinks: [x]}'))), /no list named 'nowhere'/);
    assert.throws(() => parseRules(`decode: {printable: 2}\n${base(flow('{sources: [x], sinks: [y]}'))}`), /decode\.printable/);
    assert.equal(parseRules(base(flow('{sources: [x], sinks: [y]}'))).decode.depth, 2);
  });
  test('two rules with one id are refused', () => {
    const rule = '  - {id: same, category: secret, severity: high, title: t, why: w, patterns: [x]}\n';
    assert.throws(() => parseRules(base(rule + rule)), /used twice/);
  });
});
