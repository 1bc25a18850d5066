#!/usr/bin/env node
// Writes the "Every command's options" section of docs/cli.md from the built CLI's own --help (serve: --help-all),
// so the reference names every command and flag. Run after `npm run build`: node scripts/cli-help.mjs
// (packages/cli/test/readme.test.ts checks that docs/cli.md names them all).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const cli = `${root}packages/cli/bin/skillport.js`;
const help = (args) => execFileSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '100' } });
const commands = [...help(['--help']).matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((match) => match[1]).filter((name) => name !== 'help');
const sections = [];
for (const command of commands) {
  const text = help([command, command === 'serve' ? '--help-all' : '--help']);
  // Subcommands (token create, store check…) get their own help too.
  const subs = [...text.matchAll(/^Commands:\n([\s\S]*?)(?:\n\n|$)/gm)]
    .flatMap((match) => [...match[1].matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]))
    .filter((name) => name !== 'help');
  sections.push(`### skillport ${command}\n\n\`\`\`text\n${text.trimEnd()}\n\`\`\`\n`);
  for (const sub of subs) sections.push(`#### skillport ${command} ${sub}\n\n\`\`\`text\n${help([command, sub, '--help']).trimEnd()}\n\`\`\`\n`);
}
const START = '<!-- cli-help:start (scripts/cli-help.mjs writes this section) -->';
const END = '<!-- cli-help:end -->';
const path = `${root}docs/cli.md`;
const doc = readFileSync(path, 'utf8');
const body = `${START}\n\n## Every command's options\n\nAs \`--help\` prints them (\`serve\`: \`--help-all\`).\n\n${sections.join('\n')}\n${END}`;
const at = doc.indexOf(START);
writeFileSync(path, at < 0 ? `${doc.trimEnd()}\n\n${body}\n` : `${doc.slice(0, at)}${body}${doc.slice(doc.indexOf(END) + END.length)}`);
console.log(`docs/cli.md: ${sections.length} commands`);
