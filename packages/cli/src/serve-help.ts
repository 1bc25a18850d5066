import type { Command } from 'commander';
import { Option } from 'commander';
import layout from './serve-help.json' with { type: 'json' };

/**
 * `serve --help` in groups (sources, HTTP, access, tools and search, limits), with the rare flags only under
 * `--help-all`. Which option goes where is data (serve-help.json), so a new flag is placed by adding its name there;
 * an unlisted one still shows, under "Other options".
 */
const GROUP_OF = new Map<string, string>(
  Object.entries(layout.groups as Record<string, string[]>).flatMap(([group, names]) => names.map((name) => [name, group] as const)),
);
const RARE = new Set<string>(layout.rare);

/** The long name an option is listed under: `--no-watch` and `--watch` alike are `watch`. */
function nameOf(option: Option): string {
  return (option.long ?? '').replace(/^--(no-)?/, '');
}

export function groupServeHelp(command: Command, argv: readonly string[] = process.argv): Command {
  const all = argv.includes('--help-all');
  for (const option of command.options) {
    const name = nameOf(option);
    if (name === 'help' || name === 'help-all') continue;
    option.helpGroup(`${GROUP_OF.get(name) ?? 'Other'} options:`);
    if (RARE.has(name) && !all) option.hideHelp();
  }
  command.addOption(new Option('--help-all', 'show every option, the rare ones too').helpGroup('Other options:'));
  // Help lists groups in the order their first option appears: order the options as the groups are listed.
  const order = [...Object.keys(layout.groups), 'Other'];
  const rank = (option: Option) => order.indexOf(GROUP_OF.get(nameOf(option)) ?? 'Other');
  const sorted = [...command.options].map((option, index) => ({ option, index })).sort((a, b) => rank(a.option) - rank(b.option) || a.index - b.index);
  (command.options as Option[]).splice(0, command.options.length, ...sorted.map((entry) => entry.option));
  command.on('option:help-all', () => command.help());
  if (!all) command.addHelpText('after', `\n${RARE.size} rarer options (timeouts, per-client limits, JWT details…): skillport serve --help-all`);
  return command;
}
