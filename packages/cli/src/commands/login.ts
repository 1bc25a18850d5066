import type { Command } from 'commander';
import { escapeControls } from '@skillport/core';
import { CliError, action } from '../kit.js';
import type { ExitCode } from '../kit.js';
import { environment } from '../environment.js';
import { displayUrl } from '../output.js';
import { baseUrl, probeHealth, withoutHtml } from '../server-url.js';
import { configDir, removeLogin, saveLogin, serverKey, tokenFor } from '../user-config.js';

/**
 * `skillport login`, `logout`, `whoami`: a token kept per server (its origin) in the user's credentials file
 * (user-config.ts, mode 600), sent by every command to that server unless --token or SKILLPORT_TOKEN says
 * otherwise. As gh does, the token is read from stdin or a prompt that does not echo, never from an argument
 * (which shell history and `ps` would keep).
 */
const SERVER_ARG = "the server's URL (its base URL or /mcp); default: SKILLPORT_REGISTRY";

export function registerLogin(program: Command, exit: ExitCode): void {
  program
    .command('login')
    .description('Store a token for a server (checked against it first); every command then sends it there.')
    .argument('[server]', SERVER_ARG)
    .option('--json', 'print who the token is as JSON')
    .addHelpText(
      'after',
      `
The token is read from stdin when it is not a terminal (echo "$TOKEN" | skillport login URL), else from a
prompt that does not echo. It is kept in <config dir>/credentials.json (mode 600; the config dir is
$SKILLPORT_CONFIG_DIR, else $XDG_CONFIG_HOME/skillport, else ~/.config/skillport). --token and
SKILLPORT_TOKEN still win over it.

Examples:
  skillport token create --user alice --scope read,publish --data ./data | skillport login http://127.0.0.1:3333
  skillport login http://127.0.0.1:3333/mcp`,
    )
    .action(
      action(exit, async (server: string | undefined, options: { json?: boolean }) => {
        const url = serverArg(server);
        const token = await readToken(url);
        const me = await whoIs(url, token);
        const path = saveLogin(url, { token, ...(me.user ? { principal: me.user } : {}), savedAt: new Date().toISOString() });
        if (options.json) process.stdout.write(`${JSON.stringify({ server: serverKey(url), ...me.json, stored: path }, null, 2)}\n`);
        else {
          process.stdout.write(`${escapeControls(me.line)}\n`);
          process.stderr.write(`skillport: token stored for ${serverKey(url)} in ${path}\n`);
        }
      }),
    );

  program
    .command('logout')
    .description('Forget the token stored for a server.')
    .argument('[server]', SERVER_ARG)
    .action(
      action(exit, async (server: string | undefined) => {
        const url = serverArg(server);
        if (!removeLogin(url)) {
          process.stderr.write(`skillport: no token was stored for ${serverKey(url)}\n`);
          return 0;
        }
        process.stderr.write(`skillport: forgot the token for ${serverKey(url)}\n`);
        if (environment().token !== undefined) process.stderr.write('skillport: note: SKILLPORT_TOKEN is still set in this shell and is still sent\n');
        return 0;
      }),
    );

  program
    .command('whoami')
    .description('Say who a server takes you for (the token from --token, SKILLPORT_TOKEN or login).')
    .argument('[server]', SERVER_ARG)
    .option('--token <token>', 'the token to ask about')
    .option('--json', 'print JSON')
    .action(
      action(exit, async (server: string | undefined, options: { token?: string; json?: boolean }) => {
        const url = serverArg(server);
        const { token, source } = tokenFor(url, options.token);
        const me = await whoIs(url, token);
        const from =
          source === 'login'
            ? `the token stored by skillport login (${configDir()})`
            : source === 'env'
              ? 'SKILLPORT_TOKEN'
              : source === 'flag'
                ? '--token'
                : 'no token';
        if (options.json) process.stdout.write(`${JSON.stringify({ server: serverKey(url), ...me.json, tokenFrom: source ?? null }, null, 2)}\n`);
        else {
          process.stdout.write(`${escapeControls(me.line)}\n`);
          process.stderr.write(`skillport: credentials: ${from}\n`);
        }
      }),
    );
}

function serverArg(server: string | undefined): string {
  const url = server ?? environment().registry;
  if (url === undefined) throw new CliError('give the server URL (or set SKILLPORT_REGISTRY)', 2);
  if (!/^https?:\/\//i.test(url)) throw new CliError(`'${url}' is not an http(s) URL: login is for servers run with --http`, 2);
  try {
    return baseUrl(url);
  } catch {
    throw new CliError(`'${url}' is not a URL`, 2);
  }
}

async function readToken(url: string): Promise<string> {
  const stdin = process.stdin;
  let text: string;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(chunk as Buffer);
    text = Buffer.concat(chunks).toString('utf8');
  } else {
    text = await promptHidden(`Token for ${displayUrl(url)}: `);
  }
  const token = text.trim();
  if (token === '') throw new CliError('no token given (pipe it on stdin, or type it at the prompt)', 2);
  if (/\s/.test(token)) throw new CliError('a token holds no spaces or line breaks: give one token', 2);
  return token;
}

/** A prompt on the terminal whose answer is not echoed (raw mode), ended by Enter; Ctrl-C cancels. */
function promptHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(question);
    stdin.setRawMode(true);
    stdin.resume();
    let answer = '';
    const done = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(answer);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new CliError('cancelled', 130));
        if (char === '\u007f' || char === '\b') answer = answer.slice(0, -1);
        else answer += char;
      }
    };
    stdin.on('data', onData);
  });
}

interface WhoIs {
  line: string;
  user?: string;
  json: Record<string, unknown>;
}

/** Asks the server's /api/v1/me who the token is; an unknown token or a server that is not skillport is an error. */
async function whoIs(url: string, token: string | undefined): Promise<WhoIs> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  let response: Response;
  try {
    response = await fetch(`${url}/api/v1/me`, { headers: { accept: 'application/json', ...headers }, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    throw new CliError(`cannot reach ${url} (${cause?.code ?? (error as Error).message})`);
  }
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new CliError(
      withoutHtml(`${url} answered ${response.status} with something that is not JSON: ${text.slice(0, 200)}`) + ' (is it a skillport server?)',
    );
  }
  if (response.status === 401 && token === undefined) throw new CliError(`${url} needs a token: skillport login ${url} (or --token, SKILLPORT_TOKEN)`);
  if (response.status === 401 || response.status === 403) {
    const message = ((body['error'] ?? {}) as { message?: string }).message ?? `HTTP ${response.status}`;
    throw new CliError(`${url} refused the token: ${message} (HTTP ${response.status})`);
  }
  if (!response.ok) throw new CliError(`${url}/api/v1/me answered HTTP ${response.status}`);
  const via = String(body['via'] ?? '');
  const scopes = Array.isArray(body['scopes']) ? (body['scopes'] as string[]) : [];
  const skills = typeof body['skills'] === 'number' ? body['skills'] : undefined;
  const user = typeof body['user'] === 'string' ? body['user'] : typeof body['agent'] === 'string' ? body['agent'] : undefined;
  if (via === 'token' || via === 'jwt') {
    const line = `${user ?? 'a token without a user'} on ${url} (scopes: ${scopes.join(', ') || 'none'}${skills !== undefined ? `; sees ${skills} skill${skills === 1 ? '' : 's'}` : ''})`;
    return { line, ...(user ? { user } : {}), json: { authenticated: true, ...body } };
  }
  // An --auth none server: readers are anonymous, and a registry's writes go by its shared token, which only a
  // write can check. Whether the server takes writes at all is in /healthz.
  const health = await probeHealth(url, headers);
  const registry = health?.['registry'] as { writable?: boolean } | undefined;
  const writes =
    registry === undefined ? 'it has no registry' : registry.writable ? 'its registry takes writes with its shared token' : 'its registry is read-only';
  const line = `${url} does not authenticate readers (--auth none): everyone reads as anonymous; ${writes}${token ? '; the token is sent with writes' : ''}`;
  return { line, json: { authenticated: false, ...body, ...(registry !== undefined ? { registryWritable: registry.writable === true } : {}) } };
}
