import { environment } from '../environment.js';
import type { Command } from 'commander';
import { Option } from 'commander';
import { parseSpan } from '@skillport/core';
import type { AccessOptions, Principal } from '@skillport/server';

/**
 * The serve options for identity, visibility and audit (docs/security.md), kept apart from serve.ts so that the
 * command's own options stay readable. `--data` is serve's own (the registry's store and access.db share the folder).
 */
export interface AccessFlags {
  auth: 'none' | 'tokens' | 'jwt';
  data?: string;
  policy?: string;
  jwks?: string;
  jwtKey?: string;
  jwtIssuer?: string[];
  jwtAudience?: string[];
  /** From a config file: claim names (`{orgs: "groups"}`). */
  jwtClaims?: Record<string, string>;
  principal?: string | Record<string, unknown>;
  resourceUrl?: string;
  /** How long audit rows are kept: a span (`30d`) or `off`. */
  auditRetention?: string;
}

export const ACCESS_CONFIG_KEYS = [
  'auth',
  'data',
  'policy',
  'jwks',
  'jwtKey',
  'jwtIssuer',
  'jwtAudience',
  'jwtClaims',
  'principal',
  'resourceUrl',
  'auditRetention',
];
/** Config keys holding paths, resolved against the config file's folder. */
export const ACCESS_PATH_KEYS = ['data', 'policy', 'jwtKey'];

export function addAccessOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--auth <mode>', 'who may connect over HTTP: none, tokens (skillport token create) or jwt').choices(['none', 'tokens', 'jwt']).default('none'),
    )
    .option(
      '--policy <file>',
      'visibility policy (YAML): who sees which skills; reloaded when it changes (with --data postgres://…: loaded into the database, shared by every replica, at start when it changed and on each change; the admin API edits it there)',
    )
    .option('--principal <spec>', 'who stdio clients (and HTTP with --auth none) are, e.g. "user:alice org:acme project:web agent:ci"')
    .option('--jwks <url>', "with --auth jwt: the issuer's JWKS URL")
    .option('--jwt-key <file>', 'with --auth jwt: a public key file instead of --jwks (PEM, JWK or JWKS)')
    .option('--jwt-issuer <iss>', 'with --auth jwt: an accepted issuer (iss); repeat for several', collect)
    .option('--jwt-audience <aud>', 'with --auth jwt: an accepted audience (aud); repeat for several', collect)
    .option('--resource-url <url>', 'public URL of the MCP endpoint, for OAuth protected resource metadata (default: from the Host header)')
    .option(
      '--audit-retention <span>',
      'with --data: how long audit rows are kept (30d, 12h, 8w; off keeps every row); older ones are pruned in the background (default 30d)',
    );
}

/** The server's access options from the flags; throws an Error with one line on a bad value. */
export async function accessOptions(flags: AccessFlags, warn: (message: string) => void): Promise<AccessOptions> {
  const { parsePrincipalSpec } = await import('@skillport/server');
  let principal: Principal | undefined;
  if (typeof flags.principal === 'string') principal = parsePrincipalSpec(flags.principal);
  else if (flags.principal !== undefined) principal = parsePrincipalSpec(principalFromObject(flags.principal));
  if (flags.resourceUrl !== undefined) {
    try {
      new URL(flags.resourceUrl);
    } catch {
      throw new Error(`--resource-url ${flags.resourceUrl}: not a URL`);
    }
  }
  const auditRetentionMs = flags.auditRetention === undefined ? undefined : retention(String(flags.auditRetention));
  // Access data (tokens, audit, and the policy) lives in a folder's access.db, or in the PostgreSQL database, where
  // every replica shares it (ADR 0025). The PostgreSQL store comes from the registry package, loaded only for a URL.
  const url = flags.data !== undefined && /^postgres(ql)?:\/\//i.test(flags.data) ? flags.data : undefined;
  return {
    auth: flags.auth,
    ...(flags.data !== undefined && url === undefined ? { dataDir: flags.data } : {}),
    ...(url !== undefined
      ? {
          openStore: async () => {
            const { openAccessStore } = await import('@skillport/registry');
            const { pgAccessPoolMax } = environment();
            return openAccessStore(url, { onProblem: warn, ...(pgAccessPoolMax !== undefined ? { poolMax: pgAccessPoolMax } : {}) });
          },
        }
      : {}),
    ...(flags.policy !== undefined ? { policyFile: flags.policy } : {}),
    ...(principal !== undefined ? { principal } : {}),
    ...(flags.resourceUrl !== undefined ? { resourceUrl: flags.resourceUrl } : {}),
    ...(auditRetentionMs !== undefined ? { auditRetentionMs } : {}),
    ...(flags.jwks !== undefined || flags.jwtKey !== undefined || flags.jwtIssuer !== undefined
      ? {
          jwt: {
            ...(flags.jwks !== undefined ? { jwksUrl: flags.jwks } : {}),
            ...(flags.jwtKey !== undefined ? { keyFile: flags.jwtKey } : {}),
            issuer: one(flags.jwtIssuer ?? []),
            audience: one(flags.jwtAudience ?? []),
            ...(flags.jwtClaims !== undefined ? { claims: flags.jwtClaims } : {}),
          },
        }
      : {}),
    onWarning: warn,
  };
}

/** `--audit-retention`: a span, or `off` (0: keep every row). */
function retention(text: string): number {
  if (text === 'off' || text === '0') return 0;
  const ms = parseSpan(text);
  if (ms === undefined || ms < 60_000) throw new Error(`--audit-retention ${text}: give a span of a minute or more (30d, 12h, 8w), or off`);
  return ms;
}

/** Repeatable options (not variadic: a variadic option would swallow the folders that follow it). */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function one(values: string[] | string): string | string[] {
  const list = Array.isArray(values) ? values : [values];
  return list.length === 1 ? list[0]! : list;
}

/** A config file's `principal: {user, orgs, projects, agent, scopes}` as a spec string. */
function principalFromObject(value: Record<string, unknown>): string {
  const parts: string[] = [];
  const add = (kind: string, item: unknown) => {
    const items = Array.isArray(item) ? item : item === undefined ? [] : [item];
    for (const entry of items) {
      if (typeof entry !== 'string') throw new Error(`principal.${kind} must be a string or a list of strings`);
      parts.push(`${kind}:${entry}`);
    }
  };
  for (const key of Object.keys(value))
    if (!['user', 'orgs', 'projects', 'agent', 'scopes'].includes(key))
      throw new Error(`principal: unknown key "${key}" (user, orgs, projects, agent, scopes)`);
  add('user', value['user']);
  add('org', value['orgs']);
  add('project', value['projects']);
  add('agent', value['agent']);
  add('scope', value['scopes']);
  return parts.join(' ');
}
