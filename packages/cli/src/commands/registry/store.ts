import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { ExitCode } from '../../kit.js';
import { paint, plural } from '../../output.js';
import { CommandError, displayStore, run } from './common.js';

const isUrl = (data: string) => /^postgres(ql)?:\/\//i.test(data);

export function registerStore(program: Command, exit: ExitCode): void {
  const store = program.command('store').description('Check, migrate and copy registry stores (serve --data DIR|postgres://…).');
  store
    .command('check')
    .description("Check a store: every version's blobs present and the right size, package digests, tags; report orphaned blobs (never deleted).")
    .requiredOption('--data <dir|url>', 'the store: a folder, or a PostgreSQL URL')
    .option('--verify-blobs', 'also re-hash every blob (reads everything)')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', '\nExit 0 when consistent (orphaned blobs and temporary files are reported, not errors), 1 when not.')
    .action(async (options: { data: string; verifyBlobs?: boolean; json?: boolean }) => {
      await run(exit, async () => {
        if (!isUrl(options.data) && !existsSync(join(options.data, 'registry.db')))
          throw new CommandError(`${displayStore(options.data)} holds no registry (no registry.db)`);
        const { openStore } = await import('@skillport/registry');
        // A check never changes anything: on PostgreSQL an unmigrated database is reported, not migrated.
        const opened = await openStore(options.data, { migrate: false, keepTemps: true });
        let report;
        try {
          report = await opened.check({ verifyBlobs: options.verifyBlobs === true });
        } finally {
          await opened.close();
        }
        if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        else {
          const colors = paint(process.stdout);
          process.stdout.write(
            `${report.consistent ? colors.green('Consistent') : colors.red('Inconsistent')}: ${plural(report.versions, 'version')}, ${plural(report.tags, 'tag')}, ${plural(report.blobs, 'blob')}\n`,
          );
          for (const problem of report.problems) process.stdout.write(`  - ${problem}\n`);
          if (report.orphanBlobs.length)
            process.stdout.write(
              `  ${plural(report.orphanBlobs.length, 'orphaned blob')} (no version references them; left in place):\n${report.orphanBlobs.map((digest) => `    ${digest}`).join('\n')}\n`,
            );
          if (report.tempFiles.length)
            process.stdout.write(
              `  ${plural(report.tempFiles.length, 'temporary file')} from interrupted writes (left in place; serving or publishing into the folder removes those whose writer is gone)\n`,
            );
        }
        if (!report.consistent)
          throw new CommandError(`the store in ${displayStore(options.data)} is inconsistent (${plural(report.problems.length, 'problem')})`);
      });
    });

  store
    .command('migrate')
    .description("Bring a PostgreSQL registry database to this skillport's schema (serve also does it at start; replicas wait for each other).")
    .requiredOption('--data <url>', 'the PostgreSQL URL (postgres://user:password@host:port/database)')
    .option('--json', 'print what was done as JSON')
    .action(async (options: { data: string; json?: boolean }) => {
      await run(exit, async () => {
        if (!isUrl(options.data))
          throw new CommandError('store migrate is for PostgreSQL (--data postgres://…); a folder store migrates itself when opened', 2);
        const { migrateStore } = await import('@skillport/registry');
        const report = await migrateStore(options.data);
        if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        else
          process.stdout.write(
            report.applied.length === 0
              ? `Up to date: schema ${report.to}\n`
              : `Migrated from schema ${report.from} to ${report.to}: ${report.applied.map((m) => `${m.version} (${m.name})`).join(', ')}\n`,
          );
      });
    });

  store
    .command('copy')
    .description(
      'Copy every version, tag and blob of one store into another (e.g. a folder into PostgreSQL), verifying every digest; tokens, the audit log and a stored policy go along.',
    )
    .requiredOption('--from <dir|url>', 'the store to read')
    .requiredOption('--to <dir|url>', 'the store to write (versions already there with the same bytes are skipped)')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExit 0 when everything was copied and verified; 1 when a version conflicts, a blob is damaged or the copy does not check out.')
    .action(async (options: { from: string; to: string; json?: boolean }) => {
      await run(exit, async () => {
        if (!isUrl(options.from) && !existsSync(join(options.from, 'registry.db')))
          throw new CommandError(`${displayStore(options.from)} holds no registry (no registry.db)`);
        const { openStore, copyStore } = await import('@skillport/registry');
        const from = await openStore(options.from, { migrate: false });
        try {
          const to = await openStore(options.to);
          try {
            const progress = options.json || !process.stderr.isTTY ? () => {} : (line: string) => process.stderr.write(`\r${line}\x1b[K`);
            const result = await copyStore(from, to, { onProgress: progress });
            // Access data goes along (tokens, audit log, stored policy), when the source has any.
            const access = await copyAccessData(options.from, options.to, progress);
            if (!options.json && process.stderr.isTTY) process.stderr.write('\n');
            if (options.json) process.stdout.write(`${JSON.stringify({ ...result, ...(access !== undefined ? { access } : {}) }, null, 2)}\n`);
            else {
              const colors = paint(process.stdout);
              process.stdout.write(
                `${result.problems.length === 0 ? colors.green('Copied') : colors.red('Copied with problems')}: ${plural(result.versions.created, 'version')} created, ${result.versions.existing} already there; ${plural(result.blobs.copied, 'blob')} copied, ${result.blobs.existing} already there, every digest verified; ${plural(result.tags, 'tag')}\n`,
              );
              if (access !== undefined) {
                process.stdout.write(
                  `Access data: ${plural(access.tokens.copied, 'token')} copied, ${access.tokens.existing} already there; ${plural(access.audit.copied, 'audit event')} copied${access.audit.skipped ? ` (${access.audit.skipped})` : ''}; policy ${access.policy === 'copied' ? 'copied' : access.policy === 'kept' ? 'already there (kept)' : 'none stored'}\n`,
                );
              }
              for (const problem of result.problems) process.stdout.write(`  - ${problem}\n`);
            }
            if (result.problems.length > 0)
              throw new CommandError(`the copy to ${displayStore(options.to)} is incomplete (${plural(result.problems.length, 'problem')})`);
          } finally {
            await to.close();
          }
        } finally {
          await from.close();
        }
      });
    });
}

/** Copies tokens, audit events and a stored policy when the source has access data (a folder's access.db, or a database). */
async function copyAccessData(
  fromData: string,
  toData: string,
  progress: (line: string) => void,
): Promise<import('@skillport/server').AccessCopyResult | undefined> {
  const { ACCESS_DB, copyAccess } = await import('@skillport/server');
  if (!isUrl(fromData) && !existsSync(join(fromData, ACCESS_DB))) return undefined;
  const { openAccessStore } = await import('@skillport/registry');
  const from = await openAccessStore(fromData, { migrate: false });
  try {
    const to = await openAccessStore(toData);
    try {
      return await copyAccess(from, to, { onProgress: progress });
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}
