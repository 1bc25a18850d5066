// The agents that run the benchmark's loop. Both see the same thing: the messages so far (OpenAI chat format) and the
// tools the setup offers, and answer with tool calls or a final answer.
// - ModelAgent: a model behind an OpenAI-compatible /v1/chat/completions endpoint (hosted APIs, Ollama, llama.cpp's
//   server, vLLM) with tool calling.
// - ScriptedAgent: deterministic, for runs without a model (CI, the tests). It decides only with what is in its
//   context and the tools offered: a catalog in the system prompt is read by ranking its names and descriptions
//   against the task (core's BM25F over those two fields: a stand-in for a model's reading, no bodies); without a
//   catalog it searches with list_skills when it has it (after loading a bootstrap skill that tells it to); it reads
//   a skill file only when the skill's listing names it and the task needs it; its answer quotes the skill content in
//   its context. So every metric that does not need a model's judgement (cycles, tokens, latency, digests, what
//   survives compaction, whether the right skill is reachable) is measured for real.
import { SkillSearchIndex } from '../../packages/search/dist/src/index.js';

const ACTIVATORS = new Set(['load_skill', 'activate_skill']);

function parseCatalog(system) {
  const entries = [];
  for (const match of system.matchAll(/<skill>\s*<name>([^<]*)<\/name>\s*<description>([^<]*)<\/description>/g)) {
    entries.push({ name: unescape(match[1]), description: unescape(match[2]) });
  }
  return entries;
}

const unescape = (text) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** Skill content in context: activation results and re-injected skills (`<skill_content name="…">…`). */
function skillContents(messages, bootstrap) {
  const found = [];
  for (const message of messages) {
    if (typeof message.content !== 'string') continue;
    for (const match of message.content.matchAll(/<skill_content name="([^"]*)"[^>]*>([\s\S]*?)<\/skill_content>/g)) {
      if (match[1] !== bootstrap) found.push({ name: match[1], text: match[0] });
    }
  }
  return found;
}

export class ScriptedAgent {
  constructor({ bootstrapName = 'skillport-bootstrap', topK = 5 } = {}) {
    this.bootstrapName = bootstrapName;
    this.topK = topK;
    this.name = 'scripted';
  }

  /** The candidates the agent considered (for the top-k metric), set when it chose. */
  candidates = [];

  async step(messages, tools, task) {
    const offered = new Set(tools.map((tool) => tool.name));
    const system = messages.find((message) => message.role === 'system')?.content ?? '';
    const prompt = [...messages].reverse().find((message) => message.role === 'user' && !message.restored)?.content ?? '';
    const results = messages.filter((message) => message.role === 'tool');
    const calledWith = (name) =>
      messages
        .filter((message) => message.role === 'assistant')
        .flatMap((message) => message.tool_calls ?? [])
        .filter((call) => call.function.name === name);
    const call = (name, args) => ({
      toolCalls: [{ id: `call_${messages.length}_${name}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });

    const contents = skillContents(messages, this.bootstrapName);
    if (contents.length > 0) {
      const active = contents[0];
      // Readiness said before the instructions: what is missing, when the host's tools do not include it.
      const readiness = messages
        .filter((message) => typeof message.content === 'string')
        .map((message) => /<skill_readiness name="([^"]*)" status="(needs|unknown)">([\s\S]*?)<\/skill_readiness>/.exec(message.content))
        .find((match) => match !== null && match[1] === active.name);
      const missing = readiness ? [...unescape(readiness[3]).matchAll(/MCP servers? "([^"]+)"/g)].map((match) => match[1]) : [];
      const hasServer = (server) =>
        [...offered].some(
          (name) => name.toLowerCase().startsWith(`mcp__${server.toLowerCase()}__`) || name.toLowerCase().startsWith(`${server.toLowerCase()}_`),
        );
      const lacking = missing.filter((server) => !hasServer(server));
      if (readiness && lacking.length > 0) {
        return {
          content: `The skill ${active.name} cannot run here yet: ${unescape(readiness[3])} Please connect ${lacking.map((server) => `"${server}"`).join(', ')} and ask again.`,
        };
      }
      // A skill whose steps call a server's tools (the task says it needs one): the first tool its text names, once.
      if ((task.requires?.mcp ?? []).length > 0) {
        const named = /`((?:mcp__[A-Za-z0-9_-]+__|[A-Z][A-Z0-9]*_)[A-Za-z0-9_]+)`/.exec(active.text)?.[1];
        if (named !== undefined && calledWith(named).length === 0) return call(named, {});
      }
      // Work: read the files the task needs that the skill lists, then answer from what is in context.
      for (const path of task.reads ?? []) {
        const listed = messages.some((message) => typeof message.content === 'string' && message.content.includes(path));
        const done = calledWith('read_skill_resource').some((made) => JSON.parse(made.function.arguments).path === path);
        if (listed && !done && offered.has('read_skill_resource')) return call('read_skill_resource', { name: active.name, path });
      }
      const reads = results.filter((message) => message.name === 'read_skill_resource' && !message.content.startsWith('Error'));
      return {
        content: [`Following the skill ${active.name}:`, ...contents.map((item) => item.text), ...reads.map((message) => message.content)].join('\n\n'),
      };
    }

    // A catalog in the system prompt (other than the bootstrap alone): choose from it.
    const catalog = parseCatalog(system).filter((entry) => entry.name !== this.bootstrapName);
    const activator = [...ACTIVATORS].find((name) => offered.has(name));
    if (catalog.length > 0 && offered.has('load_skill')) {
      // The scripted agent stands in for a model reading its catalog and picking the closest entry: it ranks without
      // search's abstention (which answers a search tool, not an agent choosing from a list it was given).
      const index = new SkillSearchIndex(
        catalog.map((entry) => ({ id: entry.name, name: entry.name, description: entry.description })),
        { minConfidence: 0 },
      );
      const hits = index.search(prompt, this.topK);
      this.candidates = hits.map((hit) => hit.id);
      if (hits.length > 0 && calledWith('load_skill').length < 2) return call('load_skill', { name: hits[0].id });
    }

    // The bootstrap skill says how to find remote skills: load it once.
    const bootstrapListed = parseCatalog(system).some((entry) => entry.name === this.bootstrapName);
    const bootstrapLoaded = results.some((message) => message.content.includes(`<skill_content name="${this.bootstrapName}"`));
    if (bootstrapListed && !bootstrapLoaded && offered.has('load_skill') && calledWith('load_skill').length === 0)
      return call('load_skill', { name: this.bootstrapName });

    // Search, then activate the best match.
    if (offered.has('list_skills')) {
      const searches = calledWith('list_skills');
      if (searches.length === 0) return call('list_skills', { query: prompt });
      const last = [...results].reverse().find((message) => message.name === 'list_skills');
      let skills = [];
      try {
        skills = JSON.parse(last?.content ?? '{}').skills ?? [];
      } catch {
        skills = [];
      }
      this.candidates = skills.slice(0, this.topK).map((skill) => skill.name);
      const tried = calledWith('activate_skill').length;
      if (skills.length > 0 && tried < 2 && offered.has('activate_skill')) return call('activate_skill', { name: skills[0].name });
    } else if (activator === undefined && this.candidates.length === 0) {
      this.candidates = [];
    }
    return { content: 'I can help with that in general terms, without specific instructions for this task.' };
  }
}

/** A model behind an OpenAI-compatible chat-completions endpoint, with tool calling. */
export class ModelAgent {
  constructor({ url, model, apiKey, timeoutMs = 120_000, temperature = 0 }) {
    this.url = url.replace(/\/+$/, '');
    this.model = model;
    this.apiKey = apiKey;
    this.timeoutMs = timeoutMs;
    this.temperature = temperature;
    this.name = `model:${model}`;
    this.candidates = [];
  }

  async step(messages, tools) {
    const endpoint = /\/chat\/completions$/.test(this.url) ? this.url : `${this.url}${/\/v1$/.test(this.url) ? '' : '/v1'}/chat/completions`;
    const body = {
      model: this.model,
      temperature: this.temperature,
      messages: messages.map(({ restored, ...message }) => message),
      tools: tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
    };
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!response.ok) throw new Error(`model endpoint answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    const json = await response.json();
    const message = json.choices?.[0]?.message;
    if (!message) throw new Error('model endpoint answered without a message');
    const usage = json.usage ? { prompt: json.usage.prompt_tokens ?? 0, completion: json.usage.completion_tokens ?? 0 } : undefined;
    if (message.tool_calls?.length > 0) return { toolCalls: message.tool_calls, usage };
    return { content: message.content ?? '', usage };
  }
}
