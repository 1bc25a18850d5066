// @ts-check
/**
 * An agent on the Vercel AI SDK with skills from MCP servers and folders, in a few lines.
 *
 *   npm install ai @ai-sdk/openai        # any AI SDK provider works
 *   OPENAI_API_KEY=... node examples/client/ai-sdk-agent.mjs "Clean my CSV export" http://127.0.0.1:3333/mcp ./skills
 *
 * The model sees the <available_skills> catalog in its system prompt and calls load_skill / read_skill_resource
 * (and read_skill_uri for skill:// links); every byte it gets was verified against the server's digests and is
 * cached by digest, so the next run reads nothing the server has not changed.
 */
import { pathToFileURL } from 'node:url';
import { generateText, stepCountIs } from 'ai';
import { openSkills, skillTools } from '@skillport/client';
import { aiSdkTools } from '@skillport/client/ai';

/**
 * @param {{ model: import('ai').LanguageModel, prompt: string, sources: string[], cache?: string | boolean }} options
 */
export async function runAgent({ model, prompt, sources, cache = true }) {
  const skills = openSkills(sources, { cache, onWarning: (message) => console.warn(`skills: ${message}`) });
  try {
    const session = skills.session({ directReferences: true });
    const result = await generateText({
      model,
      system: await session.instructions(),
      prompt,
      tools: aiSdkTools(await skillTools(session)),
      stopWhen: stepCountIs(8),
    });
    // Keep `JSON.stringify(session)` to resume later; `session.reinject()` after compacting the history.
    return { text: result.text, steps: result.steps, session: session.toJSON() };
  } finally {
    await skills.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [prompt, ...sources] = process.argv.slice(2);
  if (!prompt || sources.length === 0) {
    console.error('usage: node examples/client/ai-sdk-agent.mjs "<prompt>" <server-url | stdio:COMMAND | folder>...');
    process.exit(2);
  }
  const providerPackage = process.env['AI_PROVIDER'] ?? '@ai-sdk/openai'; // any AI SDK provider package
  /** @type {any} */
  let provider;
  try {
    provider = await import(providerPackage);
  } catch {
    console.error('install a model provider first: npm install @ai-sdk/openai (and set OPENAI_API_KEY)');
    process.exit(2);
  }
  const model = provider.openai ? provider.openai(process.env['MODEL'] ?? 'gpt-4.1-mini') : provider.default(process.env['MODEL']);
  const { text } = await runAgent({ model, prompt, sources });
  console.log(text);
}
