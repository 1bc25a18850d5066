/**
 * The client runner for the official SEP-2640 host scenarios: `conformance client --command "node
 * conformance-client.js"` starts a scenario server and runs this with its URL as the last argument. It behaves
 * like a host on @skillport/client: build the model's instructions from the listing; then, as a model would,
 * load each skill and read each of its files. The no-prefetch scenario stops after the listing (no skill was
 * loaded, so nothing may be read). A refused file ends the run with exit 1 and the reason on stderr.
 */
import { McpSkillSource, SkillSet, skillTools } from '../src/index.js';

const url = process.argv.at(-1)!;
const scenario = process.env['MCP_CONFORMANCE_SCENARIO'] ?? '';

const source = new McpSkillSource(url, { origin: 'scenario', onWarning: (message) => process.stderr.write(`warning: ${message}\n`) });
const set = new SkillSet([source]);
const session = set.session();
let code = 0;
try {
  const instructions = await session.instructions();
  process.stdout.write(`${instructions}\n`);
  if (scenario !== 'sep-2640-client-no-prefetch') {
    const tools = await skillTools(session);
    const call = (name: string, args: Record<string, unknown>) => tools.find((tool) => tool.name === name)!.execute(args);
    for (const skill of await session.skills()) {
      const loaded = await call('load_skill', { name: skill.id });
      process.stdout.write(`${loaded}\n`);
      if (loaded.startsWith('Error:')) {
        code = 1;
        continue;
      }
      for (const file of skill.files ?? []) {
        if (file.path === 'SKILL.md') continue;
        const read = await call('read_skill_resource', { name: skill.id, path: file.path });
        process.stdout.write(`${read}\n`);
        if (read.startsWith('Error:')) code = 1;
      }
    }
  }
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  code = 1;
} finally {
  await set.close();
}
process.exit(code);
