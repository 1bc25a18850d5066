import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { runCli } from './cli-process.js';
import { makeTree, skillMd } from './tree.js';

/** A fresh store folder. */
export function storeDir(): string {
  return mkdtempSync(join(tmpdir(), 'skillport-registry-'));
}

/** A skill folder whose reference text says which release it is, so reads show which version answered. */
export function releaseFolder(name: string, release: string, extra: Record<string, string | Uint8Array> = {}): string {
  const base = makeTree({});
  writeRelease(base, name, release, extra);
  return join(base, name);
}

export function writeRelease(base: string, name: string, release: string, extra: Record<string, string | Uint8Array> = {}): void {
  makeTree(
    {
      [`${name}/SKILL.md`]: skillMd(name, undefined, '', `# ${name}\n\nRelease ${release}. Read references/guide.md.\n`),
      [`${name}/references/guide.md`]: `guide for release ${release}\n`,
      ...Object.fromEntries(Object.entries(extra).map(([path, content]) => [`${name}/${path}`, content])),
    },
    base,
  );
}

export function registryUrl(mcpUrl: string): string {
  return mcpUrl.replace(/\/mcp$/, '');
}

export async function publish(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string; json?: Record<string, unknown> }> {
  const result = await runCli(['publish', '--json', ...args], env);
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(result.stdout) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return json === undefined ? result : { ...result, json };
}

export async function callText(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text?: string }>;
  return { text: content.map((item) => item.text ?? '').join('\n'), isError: result.isError === true };
}

export function writeFile(path: string, content: string): void {
  writeFileSync(path, content);
}
