import { GatePolicyError, parseGatePolicy } from './gate-policy.js';
import type { GatePolicy } from './gate-policy.js';
import { parse } from 'yaml';
import { yamlNestingOverflow } from '@skillport/core';
import { SUBJECT_KINDS, checkSubjectName } from './principal.js';
import type { SubjectKind } from './principal.js';

/**
 * The visibility policy (`--policy FILE`, YAML; docs/security.md has the format). Rules match skills by name glob
 * or `skill://` URI prefix and allow or deny subjects (`public`, `user:X`, `org:X`, `project:X`, `agent:X`):
 *
 * - a skill no rule matches follows `default` (`none`: nobody sees it, the default; `public`: everyone does);
 * - a skill some rules match is visible to a principal when one of those rules allows one of its subjects and none
 *   of them denies one (deny wins);
 * - the subject kind it was allowed through ranks it (`precedence`, default user > agent > project > org > public):
 *   when several visible skills share a name, a name-based call means the best-ranked one.
 *
 * Registry writes follow the same rules (ADR 0180): a name may be written only by a principal the policy shows it
 * to, and, where a rule matching it names `publish` subjects, only by one holding such a subject; a rule's `revoke`
 * subjects may also revoke and review the names it matches.
 *
 * `sessions` give a project or agent a session catalog: `required` and `pinned` skills (names or URIs), which is what
 * list_skills returns without a query.
 */
export interface PolicyRule {
  /** Name globs (`*`, `?`); a rule with neither `skills` nor `uri` matches nothing. */
  skills: string[];
  /** URI prefixes (`skill://acme/`). */
  uris: string[];
  allow: string[];
  deny: string[];
  /**
   * Who may publish, tag and yank the registry names the rule matches (with a publish-scope credential). Empty:
   * whoever the policy shows the name to; where some matching rule names publish subjects, only holders of one.
   */
  publish: string[];
  /** Who may also revoke and review versions of the names the rule matches (org admins; the admin scope always may). */
  revoke: string[];
}

export interface SessionRule {
  /** The subject the session catalog is for (`project:web`, `agent:ci`, also `user:`/`org:`/`public`). */
  for: string;
  required: string[];
  pinned: string[];
}

/**
 * What a subject has, so the server can judge a skill's requirements without the host's help: the MCP servers
 * (`connections`) and tools its agents are connected to, and the scopes it is granted. A principal has the union of
 * the grants of its subjects. A skill requiring a scope is visible only to principals granted it (ADR 0220).
 */
export interface GrantRule {
  for: string;
  connections: string[];
  tools: string[];
  scopes: string[];
}

/** Whether catalogs (the session catalog, tool descriptions, instructions) list skills whose requirements are unmet. */
export type UnmetMode = 'list' | 'omit';

export interface PolicyDocument {
  default: 'none' | 'public';
  precedence: SubjectKind[];
  rules: PolicyRule[];
  sessions: SessionRule[];
  grants: GrantRule[];
  /** Absent: the server's `--unmet` setting (default `list`). */
  unmet?: UnmetMode;
  /** The registry's publish gate (ADR 0230); absent: allow everything. */
  gate?: GatePolicy;
}

export class PolicyError extends Error {
  override name = 'PolicyError';
}

export const DEFAULT_PRECEDENCE: SubjectKind[] = ['user', 'agent', 'project', 'org', 'public'];

/** The policy in force when no `--policy` file is given: every skill is public (the behaviour without identity). */
export const OPEN_POLICY: PolicyDocument = Object.freeze({
  default: 'public',
  precedence: DEFAULT_PRECEDENCE,
  rules: [],
  sessions: [],
  grants: [],
}) as PolicyDocument;

const TOP_KEYS = new Set(['default', 'precedence', 'rules', 'sessions', 'grants', 'unmet', 'gate']);
const GRANT_KEYS = new Set(['for', 'connections', 'tools', 'scopes', 'description']);
/** A connection, tool or scope name in a grant: what skills write (core's requirements.ts), bounded. */
const GRANT_NAME = /^[^\s\p{Cc}\p{Cf}]{1,128}$/u;
const RULE_KEYS = new Set(['skills', 'skill', 'name', 'uri', 'uris', 'allow', 'deny', 'publish', 'revoke', 'description']);
const SESSION_KEYS = new Set(['for', 'required', 'pinned', 'description']);

/** Parses and checks a policy; every problem is one line naming where it is. */
export function parsePolicy(text: string, where = 'policy'): PolicyDocument {
  if (text.length > 4 * 1024 * 1024) throw new PolicyError(`${where}: larger than 4 MiB`);
  const deep = yamlNestingOverflow(text);
  if (deep !== undefined) throw new PolicyError(`${where}: nested too deeply at line ${deep.line}, column ${deep.column}`);
  let data: unknown;
  try {
    data = parse(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new PolicyError(`${where}: not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data))
    throw new PolicyError(`${where}: must be a mapping with default, precedence, rules, sessions, grants, unmet`);
  const doc = data as Record<string, unknown>;
  for (const key of Object.keys(doc))
    if (!TOP_KEYS.has(key)) throw new PolicyError(`${where}: unknown key "${key}" (expected default, precedence, rules, sessions, grants, unmet, gate)`);

  const fallback = doc['default'] ?? 'none';
  if (fallback !== 'none' && fallback !== 'public') throw new PolicyError(`${where}: default must be "none" or "public"`);

  let precedence = DEFAULT_PRECEDENCE;
  if (doc['precedence'] !== undefined) {
    const list = stringList(doc['precedence'], `${where}: precedence`);
    for (const kind of list)
      if (!(SUBJECT_KINDS as readonly string[]).includes(kind))
        throw new PolicyError(`${where}: precedence: "${kind}" is not one of ${SUBJECT_KINDS.join(', ')}`);
    if (new Set(list).size !== list.length) throw new PolicyError(`${where}: precedence names a kind twice`);
    // Kinds left out rank after the ones given, in the default order.
    precedence = [...(list as SubjectKind[]), ...DEFAULT_PRECEDENCE.filter((kind) => !list.includes(kind))];
  }

  const rules: PolicyRule[] = [];
  const rawRules = doc['rules'] ?? [];
  if (!Array.isArray(rawRules)) throw new PolicyError(`${where}: rules must be a list`);
  rawRules.forEach((raw: unknown, index) => {
    const at = `${where}: rules[${index}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new PolicyError(`${at} must be a mapping`);
    const rule = raw as Record<string, unknown>;
    for (const key of Object.keys(rule))
      if (!RULE_KEYS.has(key)) throw new PolicyError(`${at}: unknown key "${key}" (expected skills, uri, allow, deny, publish, revoke)`);
    const skills = [
      ...optionalList(rule['skills'], `${at}.skills`),
      ...optionalList(rule['skill'], `${at}.skill`),
      ...optionalList(rule['name'], `${at}.name`),
    ];
    const uris = [...optionalList(rule['uri'], `${at}.uri`), ...optionalList(rule['uris'], `${at}.uris`)];
    if (skills.length === 0 && uris.length === 0) throw new PolicyError(`${at}: give skills (name globs) or uri (a skill:// prefix)`);
    for (const glob of skills) if (glob === '' || glob.length > 256) throw new PolicyError(`${at}.skills: "${glob}" is not a name glob`);
    for (const uri of uris) if (!uri.startsWith('skill://') || uri.length > 4096) throw new PolicyError(`${at}.uri: "${uri}" must start with skill://`);
    const allow = optionalList(rule['allow'], `${at}.allow`).map((subject) => checkSubject(subject, `${at}.allow`));
    const deny = optionalList(rule['deny'], `${at}.deny`).map((subject) => checkSubject(subject, `${at}.deny`));
    if (allow.length === 0 && deny.length === 0) throw new PolicyError(`${at}: give allow or deny subjects`);
    const publish = optionalList(rule['publish'], `${at}.publish`).map((subject) => checkSubject(subject, `${at}.publish`));
    const revoke = optionalList(rule['revoke'], `${at}.revoke`).map((subject) => checkSubject(subject, `${at}.revoke`));
    rules.push({ skills, uris, allow, deny, publish, revoke });
  });

  const sessions: SessionRule[] = [];
  for (const { at, entry: session } of sectionEntries(doc, 'sessions', where, SESSION_KEYS, 'for, required, pinned')) {
    if (typeof session['for'] !== 'string') throw new PolicyError(`${at}.for must be a subject such as project:web or agent:ci`);
    sessions.push({
      for: checkSubject(session['for'], `${at}.for`),
      required: optionalList(session['required'], `${at}.required`),
      pinned: optionalList(session['pinned'], `${at}.pinned`),
    });
  }

  const grants: GrantRule[] = [];
  for (const { at, entry: grant } of sectionEntries(doc, 'grants', where, GRANT_KEYS, 'for, connections, tools, scopes')) {
    if (typeof grant['for'] !== 'string') throw new PolicyError(`${at}.for must be a subject such as org:acme or agent:ci`);
    const names = (key: string) => {
      const list = optionalList(grant[key], `${at}.${key}`);
      for (const name of list)
        if (!GRANT_NAME.test(name)) throw new PolicyError(`${at}.${key}: "${name.slice(0, 80)}" is not a name (no spaces, at most 128 characters)`);
      return list;
    };
    grants.push({ for: checkSubject(grant['for'], `${at}.for`), connections: names('connections'), tools: names('tools'), scopes: names('scopes') });
  }

  const unmet = doc['unmet'];
  if (unmet !== undefined && unmet !== 'list' && unmet !== 'omit') throw new PolicyError(`${where}: unmet must be "list" or "omit"`);
  const policy: PolicyDocument = { default: fallback, precedence, rules, sessions, grants };
  if (unmet !== undefined) policy.unmet = unmet;
  if (doc['gate'] !== undefined) {
    try {
      policy.gate = parseGatePolicy(doc['gate'], `${where}: gate`, checkSubject);
    } catch (error) {
      if (error instanceof GatePolicyError) throw new PolicyError(error.message);
      throw error;
    }
  }
  return policy;
}

/** The mappings of a list section (`sessions`, `grants`), each checked against its known keys; `at` names it in errors. */
function sectionEntries(
  doc: Record<string, unknown>,
  name: string,
  where: string,
  keys: ReadonlySet<string>,
  expected: string,
): Array<{ at: string; entry: Record<string, unknown> }> {
  const raw = doc[name] ?? [];
  if (!Array.isArray(raw)) throw new PolicyError(`${where}: ${name} must be a list`);
  return raw.map((item: unknown, index) => {
    const at = `${where}: ${name}[${index}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new PolicyError(`${at} must be a mapping`);
    const entry = item as Record<string, unknown>;
    for (const key of Object.keys(entry)) if (!keys.has(key)) throw new PolicyError(`${at}: unknown key "${key}" (expected ${expected})`);
    return { at, entry };
  });
}

function checkSubject(subject: string, at: string): string {
  if (subject === 'public') return subject;
  const colon = subject.indexOf(':');
  const kind = subject.slice(0, colon);
  if (colon <= 0 || kind === 'public' || !(SUBJECT_KINDS as readonly string[]).includes(kind)) {
    throw new PolicyError(`${at}: "${subject}" is not public, user:NAME, org:NAME, project:NAME or agent:NAME`);
  }
  try {
    checkSubjectName(kind, subject.slice(colon + 1));
  } catch (error) {
    throw new PolicyError(`${at}: ${(error as Error).message}`);
  }
  return subject;
}

function stringList(value: unknown, at: string): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw new PolicyError(`${at} must be a list of strings`);
  return value as string[];
}

function optionalList(value: unknown, at: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  return stringList(value, at);
}

/** A name glob as a RegExp: `*` any run of characters, `?` one; everything else literal. */
export function globToRegExp(glob: string): RegExp {
  const source = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`);
}
