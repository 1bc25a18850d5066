import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { MAX_DESCRIPTION_LENGTH, MCP_NAME_PATTERN, escapeControls, inspectSkillFolder } from '@skillport/core';
import type { ExitCode } from '../kit.js';
import { displayPath, paint } from '../output.js';

/**
 * `skillport init NAME`: a new skill folder that `validate` (and `publish`) accept as it is, with the parts the
 * spec recommends marked for the author to fill in.
 */
interface InitOptions {
  dir?: string;
  description?: string;
  force?: boolean;
}

export function registerInit(program: Command, exit: ExitCode): void {
  program
    .command('init')
    .description('Create a new skill folder NAME/ with a SKILL.md that validates, ready to edit.')
    .argument('<name>', 'the skill name: lowercase letters, digits and single hyphens (e.g. pdf-tools)')
    .option('--dir <parent>', 'create it inside this folder (default: the current folder)')
    .option('--description <text>', 'what the skill does and when to use it (default: a placeholder to edit)')
    .option('-f, --force', 'write into an existing, non-empty folder (SKILL.md is replaced)')
    .addHelpText('after', '\nExample:\n  skillport init pdf-tools --dir ./skills\n  skillport validate ./skills/pdf-tools')
    .action((name: string, options: InitOptions) => {
      const colors = paint(process.stderr);
      const error = (message: string, code: number) => {
        process.stderr.write(`skillport: ${colors.red('error')}: ${escapeControls(message, { keepNewlines: true })}\n`);
        exit.set(code);
      };
      if (!MCP_NAME_PATTERN.test(name))
        return error(`'${name}' is not a skill name: use 1-64 lowercase letters, digits and single hyphens, not at either end (e.g. pdf-tools)`, 2);
      const description = (options.description ?? `Describe what ${name} does and when to use it. Use when the user asks for ${name.replace(/-/g, ' ')}.`)
        .replace(/\s+/g, ' ')
        .trim();
      if (description === '' || description.length > MAX_DESCRIPTION_LENGTH) return error(`--description must be 1-${MAX_DESCRIPTION_LENGTH} characters`, 2);
      const folder = resolve(options.dir ?? '.', name);
      if (existsSync(folder) && !statSync(folder).isDirectory()) return error(`${displayPath(folder)} exists and is not a folder`, 1);
      if (existsSync(folder) && readdirSync(folder).length > 0 && !options.force)
        return error(`${displayPath(folder)} exists and is not empty; use --force to write SKILL.md into it`, 1);
      try {
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, 'SKILL.md'), skillMd(name, description));
      } catch (failure) {
        // A --dir that is a file (ENOTDIR), a read-only parent (EACCES), a full disk: one line, not a stack.
        const code = (failure as NodeJS.ErrnoException).code;
        const why =
          code === 'ENOTDIR'
            ? 'a part of the path is a file, not a folder'
            : code === 'EACCES' || code === 'EPERM'
              ? 'permission denied'
              : (failure as Error).message;
        return error(`cannot create ${displayPath(join(folder, 'SKILL.md'))}: ${why}`, 1);
      }
      // What validate would say: a scaffold that does not validate would be a bug, so say so rather than hide it.
      const inspection = inspectSkillFolder(folder);
      const errors = inspection.problems.filter((problem) => problem.severity === 'error');
      if (errors.length > 0) return error(`${displayPath(folder)} does not validate: ${errors.map((problem) => problem.message).join('; ')}`, 1);
      process.stdout.write(`${displayPath(join(folder, 'SKILL.md'))}\n`);
      process.stderr.write(
        `skillport: created ${displayPath(folder)}: edit the description and instructions, then skillport validate ${displayPath(folder)}\n`,
      );
      exit.set(0);
    });
}

function skillMd(name: string, description: string): string {
  const title = name
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
  const yamlText = /^[\w .,()'-]+$/.test(description) && !/^[\d\s]/.test(description) ? description : JSON.stringify(description);
  return `---
name: ${name}
description: ${yamlText}
---

# ${title}

## When to use

Say which requests this skill is for, in the words users use. The description above is what an agent reads to
decide whether to load the skill: keep it to what the skill does and when to use it.

## Instructions

1. The first step.
2. The next step.

Put long reference material in \`references/\`, scripts in \`scripts/\` and templates in \`assets/\`, and say here
when to read or run each one.
`;
}
