import type { CatalogFile, CatalogSkill } from '@skillport/server';
import { formatSize, html } from '../html.js';
import type { Html } from '../html.js';
import { rawPath, skillPath } from '../urls.js';

/**
 * A file's page. Text is shown as text (escaped, in a <pre>), whatever its type: an HTML or SVG file is never
 * rendered from the catalog's origin. Anything else is offered as a download.
 */
const MAX_SHOWN = 512 * 1024;

export function fileBody(skill: CatalogSkill, file: CatalogFile, text: string | undefined): Html {
  const lines = text === undefined ? 0 : text.split('\n').length;
  return html`<nav class="crumbs" aria-label="Breadcrumb"><a href="/">Catalog</a> <span aria-hidden="true">/</span> <a href="${skillPath(skill)}">${skill.name}</a> <span aria-hidden="true">/</span> <span aria-current="page">${file.path}</span></nav>
<header class="file-head">
  <h1 class="path">${file.path}</h1>
  <p class="meta"><span class="pill">${file.mimeType}</span> <span>${formatSize(file.size)}</span> <code class="digest">${file.digest}</code></p>
  <p><a class="button" href="${rawPath(skill, file)}" download>Download</a></p>
</header>
${
  text === undefined
    ? html`<p class="empty">This file is binary: download it to open it.</p>`
    : text.length > MAX_SHOWN
      ? html`<p class="empty">This file is too large to show here (${formatSize(file.size)}): download it.</p>`
      : html`<p class="note">${lines} line${lines === 1 ? '' : 's'}</p><pre class="code file-text" tabindex="0" aria-label="Contents of ${file.path}"><code>${text}</code></pre>`
}`;
}

/**
 * How a file's bytes are sent: always as an attachment, under a type that cannot render in the catalog's origin
 * (text as text/plain, markup and scripts as octet-stream), with a sandboxing CSP. Raster images (png, jpeg, gif,
 * webp) may be shown inline, for images in SKILL.md.
 */
export function rawHeaders(file: CatalogFile, isText: boolean, inline: boolean): Record<string, string> {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  const image = /^image\/(png|jpeg|gif|webp)$/.test(file.mimeType);
  const type = image ? file.mimeType : isText ? 'text/plain; charset=utf-8' : 'application/octet-stream';
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return {
    'content-type': type,
    'content-disposition': `${inline && image ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    'content-security-policy': "default-src 'none'; sandbox",
    'x-content-type-options': 'nosniff',
    'cross-origin-resource-policy': 'same-origin',
    etag: `"${file.digest.slice(7, 39)}"`,
  };
}
