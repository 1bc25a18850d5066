import type { Command } from 'commander';
import { escapeControls } from '@skillport/core';
import type { ExitCode } from '../kit.js';
import { arg } from '../kit.js';
import { parsePositiveInt } from '../output.js';
import { isPostgresData, withAccessStore } from './access-store.js';

/**
 * `skillport audit --data DIR|postgres://… [--since T] [--user U] [--skill S] [--json]`: the audit log a server kept in
 * DIR/access.db (or the PostgreSQL database): every activation and file read, who, which skill (version, digest), which file, the outcome.
 * Works while the servers run (SQLite's WAL; PostgreSQL); events reach it within a fraction of a second (batched).
 */
interface AuditOptions {
  data: string;
  since?: string;
  user?: string;
  skill?: string;
  limit: number;
  json?: boolean;
}

export function registerAudit(program: Command, exit: ExitCode): void {
  program
    .command('audit')
    .description('show the audit log: skill activations and file reads, by whom, with outcome')
    .requiredOption('--data <dir|url>', "the server's data folder (where access.db is), or its PostgreSQL URL")
    .option('--since <time>', 'only events since then: ISO 8601 (2026-11-30T06:00Z) or a span back from now (30m, 2h, 7d)')
    .option('--user <name>', "only this user's events")
    .option('--skill <name>', "only this skill's events (a name or a skill:// URI)")
    .option('--limit <n>', 'at most this many (the latest)', arg(parsePositiveInt('--limit')), 1000)
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      `
Examples:
  skillport audit --data ./data --since 1h
  skillport audit --data ./data --user alice --skill pdf --json`,
    )
    .action(async (options: AuditOptions) => {
      if (!isPostgresData(options.data)) {
        const { ACCESS_DB } = await import('@skillport/server');
        const { existsSync } = await import('node:fs');
        const { join } = await import('node:path');
        if (!existsSync(join(options.data, ACCESS_DB))) {
          process.stderr.write(`skillport: error: no audit log in ${options.data} (no ${ACCESS_DB}: was the server started with --data ${options.data}?)\n`);
          exit.set(1);
          return;
        }
      }
      const { parseSince } = await import('@skillport/core');
      let since: string | undefined;
      if (options.since !== undefined) {
        since = parseSince(options.since);
        if (since === undefined) {
          process.stderr.write(`skillport: error: --since "${options.since}" is not a time (ISO 8601) or a span (30m, 2h, 7d)\n`);
          exit.set(2);
          return;
        }
      }
      await withAccessStore(options.data, exit, async (store) => {
        const events = await store.queryAudit({
          ...(since !== undefined ? { since } : {}),
          ...(options.user !== undefined ? { user: options.user } : {}),
          ...(options.skill !== undefined ? { skill: options.skill } : {}),
          limit: options.limit,
        });
        if (options.json) process.stdout.write(`${JSON.stringify({ events }, null, 2)}\n`);
        else if (events.length === 0) process.stderr.write('skillport: no matching events\n');
        else {
          for (const event of events) {
            // Names and paths a refused caller asked for are its own text: escaped, never written raw to a terminal.
            const what = escapeControls([event.skill ?? '?', event.version ? `@${event.version}` : '', event.file ? ` ${event.file}` : ''].join(''));
            process.stdout.write(
              `${event.time}  ${event.principal}  ${event.action}  ${what}  ${event.outcome}${event.count !== undefined ? ` ×${event.count}` : ''}  via ${event.surface}${event.digest ? `  ${event.digest.slice(0, 19)}…` : ''}\n`,
            );
          }
        }
      });
    });
}
