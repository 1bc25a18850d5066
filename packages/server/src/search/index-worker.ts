import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { DocumentAnalyzer } from '@skillport/search/analysis';
import type { AnalysedDocument, NewTerms } from '@skillport/search/analysis';
import { readFolderFile } from '../catalog/content.js';
import { collectGarbage } from '../memory.js';
import { bodyText, referenceTexts } from './skill-texts.js';

/**
 * A search-index worker thread (./analysis-pool.ts starts it): reads each skill's SKILL.md and reference files with
 * a verified read (size and digest: a file that changed since it was scanned is left out, as on the main thread),
 * splits off the frontmatter and analyses every field into counted terms, and posts back typed arrays the main
 * thread only has to insert.
 */

/** A folder's file to read: its path, and the size and digest its bytes must have. */
export interface FileJob {
  source: string;
  size: number;
  digest: string;
}

export interface SkillJob {
  name: string;
  description: string;
  headings: readonly string[];
  manifest?: FileJob;
  /** Picked by referenceFiles and size, in path order. */
  references: FileJob[];
  /** The texts, read already (a stored origin's blobs are read on the main thread): the files above are then not read. */
  texts?: { body: string; references: string[] };
}

export interface AnalyseRequest {
  seq: number;
  skills: SkillJob[];
}

/** The terms the worker's table learnt during the batch come first: the main thread learns them before inserting. */
export type AnalyseReply = { seq: number; terms: NewTerms; documents: AnalysedDocument[] } | { seq: number; error: string };

/**
 * A full collection once the heap has grown this much past what the last one kept (bytes): the bodies read and the
 * words cut from them are garbage a moment later, and V8 left them (about half the heap, at 2,000 skills) until the
 * heap had doubled, which the build's peak memory paid for in full.
 */
const COLLECT_GROWTH = 16 * 1024 * 1024;

/**
 * The worker's niceness (Linux: each thread has its own): on a busy machine the thread serving requests comes first,
 * and the build takes what is left, all of a free core on a quiet one. At the same priority, a 10,000-skill build
 * held reads at 0.6 of their rate on two loaded cores (one more runnable thread beside the main one).
 */
const NICENESS = 10;

try {
  // /proc/thread-self names this thread's id, which setpriority(2) takes for the thread alone.
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), NICENESS);
} catch {
  // Not Linux, or not allowed: the same priority as the main thread.
}

const analyzer = new DocumentAnalyzer();
let kept = getHeapStatistics().used_heap_size;
const port = parentPort!;
let queue: Promise<void> = Promise.resolve();

const read = (file: FileJob): Promise<Uint8Array | undefined> => readFolderFile(file.source, file);

port.on('message', (request: AnalyseRequest) => {
  queue = queue.then(() => answer(request));
});

/**
 * Skill by skill, the next one's files read while this one is analysed: never more than a skill's reads in flight,
 * since the thread pool that runs them is the whole process's, and the main thread's own reads (a client reading a
 * file) queue behind them; a batch's texts read all at once held reads at 0.5 of their rate during a 10,000-skill
 * build.
 */
async function answer(request: AnalyseRequest): Promise<void> {
  try {
    const texts = (skill: SkillJob) =>
      skill.texts !== undefined
        ? Promise.resolve(skill.texts)
        : bodyText(skill.manifest, read).then(async (body) => ({ body, references: await referenceTexts(skill.references, read) }));
    const documents: AnalysedDocument[] = [];
    let next = request.skills.length > 0 ? texts(request.skills[0]!) : undefined;
    for (let at = 0; at < request.skills.length; at++) {
      const skill = request.skills[at]!;
      const fields = await next!;
      next = at + 1 < request.skills.length ? texts(request.skills[at + 1]!) : undefined;
      documents.push(analyzer.analyse({ id: '', name: skill.name, description: skill.description, headings: skill.headings, ...fields }));
    }
    const transfer = documents.flatMap((document) => [
      document.lengths.buffer,
      document.terms.buffer,
      document.counts.buffer,
      document.sequence.buffer,
      document.improved.buffer,
    ]);
    port.postMessage({ seq: request.seq, terms: analyzer.newTerms(), documents } satisfies AnalyseReply, transfer as ArrayBuffer[]);
    if (getHeapStatistics().used_heap_size > kept + COLLECT_GROWTH) {
      collectGarbage();
      kept = getHeapStatistics().used_heap_size;
    }
  } catch (error) {
    port.postMessage({ seq: request.seq, error: String((error as Error)?.stack ?? error) } satisfies AnalyseReply);
  }
}
