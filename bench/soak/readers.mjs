// Readers for bench/soak.mjs: N clients, each holding a listing it took itself, reading random files of it and
// checking every byte against the digest of the listing the file came from. Most clients speak raw JSON-RPC (as the
// SDK sends it; cheap, so the client side is not the bottleneck) on both eras; every `sdkEvery`-th one is the SDK's
// own Client + SkillsClient, which verifies size and digest itself.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient, SkillVerificationError } from '@modelcontextprotocol/client/ext/skills';
import { bytesOf, listing, rpc, sha256, sleep } from './lib.mjs';

/** Counters every reader adds to; `mismatches` holds the first few failures in words. */
export function newStats() {
  return {
    requests: 0,
    reads: 0,
    verified: 0,
    changedDuringRead: 0,
    matchedWritten: 0,
    mismatches: 0,
    gone: 0,
    retryable: 0,
    refused: 0,
    status5xx: 0,
    status4xx: 0,
    transport: 0,
    otherErrors: {},
    latencies: [],
    samples: [],
  };
}

const LATENCY_SAMPLES = 200_000;

function note(stats, answer) {
  stats.requests++;
  if (stats.latencies.length < LATENCY_SAMPLES) stats.latencies.push(answer.ms);
  if (answer.status >= 500) stats.status5xx++;
  else if (answer.status >= 400) stats.status4xx++;
  else if (answer.status === 0) stats.transport++;
}

/**
 * Starts the readers on `url`. `known(uri)`: every digest the churn ever wrote for that file (a read that matches
 * neither listing around it but one of these is a file that changed twice in between, not a torn byte).
 * Returns {stats, stop()}.
 */
export function startReaders(url, { clients, rng, known = () => undefined, sdkEvery = 8, pauseMs = 0 }) {
  const stats = newStats();
  let running = true;
  const loops = Array.from({ length: clients }, (_, i) =>
    i % sdkEvery === sdkEvery - 1
      ? sdkReader(url, i % 2 ? 'legacy' : 'modern', stats, rng, () => running, pauseMs)
      : rawReader(url, i % 2 ? 'legacy' : 'modern', stats, rng, known, () => running, pauseMs),
  );
  return {
    stats,
    async stop() {
      running = false;
      await Promise.all(loops);
      return stats;
    },
  };
}

async function rawReader(url, era, stats, rng, known, alive, pauseMs) {
  let skills;
  let listedAt = 0;
  while (alive()) {
    if (!skills || performance.now() - listedAt > 1000) {
      skills = await listing(url, era);
      stats.requests++;
      listedAt = performance.now();
      if (!skills || skills.size === 0) {
        await sleep(50);
        continue;
      }
    }
    const [skillUri, skill] = rng.pick([...skills]);
    const files = [...skill.files];
    if (files.length === 0) continue;
    const [uri, digest] = rng.pick(files);
    const answer = await rpc(url, 'resources/read', { uri }, era);
    note(stats, answer);
    stats.reads++;
    if (answer.result) {
      const bytes = bytesOf(answer.result);
      const got = sha256(bytes ?? Buffer.alloc(0));
      if (got === digest) stats.verified++;
      else {
        // Not the listed bytes: the file may have changed since the listing. The listing taken right after must
        // then name these bytes, or the churn must have written them at some point; anything else is a torn or
        // wrong byte.
        const after = await listing(url, era);
        const now = after && [...after.values()].find((s) => s.files.has(uri))?.files.get(uri);
        if (now === got) stats.changedDuringRead++;
        else if (known(uri)?.has(got)) stats.matchedWritten++;
        else {
          stats.mismatches++;
          if (stats.samples.length < 5)
            stats.samples.push(`${era} ${uri}: got ${got.slice(0, 19)}, listed ${digest.slice(0, 19)} (skill ${skillUri}), now ${now?.slice(0, 19)}`);
        }
        skills = after;
        listedAt = performance.now();
      }
    } else if (answer.error) {
      const code = answer.error.code;
      if (code === -32011) stats.retryable++;
      else if (code === -32002 || (code === -32602 && /not found/i.test(answer.error.message ?? ''))) stats.gone++;
      else if (/revoked|yanked/i.test(answer.error.message ?? '')) stats.refused++;
      else
        stats.otherErrors[`${code} ${String(answer.error.message).slice(0, 80)}`] =
          (stats.otherErrors[`${code} ${String(answer.error.message).slice(0, 80)}`] ?? 0) + 1;
      skills = undefined;
    } else if (answer.status !== 200) {
      skills = undefined;
      await sleep(20);
    }
    if (pauseMs) await sleep(pauseMs);
  }
}

async function sdkReader(url, era, stats, rng, alive, pauseMs) {
  let client;
  try {
    client = new Client({ name: 'soak-sdk', version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  } catch (error) {
    // Connecting while the server is being killed (crash phase) is a cut connection, not a wrong answer.
    stats.transport++;
    if (!/fetch failed|ECONNREFUSED|ECONNRESET|socket/i.test(String(error?.message)))
      stats.otherErrors[`sdk connect: ${String(error.message).slice(0, 80)}`] = 1;
    return;
  }
  const skillsClient = new SkillsClient(client, { skipInvalid: true });
  let entries;
  let listedAt = 0;
  try {
    while (alive()) {
      if (!entries || performance.now() - listedAt > 1000) {
        entries = (await skillsClient.list().catch(() => ({ skills: [] }))).skills;
        stats.requests++;
        listedAt = performance.now();
        if (entries.length === 0) {
          await sleep(50);
          continue;
        }
      }
      const entry = rng.pick(entries);
      const resources = entry.resources ?? [];
      if (resources.length === 0) continue;
      const resource = rng.pick(resources);
      const started = performance.now();
      stats.reads++;
      try {
        await skillsClient.read(entry, resource.uri);
        note(stats, { status: 200, ms: performance.now() - started });
        stats.verified++;
      } catch (error) {
        note(stats, { status: 200, ms: performance.now() - started });
        const message = String(error?.message ?? error);
        if (error instanceof SkillVerificationError) {
          // The SDK refused bytes that differ from the entry: fine only when the file changed meanwhile.
          const fresh = await skillsClient.get(entry.uri).catch(() => undefined);
          const now = fresh?.skill.resources?.find((r) => r.uri === resource.uri)?.digest;
          if (now !== resource.digest) stats.changedDuringRead++;
          else {
            stats.mismatches++;
            if (stats.samples.length < 5) stats.samples.push(`sdk ${era} ${resource.uri}: ${message.slice(0, 160)}`);
          }
        } else if (/fetch failed|ECONNREFUSED|ECONNRESET|socket|terminated/i.test(message))
          stats.transport++; // the server was killed
        else if (/-32011|changed on disk/.test(message)) stats.retryable++;
        else if (/-32002|not found|no skill|unknown/i.test(message)) stats.gone++;
        else if (/revoked|yanked/i.test(message)) stats.refused++;
        else stats.otherErrors[`sdk: ${message.slice(0, 80)}`] = (stats.otherErrors[`sdk: ${message.slice(0, 80)}`] ?? 0) + 1;
        entries = undefined;
      }
      if (pauseMs) await sleep(pauseMs);
    }
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Sums reader stats (several phases or servers). */
export function addStats(into, from) {
  for (const [key, value] of Object.entries(from)) {
    if (typeof value === 'number') into[key] = (into[key] ?? 0) + value;
  }
  for (const [key, value] of Object.entries(from.otherErrors)) into.otherErrors[key] = (into.otherErrors[key] ?? 0) + value;
  into.samples.push(...from.samples.slice(0, 5 - into.samples.length));
  for (const ms of from.latencies.slice(0, LATENCY_SAMPLES - into.latencies.length)) into.latencies.push(ms);
  return into;
}
