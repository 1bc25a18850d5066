import { Command, CommanderError } from 'commander';
import { escapeControls } from '@skillport/core';
import { registerClientCommands } from './commands/client.js';
import { registerServe } from './commands/serve.js';
import { registerValidate } from './commands/validate.js';
import { registerInit } from './commands/init.js';
import { registerToken } from './commands/token.js';
import { registerLogin } from './commands/login.js';
import { registerInstallCommands } from './commands/install.js';
import { registerAudit } from './commands/audit.js';
import { registerPack, registerPublish } from './commands/registry/publish.js';
import { registerManage } from './commands/registry/manage.js';
import { registerKeys } from './commands/registry/keys.js';
import { registerStore } from './commands/registry/store.js';
import { registerScan } from './commands/scan.js';
import { registerExport } from './commands/export.js';

/** The CLI's version (kept equal to the packages' versions; checked by a test). */
export const VERSION = '0.1.0';

// The command kit lives in kit.ts (commands import it from there, not from here: no import cycle).
export { arg, CliError, repeatable } from './kit.js';
export type { ExitCode } from './kit.js';
import type { ExitCode } from './kit.js';

export function buildProgram(exit: ExitCode): Command {
  const program = new Command('skillport')
    .description('Serve Agent Skills to every agent over the Model Context Protocol (Skills extension, SEP-2640).')
    .version(VERSION, '-V, --version')
    // A usage error is one line on stderr, in the same shape as every other error ("skillport: error: …").
    .configureOutput({ outputError: (text, write) => write(`skillport: ${escapeControls(text.trim(), { keepNewlines: true })} (run with --help for usage)\n`) })
    // Program options only before the command name, so commands may have their own --version (publish, pack).
    .enablePositionalOptions()
    .exitOverride();
  registerServe(program, exit);
  registerValidate(program, exit);
  registerInit(program, exit);
  registerToken(program, exit);
  registerAudit(program, exit);
  registerPack(program, exit);
  registerPublish(program, exit);
  registerManage(program, exit);
  registerKeys(program, exit);
  registerStore(program, exit);
  registerScan(program, exit, VERSION);
  registerClientCommands(program, exit);
  registerInstallCommands(program, exit);
  registerExport(program, exit);
  registerLogin(program, exit);
  return program;
}

/** Runs the CLI and resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const program = buildProgram({ set: (value) => (code = value) });
  if (argv.length <= 2) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit 0; usage errors exit 2, as most CLIs do.
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help' ? 0 : 2;
    }
    throw error;
  }
  return code;
}
