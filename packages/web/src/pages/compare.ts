import { diffLines } from 'diff';
import type { CatalogSkill } from '@skillport/server';
import { RenderCache } from '../cache.js';
import { formatSize, html, trusted, escapeHtml } from '../html.js';
import type { Html } from '../html.js';
import { skillPath } from '../urls.js';

/**
 * Two versions side by side: which files were added, removed or changed (by digest), and a line diff of each
 * changed text file (the `diff` package), with unchanged runs folded to a few lines of context. A diff runs on the
 * main thread, so it is bounded (docs/decisions/0185-bounded-diff-and-render.md): Myers' algorithm costs about
 * (lines) x (edits), and past MAX_DIFF_EDITS changed lines (or DIFF_TIMEOUT_MS) the page says the files differ and
 * by how many lines instead. Diffs are kept by digest pair, so a page viewed again costs no diff at all.
 */
export interface FileChange {
  path: string;
  status: 'added' | 'removed' | 'changed' | 'same';
  from?: { size: number; digest: string };
  to?: { size: number; digest: string };
  /** The line diff (or why there is none), when both sides are text and small enough to diff. */
  diff?: Html;
}

const CONTEXT = 3;
/** Beyond this many lines on a side, a diff is not rendered (the page would be too heavy to read anyway). */
const MAX_DIFF_LINES = 20_000;
/** Lines added plus removed a diff may find before it gives up: about 25 ms of work at 8,000 lines a side, 65 ms at 20,000 (quiet machine). */
export const MAX_DIFF_EDITS = 500;
/** A second bound, should a machine be slow enough for the edit bound to take longer than this. */
const DIFF_TIMEOUT_MS = 50;
/** Rendered diffs by digest pair: 8 MiB in all, none over 1 MiB kept. */
const diffs = new RenderCache(8 * 1024 * 1024, 1024 * 1024);

/**
 * Bytes of both sides a compare page diffs in all, and characters of diff it shows: beyond either, files are listed
 * as changed without their lines (512 small files each rewritten would otherwise make tens of megabytes of rows).
 */
export const MAX_PAGE_DIFF_BYTES = 4 * 1024 * 1024;
export const MAX_PAGE_DIFF_HTML = 2 * 1024 * 1024;

export function pageFullNote(): Html {
  return html`<p class="note">Changed; not compared line by line here: this page already shows as many line changes as it can.</p>`;
}

export function diffCacheStats(): { hits: number; misses: number; bytes: number } {
  return { hits: diffs.hits, misses: diffs.misses, bytes: diffs.bytes };
}

export function changedFiles(from: CatalogSkill, to: CatalogSkill): FileChange[] {
  const before = new Map(from.files.map((file) => [file.path, file]));
  const after = new Map(to.files.map((file) => [file.path, file]));
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  return paths.map((path) => {
    const a = before.get(path);
    const b = after.get(path);
    const status = a === undefined ? 'added' : b === undefined ? 'removed' : a.digest === b.digest ? 'same' : 'changed';
    return { path, status, ...(a ? { from: { size: a.size, digest: a.digest } } : {}), ...(b ? { to: { size: b.size, digest: b.digest } } : {}) };
  });
}

export function compareBody(skill: CatalogSkill, fromVersion: string, toVersion: string, versions: string[], changes: FileChange[]): Html {
  const changed = changes.filter((change) => change.status !== 'same');
  const counts = ['added', 'removed', 'changed'].map((status) => `${changes.filter((c) => c.status === status).length} ${status}`).join(', ');
  return html`<nav class="crumbs" aria-label="Breadcrumb"><a href="/">Catalog</a> <span aria-hidden="true">/</span> <a href="${skillPath(skill)}">${skill.name}</a> <span aria-hidden="true">/</span> <span aria-current="page">compare</span></nav>
<h1>${skill.name}: ${fromVersion} → ${toVersion}</h1>
<form class="compare-form" method="get" action="${skillPath(skill)}/-/compare">
  <label>From <select name="from">${versions.map((v) => html`<option${v === fromVersion ? html` selected` : ''}>${v}</option>`)}</select></label>
  <label>To <select name="to">${versions.map((v) => html`<option${v === toVersion ? html` selected` : ''}>${v}</option>`)}</select></label>
  <button type="submit">Compare</button>
</form>
<section class="card wide" aria-labelledby="changes-h"><h2 id="changes-h">Files</h2>
<p class="note">${counts}, ${changes.length - changed.length} unchanged.</p>
<table class="changes"><thead><tr><th scope="col">File</th><th scope="col">Change</th><th scope="col">Size</th></tr></thead><tbody>
${changes.map((change) => html`<tr class="${change.status}"><th scope="row">${change.status === 'changed' ? html`<a href="#diff-${anchor(change.path)}">${change.path}</a>` : change.path}</th><td><span class="state ${change.status === 'same' ? 'muted' : change.status === 'removed' ? 'bad' : 'ok'}">${change.status === 'same' ? 'unchanged' : change.status}</span></td><td>${change.from ? formatSize(change.from.size) : '—'} → ${change.to ? formatSize(change.to.size) : '—'}</td></tr>`)}
</tbody></table></section>
${changed.filter((change) => change.status === 'changed').map((change) => html`<section class="card wide diff-card" aria-labelledby="diff-${anchor(change.path)}"><h2 id="diff-${anchor(change.path)}" tabindex="-1"><code>${change.path}</code></h2>${change.diff ?? html`<p class="note">Binary or too large to compare line by line: ${change.from?.digest} → ${change.to?.digest}</p>`}</section>`)}`;
}

function anchor(path: string): string {
  return path.replace(/[^A-Za-z0-9_-]/g, '_');
}

/**
 * A unified line diff as a table: old line number, new line number, the line; unchanged runs folded. With
 * `digests`, kept by that pair (the same two files always give the same diff).
 */
export function lineDiff(from: string, to: string, digests?: { from: string; to: string }): Html {
  if (digests === undefined) return trusted(renderLineDiff(from, to).text);
  const key = `${digests.from}\0${digests.to}`;
  const kept = diffs.get(key);
  if (kept !== undefined) return trusted(kept);
  const rendered = renderLineDiff(from, to);
  // A diff cut short by the clock says more of the machine's load than of the files: the next view tries again.
  if (!rendered.timedOut) diffs.set(key, rendered.text);
  return trusted(rendered.text);
}

/** What `renderLineDiff` says when the time bound, not the edit bound, stopped the diff. */
export const DIFF_TIMED_OUT = 'comparing them line by line took longer than this page allows; reload to try again';

function lineCount(text: string): number {
  let count = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

function renderLineDiff(from: string, to: string): { text: string; timedOut: boolean } {
  const fromLines = lineCount(from);
  const toLines = lineCount(to);
  const sizes = `${fromLines.toLocaleString('en-US')} line${fromLines === 1 ? '' : 's'} → ${toLines.toLocaleString('en-US')} line${toLines === 1 ? '' : 's'}`;
  if (fromLines > MAX_DIFF_LINES || toLines > MAX_DIFF_LINES)
    return { text: html`<p class="note">The files differ (${sizes}): too many lines to show a diff.</p>`.text, timedOut: false };
  const started = performance.now();
  const parts = diffLines(from, to, { maxEditLength: MAX_DIFF_EDITS, timeout: DIFF_TIMEOUT_MS });
  if (parts === undefined) {
    // diffLines gives up the same way on either bound; the clock tells which one it was.
    if (performance.now() - started >= DIFF_TIMEOUT_MS)
      return { text: html`<p class="note">The files differ (${sizes}): ${DIFF_TIMED_OUT}.</p>`.text, timedOut: true };
    return {
      text: html`<p class="note">The files differ (${sizes}): more than ${MAX_DIFF_EDITS.toLocaleString('en-US')} lines changed, too many to show line by line here.</p>`
        .text,
      timedOut: false,
    };
  }
  const rows: string[] = [];
  let oldLine = 1;
  let newLine = 1;
  const row = (kind: 'add' | 'del' | 'ctx', a: number | '', b: number | '', text: string) => {
    const sign = kind === 'add' ? '+' : kind === 'del' ? '−' : ' ';
    rows.push(
      `<tr class="${kind}"><td class="ln">${a}</td><td class="ln">${b}</td><td class="sign" aria-hidden="true">${sign}</td><td class="line"><span class="visually-hidden">${kind === 'add' ? 'added: ' : kind === 'del' ? 'removed: ' : ''}</span>${escapeHtml(text)}</td></tr>`,
    );
  };
  parts.forEach((part, index) => {
    const lines = part.value.replace(/\n$/, '').split('\n');
    if (part.added) {
      for (const line of lines) row('add', '', newLine++, line);
    } else if (part.removed) {
      for (const line of lines) row('del', oldLine++, '', line);
    } else {
      const first = index === 0;
      const last = index === parts.length - 1;
      const keepHead = first ? 0 : CONTEXT;
      const keepTail = last ? 0 : CONTEXT;
      if (lines.length <= keepHead + keepTail + 1) {
        for (const line of lines) row('ctx', oldLine++, newLine++, line);
      } else {
        for (const line of lines.slice(0, keepHead)) row('ctx', oldLine++, newLine++, line);
        const skipped = lines.length - keepHead - keepTail;
        rows.push(
          `<tr class="fold"><td class="ln"></td><td class="ln"></td><td class="sign"></td><td class="line">⋯ ${skipped} unchanged line${skipped === 1 ? '' : 's'}</td></tr>`,
        );
        oldLine += skipped;
        newLine += skipped;
        for (const line of lines.slice(lines.length - keepTail)) row('ctx', oldLine++, newLine++, line);
      }
    }
  });
  if (rows.length === 0) return { text: html`<p class="note">No line changed (only line endings or encoding).</p>`.text, timedOut: false };
  return {
    text: html`<div class="table-wrap" tabindex="0"><table class="diff"><caption class="visually-hidden">Line changes</caption><thead class="visually-hidden"><tr><th scope="col">Old line</th><th scope="col">New line</th><th scope="col">Change</th><th scope="col">Text</th></tr></thead><tbody>${trusted(rows.join(''))}</tbody></table></div>`
      .text,
    timedOut: false,
  };
}
