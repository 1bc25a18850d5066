import type { Principal } from './principal.js';
import { subjectsOf } from './principal.js';

/**
 * The publish gate's settings (ADR 0230), the `gate:` section of the policy file: defaults, then rules that change
 * them for a publisher's subjects (`for: [org:acme]`) and/or for names (`skills` globs, `uri` prefixes). Each rule
 * that matches overrides the keys it sets, in order, so the last match wins a key. The registry asks for the settings
 * of each publish (PluginContext.gate) and applies them; parsing lives here, with the rest of the policy.
 *
 * - `block`: refuse the publish when a finding reaches this severity (`none`: never).
 * - `review`: hold the version for review when a finding reaches this severity (`always`: every version; `none`).
 * - `scripts`: a skill with scripts: `allow`, `review` (held), or `refuse`.
 * - `duplicates`: a name or description very close to a skill the publisher sees: `warn`, `refuse`, or `off`.
 */
export type GateSeverity = 'low' | 'medium' | 'high';
export interface GateSettings {
  block: GateSeverity | 'none';
  review: GateSeverity | 'always' | 'none';
  scripts: 'allow' | 'review' | 'refuse';
  duplicates: 'warn' | 'refuse' | 'off';
}

export interface GateRule extends Partial<GateSettings> {
  for: string[];
  skills: string[];
  uris: string[];
}

export interface GatePolicy {
  defaults: GateSettings;
  rules: GateRule[];
}

export const DEFAULT_GATE: GateSettings = Object.freeze({ block: 'none', review: 'none', scripts: 'allow', duplicates: 'warn' });

const SEVERITY = ['low', 'medium', 'high'];
const CHOICES: { [K in keyof GateSettings]: readonly string[] } = {
  block: [...SEVERITY, 'none'],
  review: [...SEVERITY, 'always', 'none'],
  scripts: ['allow', 'review', 'refuse'],
  duplicates: ['warn', 'refuse', 'off'],
};
const SETTING_KEYS = Object.keys(CHOICES) as Array<keyof GateSettings>;

export class GatePolicyError extends Error {
  override name = 'GatePolicyError';
}

/** Parses the `gate:` section; `check` validates a subject (the policy's own subject rules). */
export function parseGatePolicy(value: unknown, where: string, check: (subject: string, at: string) => string): GatePolicy {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new GatePolicyError(`${where} must be a mapping`);
  const doc = value as Record<string, unknown>;
  for (const key of Object.keys(doc))
    if (key !== 'rules' && !SETTING_KEYS.includes(key as keyof GateSettings))
      throw new GatePolicyError(`${where}: unknown key "${key}" (expected ${SETTING_KEYS.join(', ')}, rules)`);
  const defaults = { ...DEFAULT_GATE, ...settings(doc, where) };
  const raw = doc['rules'] ?? [];
  if (!Array.isArray(raw)) throw new GatePolicyError(`${where}.rules must be a list`);
  const rules = raw.map((item: unknown, index): GateRule => {
    const at = `${where}.rules[${index}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new GatePolicyError(`${at} must be a mapping`);
    const rule = item as Record<string, unknown>;
    for (const key of Object.keys(rule))
      if (!['for', 'skills', 'uri', 'uris', 'description', ...SETTING_KEYS].includes(key))
        throw new GatePolicyError(`${at}: unknown key "${key}" (expected for, skills, uri, ${SETTING_KEYS.join(', ')})`);
    const list = (key: string) => {
      const v = rule[key];
      if (v === undefined) return [];
      const items = typeof v === 'string' ? [v] : v;
      if (!Array.isArray(items) || items.some((x) => typeof x !== 'string')) throw new GatePolicyError(`${at}.${key} must be a string or a list of strings`);
      return items as string[];
    };
    const parsed: GateRule = {
      for: list('for').map((subject) => check(subject, `${at}.for`)),
      skills: list('skills'),
      uris: [...list('uri'), ...list('uris')],
      ...settings(rule, at),
    };
    if (parsed.for.length === 0 && parsed.skills.length === 0 && parsed.uris.length === 0)
      throw new GatePolicyError(`${at}: give for (publisher subjects), skills (name globs) or uri (prefixes)`);
    return parsed;
  });
  return { defaults, rules };
}

function settings(doc: Record<string, unknown>, where: string): Partial<GateSettings> {
  const out: Partial<GateSettings> = {};
  for (const key of SETTING_KEYS) {
    const value = doc[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !CHOICES[key].includes(value)) throw new GatePolicyError(`${where}.${key} must be one of ${CHOICES[key].join(', ')}`);
    (out as Record<string, string>)[key] = value;
  }
  return out;
}

/** The settings for `publisher` publishing `name` (listed at `uri`); no policy gate: the defaults (allow all). */
export function gateFor(
  policy: GatePolicy | undefined,
  publisher: Principal | undefined,
  name: string,
  uri: string,
  glob: (glob: string) => RegExp,
): GateSettings {
  if (policy === undefined) return { ...DEFAULT_GATE };
  const subjects = new Set(publisher ? subjectsOf(publisher) : ['public']);
  const result: GateSettings = { ...policy.defaults };
  for (const rule of policy.rules) {
    const byPublisher = rule.for.length === 0 || rule.for.some((subject) => subject === 'public' || subjects.has(subject));
    const byName =
      (rule.skills.length === 0 && rule.uris.length === 0) || rule.skills.some((g) => glob(g).test(name)) || rule.uris.some((p) => uri.startsWith(p));
    if (!byPublisher || !byName) continue;
    for (const key of SETTING_KEYS) if (rule[key] !== undefined) (result as unknown as Record<string, string>)[key] = rule[key] as string;
  }
  return result;
}
