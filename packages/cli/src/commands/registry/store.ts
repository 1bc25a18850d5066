import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { ExitCode } from '../../main.js';
import { displayPath, paint, plural } from '../../output.js';
import { CommandError, run } from './common.js';

export function registerStore(program: Command, exit: ExitCode): void {
  const store = program.command('store').description('Inspect a registry store folder (serve --data DIR).');
  store
    .command('check')
    .description('Check a store: every version\'s blobs present and the right size, package digests, tags; report orphaned blobs (never deleted).')
    .requiredOption('--data <dir>', 'the store folder')
    .option('--verify-blobs', 'also re-hash every blob (reads everything)')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', '\nExit 0 when consistent (orphaned blobs and temporary files are reported, not errors), 1 when not.')
    .action(async (options: { data: string; verifyBlobs?: boolean; json?: boolean }) => {
      await run(exit, async () => {
        if (!existsSync(join(options.data, 'registry.db'))) throw new CommandError(`${displayPath(options.data)} holds no registry (no registry.db)`);
        const { SqliteStore } = await import('@skillport/registry');
        const opened = SqliteStore.open(options.data);
        let report;
        try {
          report = await opened.check({ verifyBlobs: options.verifyBlobs === true });
        } finally {
          await opened.close();
        }
        if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        else {
          const colors = paint(process.stdout);
          process.stdout.write(`${report.consistent ? colors.green('Consistent') : colors.red('Inconsistent')}: ${plural(report.versions, 'version')}, ${plural(report.tags, 'tag')}, ${plural(report.blobs, 'blob file')}\n`);
          for (const problem of report.problems) process.stdout.write(`  - ${problem}\n`);
          if (report.orphanBlobs.length) process.stdout.write(`  ${plural(report.orphanBlobs.length, 'orphaned blob')} (no version references them; left in place):\n${report.orphanBlobs.map((digest) => `    ${digest}`).join('\n')}\n`);
          if (report.tempFiles.length) process.stdout.write(`  ${plural(report.tempFiles.length, 'temporary file')} from interrupted writes (left in place)\n`);
        }
        if (!report.consistent) throw new CommandError(`the store in ${displayPath(options.data)} is inconsistent (${plural(report.problems.length, 'problem')})`);
      });
    });
}
