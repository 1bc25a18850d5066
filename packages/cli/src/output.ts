import { relative, isAbsolute } from 'node:path';
import { escapeControls } from '@skillport/core';
import type { FolderProblem } from '@skillport/core';
import { environment } from './environment.js';

/** Colour only on a TTY, never with NO_COLOR set (https://no-color.org), always with FORCE_COLOR. */
export function useColor(stream: NodeJS.WriteStream): boolean {
  const env = environment();
  if (env.noColor) return false;
  if (env.forceColor) return true;
  return stream.isTTY === true;
}

export interface Paint {
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

export function paint(stream: NodeJS.WriteStream): Paint {
  const on = useColor(stream);
  const wrap = (open: number, close: number) => (text: string) => (on ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  return { red: wrap(31, 39), yellow: wrap(33, 39), green: wrap(32, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}

/** A path as the user would like to read it: relative to the working folder when inside it. */
export function displayPath(path: string): string {
  if (path === '' || !isAbsolute(path)) return path;
  const rel = relative(process.cwd(), path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}

/** A URL as messages show it: origin and path, never the query string or user info (they may carry secrets). */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

export function formatProblem(problem: FolderProblem, colors: Paint): string {
  const label = problem.severity === 'error' ? colors.red('error') : colors.yellow('warning');
  // Paths and messages quote file and skill names from the folders served: escaped, one line per problem.
  const where = problem.path ? `${escapeControls(displayPath(problem.path))}: ` : '';
  return `skillport: ${label}: ${where}${escapeControls(problem.message)}`;
}

/** Parses "16MiB", "512k", "1048576" into bytes. */
export function parseSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?\s*$/i.exec(text);
  if (!match) throw new Error(`not a size: ${JSON.stringify(text)} (try 16MiB, 512KiB or a number of bytes)`);
  const units: Record<string, number> = {
    b: 1,
    k: 1024,
    kb: 1024,
    kib: 1024,
    m: 1024 ** 2,
    mb: 1024 ** 2,
    mib: 1024 ** 2,
    g: 1024 ** 3,
    gb: 1024 ** 3,
    gib: 1024 ** 3,
  };
  return Math.floor(Number(match[1]) * units[(match[2] ?? 'b').toLowerCase()]!);
}

export function parsePositiveInt(name: string) {
  return (text: string): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer (got ${JSON.stringify(text)})`);
    return value;
  };
}

export function parsePort(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new Error(`--port must be 0-65535 (got ${JSON.stringify(text)})`);
  return value;
}

/** "1 skill", "2 skills", "0 skills". */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}
