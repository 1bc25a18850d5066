import type { Command } from 'commander';
import { Option } from 'commander';
import type { ExitCode } from '../kit.js';
import { arg, repeatable } from '../kit.js';
import { parseExpiry as parseExpiryTime } from '@skillport/core';
import { paint } from '../output.js';
import { withAccessStore } from './access-store.js';

/**
 * `skillport token create|list|revoke --data DIR|postgres://…`: API tokens for `serve --auth tokens`. A token is printed once,
 * when it is created; only its sha256 is stored. A new token works at once; a revoked one stops working without a
 * restart (within a second on every replica of a PostgreSQL registry).
 */
const DEFAULT_SCOPES: readonly string[] = ['read'];

interface CreateOptions {
  data: string;
  user: string;
  org: string[];
  project: string[];
  agent?: string;
  scope: string[];
  description?: string;
  expires?: Date;
  json?: boolean;
}

export function registerToken(program: Command, exit: ExitCode): void {
  const token = program
    .command('token')
    .description('Create, list and revoke API tokens for serve --auth tokens (kept in DIR/access.db, or in the PostgreSQL database).')
    .addHelpText(
      'after',
      `
Examples:
  skillport token create --data ./data --user alice --org acme --scope read
  skillport token create --data ./data --user ci --agent release-bot --scope publish
  skillport token list --data ./data
  skillport token revoke --data ./data 3f2a9c1b7d4e
  skillport token list --data postgres://skillport@db.internal/skillport`,
    );

  token
    .command('create')
    .description('create a token and print it (once: only its hash is kept)')
    .requiredOption('--data <dir|url>', "the server's data folder, or its PostgreSQL URL")
    .requiredOption('--user <name>', 'the user the token stands for')
    .option('--org <name>', 'an organisation the user belongs to; repeatable', repeatable(), [] as string[])
    .option('--project <name>', 'a project the token is for; repeatable', repeatable(), [] as string[])
    .option('--agent <name>', 'the agent the token is for')
    .addOption(
      new Option(
        '--scope <scope>',
        'what it may do: read (MCP and reading the API), publish (registry writes), admin (policy, audit, metrics; implies the others); repeatable',
      )
        .argParser(repeatable(DEFAULT_SCOPES, ['read', 'publish', 'admin']))
        .default(DEFAULT_SCOPES, 'read'),
    )
    .option('--description <text>', 'a note shown by token list')
    .option('--expires <when>', 'expiry: a time (ISO 8601) or a span from now (30d, 12h)', arg(parseExpiry))
    .option('--json', 'print the token and its record as JSON')
    .action(async (options: CreateOptions) => {
      await withAccessStore(
        options.data,
        exit,
        async (store) => {
          const { token: secret, record } = await store.createToken({
            user: options.user,
            orgs: options.org,
            projects: options.project,
            ...(options.agent !== undefined ? { agent: options.agent } : {}),
            scopes: options.scope as Array<'read' | 'publish' | 'admin'>,
            ...(options.description !== undefined ? { description: options.description } : {}),
            ...(options.expires !== undefined ? { expiresAt: options.expires } : {}),
          });
          if (options.json) process.stdout.write(`${JSON.stringify({ token: secret, ...record }, null, 2)}\n`);
          else {
            process.stdout.write(`${secret}\n`);
            process.stderr.write(`skillport: token ${record.id} for ${describe(record)}; it is shown only now: keep it secret\n`);
          }
        },
        { create: true },
      );
    });

  token
    .command('list')
    .description('list tokens (ids, who, scopes, state; never the tokens)')
    .requiredOption('--data <dir|url>', "the server's data folder, or its PostgreSQL URL")
    .option('--json', 'print JSON')
    .action(async (options: { data: string; json?: boolean }) => {
      await withAccessStore(options.data, exit, async (store) => {
        const tokens = await store.listTokens();
        if (options.json) process.stdout.write(`${JSON.stringify({ tokens }, null, 2)}\n`);
        else if (tokens.length === 0) process.stderr.write('skillport: no tokens yet (skillport token create --data DIR --user NAME)\n');
        else {
          const colors = paint(process.stdout);
          for (const record of tokens) {
            const state = record.revokedAt
              ? colors.red(`revoked ${record.revokedAt}`)
              : record.expiresAt && Date.parse(record.expiresAt) <= Date.now()
                ? colors.yellow(`expired ${record.expiresAt}`)
                : colors.green('active');
            process.stdout.write(
              `${record.id}  ${describe(record)}  ${state}  created ${record.createdAt}${record.expiresAt && !record.revokedAt ? `  expires ${record.expiresAt}` : ''}${record.description ? `  ${record.description}` : ''}\n`,
            );
          }
        }
      });
    });

  token
    .command('revoke')
    .description('revoke a token by its id (from token list); takes effect at once, also on a running server')
    .argument('<id>', 'the token id (12 hex characters), or the whole token')
    .requiredOption('--data <dir|url>', "the server's data folder, or its PostgreSQL URL")
    .action(async (id: string, options: { data: string }) => {
      const match = /^(?:skp_)?([0-9a-f]{12})(?:_.*)?$/.exec(id.trim());
      if (!match) {
        process.stderr.write(`skillport: error: "${id.slice(0, 40)}" is not a token id (12 hex characters, as token list shows)\n`);
        exit.set(2);
        return;
      }
      await withAccessStore(options.data, exit, async (store) => {
        const record = await store.token(match[1]!);
        if (record === undefined) {
          process.stderr.write(`skillport: error: no token ${match[1]} in ${store.location}\n`);
          return 1;
        }
        if (!(await store.revokeToken(record.id))) process.stderr.write(`skillport: token ${record.id} was already revoked (${record.revokedAt})\n`);
        else process.stderr.write(`skillport: revoked token ${record.id} (${describe(record)})\n`);
        return 0;
      });
    });
}

function describe(record: { user: string; orgs: string[]; projects: string[]; agent?: string; scopes: string[] }): string {
  const parts = [`user:${record.user}`, ...record.orgs.map((org) => `org:${org}`), ...record.projects.map((project) => `project:${project}`)];
  if (record.agent !== undefined) parts.push(`agent:${record.agent}`);
  return `${parts.join(' ')} [${record.scopes.join(', ')}]`;
}

function parseExpiry(text: string): Date {
  const time = parseExpiryTime(text);
  if (time === undefined) throw new Error(`--expires: "${text}" is not a time (ISO 8601) or a span (30d, 12h)`);
  return time;
}
