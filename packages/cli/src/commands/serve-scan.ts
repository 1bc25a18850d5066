import { Worker } from 'node:worker_threads';
import { discoverSkills, escapeControls } from '@skillport/core';
import { displayPath, plural } from '../output.js';
import type { Paint } from '../output.js';

/**
 * What `serve` says of the scanner's findings in the folders it serves (issue: skills are instructions a model
 * follows): warnings, as `validate` gives them. In the background after the serving line, in a worker thread (a large
 * tree holds up no request); with `--strict`, before serving, and a high finding refuses the start.
 */
export interface FolderScan {
  skills: number;
  withFindings: number;
  high: Array<{ dir: string; lines: string[] }>;
}

export async function scanServedFolders(folders: readonly string[]): Promise<FolderScan> {
  const scan = await import('@skillport/scan');
  const result: FolderScan = { skills: 0, withFindings: 0, high: [] };
  for (const folder of folders) {
    for (const skill of discoverSkills(folder).skills) {
      const report = scan.scanSkill(scan.readSkillFolderFiles(skill.dir).files);
      result.skills++;
      if (report.findings.length === 0) continue;
      result.withFindings++;
      const high = report.findings.filter((finding) => finding.severity === 'high');
      if (high.length > 0)
        result.high.push({
          dir: skill.dir,
          lines: high.slice(0, 3).map((f) => `${f.file}${f.line > 0 ? `:${f.line}` : ''}: ${f.rule}: ${f.title}`),
        });
    }
  }
  return result;
}

/**
 * The same scan in a worker thread (serve's background scan): the main thread keeps answering. The worker never holds
 * a stopped process open (unref); a worker that fails or ends without an answer rejects, and serve says nothing.
 */
export function scanServedFoldersInWorker(folders: readonly string[]): Promise<FolderScan> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./serve-scan-worker.js', import.meta.url), { workerData: { folders: [...folders] } });
    worker.unref();
    worker.once('message', (result: FolderScan) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the folder scan's worker ended (${code}) without an answer`)));
  });
}

/** The lines `serve` prints: each skill with a high finding (at most 10), then one summary line. */
export function folderScanLines(result: FolderScan, colors: Paint, strict: boolean, folders: readonly string[]): string[] {
  if (result.withFindings === 0) return [];
  const label = strict ? colors.red('error') : colors.yellow('warning');
  const lines: string[] = [];
  for (const skill of result.high.slice(0, 10))
    for (const line of skill.lines) lines.push(`skillport: ${label}: ${escapeControls(displayPath(skill.dir))}/${escapeControls(line)} (scan: high)`);
  lines.push(
    `skillport: ${label}: scan: ${plural(result.withFindings, 'skill has', 'skills have')} findings, ${result.high.length} of them high (${strict ? 'refused: --strict' : 'served as they are'}); \`skillport scan ${folders.map((folder) => displayPath(folder)).join(' ')}\` lists them`,
  );
  return lines;
}
