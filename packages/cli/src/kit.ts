import { InvalidArgumentError } from 'commander';
import { escapeControls } from '@skillport/core';

/**
 * The command kit every command is written with (so there is one exit convention): value parsers that report usage
 * errors (`arg`), an error that is one line and an exit code (`CliError`), and an action wrapper (`action`) that
 * maps what a command returns or throws to that line and code. Commands never call process.exit: bin.ts ends the
 * process once main() resolves.
 */

/**
 * How long bin.ts waits at exit for stdout or stderr to take another byte of what was written before it gives up on
 * the rest. Unset (the default), it waits until both drain: a slow reader gets every byte. A server told to stop sets
 * it: its client or supervisor may have stopped reading for good, and a stopped server must not live on for them.
 */
export const exitWait: { stalledOutputMs?: number } = {};

/** Each command's action reports its exit code here; serving commands return only when they stop. */
export interface ExitCode {
  set(code: number): void;
}

/** A failure worth one line on stderr (`skillport: error: <message>`) and an exit code: 1 failed, 2 usage. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Wraps a value parser so that commander reports its error as a usage error (exit 2). */
export function arg<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (error) {
      throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
    }
  };
}

/**
 * A repeatable option's parser (`--tag a --tag b`). Never variadic (`<name...>`): a variadic option swallows the
 * sources or paths that follow it (`serve --allowed-host example.com ./skills` would take ./skills as a host name).
 * The first use replaces the default; `choices` (when given) are checked as commander would.
 */
export function repeatable(defaults: readonly string[] = [], choices?: readonly string[]): (value: string, previous: string[] | undefined) => string[] {
  return (value, previous) => {
    if (choices !== undefined && !choices.includes(value)) throw new InvalidArgumentError(`Allowed choices are ${choices.join(', ')}.`);
    return previous === undefined || previous === defaults ? [value] : [...previous, value];
  };
}

/**
 * A command's action: the exit code is what `work` returns (0 when nothing), or, when it throws, the error as one
 * line on stderr and its exit code (a CliError's, else 1). `describe` turns other known errors into that line (an
 * API error, a client error); an error it leaves undescribed and that is not a file system failure is rethrown (a
 * bug: main() prints it).
 */
export function action<A extends unknown[]>(
  exit: ExitCode,
  work: (...args: A) => Promise<number | void>,
  describe?: (error: unknown) => Promise<string | undefined> | string | undefined,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      exit.set((await work(...args)) ?? 0);
    } catch (error) {
      const line = error instanceof CliError ? error.message : ((await describe?.(error)) ?? fileSystemFailure(error));
      if (line === undefined) throw error;
      // Errors quote names, paths and a server's stderr: escape sequences and bidi controls are shown, not sent.
      process.stderr.write(`skillport: error: ${escapeControls(line, { keepNewlines: true })}\n`);
      exit.set(error instanceof CliError ? error.exitCode : 1);
    }
  };
}

/** A file system failure (a missing folder for -o, no permission, a full disk) as one line, not a stack. */
function fileSystemFailure(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const failure = error as NodeJS.ErrnoException;
  if (typeof failure.code !== 'string' || failure.syscall === undefined) return undefined;
  return `${failure.path ? `${failure.path}: ` : ''}${failure.code} (${failure.syscall})`;
}
