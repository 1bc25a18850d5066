import { parentPort } from 'node:worker_threads';
import { DocumentAnalyzer } from '@skillport/search/analysis';
import type { AnalysedDocument, NewTerms } from '@skillport/search/analysis';
import { readFolderFile } from '../catalog/content.js';
import { bodyText, referenceTexts } from './skill-texts.js';

/**
 * A search-index worker thread (./analysis-pool.ts starts it): reads each skill's SKILL.md and reference files with
 * a verified read (size and digest: a file that changed since it was scanned is left out, as on the main thread),
 * splits off the frontmatter and analyses every field into counted terms, and posts back typed arrays the main
 * thread only has to insert. Reads of the next batch run while the one before is analysed.
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

const analyzer = new DocumentAnalyzer();
const port = parentPort!;
let queue: Promise<void> = Promise.resolve();

const read = (file: FileJob): Promise<Uint8Array | undefined> => readFolderFile(file.source, file);

port.on('message', (request: AnalyseRequest) => {
  const texts = Promise.all(
    request.skills.map(
      async (skill) => skill.texts ?? { body: await bodyText(skill.manifest, read), references: await referenceTexts(skill.references, read) },
    ),
  );
  texts.catch(() => undefined); // awaited below, in turn: a failure is answered there
  queue = queue.then(async () => {
    try {
      const read = await texts;
      const documents = request.skills.map((skill, at) =>
        analyzer.analyse({ id: '', name: skill.name, description: skill.description, headings: skill.headings, ...read[at]! }),
      );
      const transfer = documents.flatMap((document) => [
        document.lengths.buffer,
        document.terms.buffer,
        document.counts.buffer,
        document.sequence.buffer,
        document.improved.buffer,
      ]);
      port.postMessage({ seq: request.seq, terms: analyzer.newTerms(), documents } satisfies AnalyseReply, transfer as ArrayBuffer[]);
    } catch (error) {
      port.postMessage({ seq: request.seq, error: String((error as Error)?.stack ?? error) } satisfies AnalyseReply);
    }
  });
});
