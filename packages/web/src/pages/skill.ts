import { availabilitySummary, splitFrontmatter } from '@skillport/core';
import type { Availability } from '@skillport/core';
import type { CatalogFile, CatalogSkill } from '@skillport/server';
import { META_PROVENANCE, pendingOf } from '@skillport/server';
import { originKind, tagsOf } from '../catalog.js';
import { formatSize, html, trusted } from '../html.js';
import type { Html } from '../html.js';
import { RenderCache } from '../cache.js';
import { renderMarkdown } from '../markdown.js';
import type { RenderedMarkdown } from '../markdown.js';
import { PART_CHARS, markdownParts } from '../parts.js';
import type { MarkdownPart } from '../parts.js';
import { filePath, rawPath, resolveRelative, skillPath } from '../urls.js';
import type { VersionInfo } from '../versions.js';
import { findingsTable } from './admin.js';

/**
 * A skill's page: SKILL.md rendered (untrusted: see markdown.ts), an outline of its headings, the frontmatter as a
 * table, its files as a tree (size, digest, view or download), its versions when a registry serves it, and a
 * "use it" panel with the lines to copy.
 */
export interface SkillPageInput {
  skill: CatalogSkill;
  versions: VersionInfo[] | undefined;
  /** The listed skill's own version, when it has one. */
  version: string | undefined;
  /** Exact-version page addresses, by version. */
  versionPaths: Map<string, string>;
  mcpUrl: string;
  authRequired: boolean;
  /** Where the compare form posts (GET) to. */
  comparePath: string;
  /** SKILL.md as shown (renderSkillPart); undefined when it is not text. */
  shown: ShownPart | undefined;
  /** For a signed-in caller: whether the skill's requirements are met by what the policy grants it. */
  availability?: Availability | undefined;
  /** What the registry's scan found in the shown version (ADR 0230); undefined when it was not scanned. */
  scan?: VersionInfo['scan'];
  /** Skills of the caller's view whose name or description is very close (never one it cannot see). */
  similar?: Array<{ name: string; path: string; similarity: number; reason: string }>;
}

/** Outline entries listed beside the text; the rest are counted (a part may hold 2,000 headings). */
const MAX_OUTLINE = 300;
/**
 * Rendered SKILL.md parts by package digest and address (the same bytes at the same place render the same), 16 MiB
 * in all; the parts of each body, so a long body is scanned once.
 */
const rendered = new RenderCache<RenderedMarkdown>(16 * 1024 * 1024, 2 * 1024 * 1024, (value) => value.html.length * 2 + value.outline.length * 96);
const partsOf = new RenderCache<MarkdownPart[]>(1024 * 1024, 64 * 1024, (parts) => parts.length * 48 + 64);

export function renderCacheStats(): { hits: number; misses: number; bytes: number } {
  return { hits: rendered.hits, misses: rendered.misses, bytes: rendered.bytes };
}

/** What the skill page shows of SKILL.md: one part of its body rendered, and how many parts there are. */
export interface ShownPart {
  rendered: RenderedMarkdown;
  part: number;
  parts: number;
}

/**
 * Part `wanted` (from 1; past the last: the last) of a skill's SKILL.md rendered, from the cache when viewed before;
 * undefined when SKILL.md is not text. The parts are found without holding the event loop (parts.ts); one part is
 * rendered in one go, which its bounds keep to tens of milliseconds.
 */
export async function renderSkillPart(skill: CatalogSkill, text: string | undefined, wanted: number): Promise<ShownPart | undefined> {
  if (text === undefined) return undefined;
  const body = splitFrontmatter(text, Number.MAX_SAFE_INTEGER).body;
  const key = `${skill.packageDigest}\0${skillPath(skill)}`;
  let found = partsOf.get(key);
  if (found === undefined) {
    found = await markdownParts(body);
    partsOf.set(key, found);
  }
  const part = Math.min(Math.max(1, Number.isSafeInteger(wanted) ? wanted : 1), found.length);
  const { start, end, carry } = found[part - 1]!;
  const value = rendered.through(`${key}\0${part}`, () =>
    renderMarkdown(carry + body.slice(start, end), {
      fileHref: (relative) => {
        const file = resolveRelative(skill, relative);
        return file ? filePath(skill, file) : undefined;
      },
      rawHref: (relative) => {
        const file = resolveRelative(skill, relative);
        return file && /^image\/(png|jpeg|gif|webp)$/.test(file.mimeType) ? rawPath(skill, file) : undefined;
      },
    }),
  );
  return { rendered: value, part, parts: found.length };
}

function partsNav(skill: CatalogSkill, part: number, parts: number, where: 'top' | 'bottom'): Html {
  if (parts <= 1) return html``;
  const manifest = skill.files.find((file) => file.uri === skill.uri);
  const link = (n: number) => (n === 1 ? skillPath(skill) : `${skillPath(skill)}?part=${n}`);
  return html`<nav class="pager parts" aria-label="Parts of SKILL.md (${where})">
  ${part > 1 ? html`<a href="${link(part - 1)}" rel="prev">← Previous part</a>` : html`<span></span>`}
  <span>Part ${part} of ${parts}${manifest ? html` · SKILL.md is ${formatSize(manifest.size)}, shown in parts of up to ${formatSize(PART_CHARS)} · <a href="${rawPath(skill, manifest)}" download>download it whole</a>` : ''}</span>
  ${part < parts ? html`<a href="${link(part + 1)}" rel="next">Next part →</a>` : html`<span></span>`}
</nav>`;
}

export function skillBody(input: SkillPageInput): Html {
  const { skill } = input;
  const shown = input.shown;
  const rendered = shown?.rendered;
  const tags = tagsOf(skill);
  return html`<nav class="crumbs" aria-label="Breadcrumb"><a href="/">Catalog</a> <span aria-hidden="true">/</span> <span aria-current="page">${skill.name}</span></nav>
<header class="skill-head">
  <h1>${skill.name}${input.version !== undefined ? html` <span class="badge">v${input.version}</span>` : ''}</h1>
  <p class="lede">${skill.description}</p>
  <p class="meta">${pendingOf(skill) !== undefined ? html`<span class="state warn" title="${pendingOf(skill)!}">pending review, not approved</span> ` : ''}<span class="pill">${originKind(skill)}</span> ${tags.map((tag) => html`<a class="pill tag" href="/?tag=${encodeURIComponent(tag)}">${tag}</a> `)}<span class="digest" title="Package digest">${skill.packageDigest}</span></p>
  ${gitSource(skill)}
</header>
<div class="skill-grid">
  <article class="doc" aria-label="SKILL.md">
    ${shown === undefined ? html`<p class="empty">SKILL.md cannot be shown as text.</p>` : html`${partsNav(skill, shown.part, shown.parts, 'top')}<div class="markdown">${trusted(shown.rendered.html)}</div>${partsNav(skill, shown.part, shown.parts, 'bottom')}`}
  </article>
  <aside class="side">
    ${rendered !== undefined && rendered.outline.length > 1 ? html`<section class="card" aria-labelledby="outline-h"><h2 id="outline-h">Outline</h2><ol class="outline">${rendered.outline.slice(0, MAX_OUTLINE).map((item) => html`<li class="lvl-${Math.min(item.level, 4)}"><a href="#${item.id}">${item.text}</a></li>`)}</ol>${rendered.outline.length > MAX_OUTLINE ? html`<p class="note">and ${(rendered.outline.length - MAX_OUTLINE).toLocaleString('en-US')} more headings${shown !== undefined && shown.parts > 1 ? ' in this part' : ''}</p>` : ''}</section>` : ''}
    ${requirementsPanel(input)}
    ${usePanel(input)}
  </aside>
</div>
<section class="card wide" aria-labelledby="files-h"><h2 id="files-h">Files</h2>${fileTree(skill)}</section>
<section class="card wide" aria-labelledby="fm-h"><h2 id="fm-h">Frontmatter</h2>${frontmatterTable(skill.frontmatter)}</section>
<section class="card wide" aria-labelledby="versions-h"><h2 id="versions-h">Versions</h2>${versionsSection(input)}</section>
${input.scan !== undefined ? html`<section class="card wide" aria-labelledby="scan-h"><h2 id="scan-h">Scan</h2>${scanSummaryLine(input.scan.counts)}${findingsTable(input.scan.findings)}</section>` : ''}
${input.similar !== undefined && input.similar.length > 0 ? html`<section class="card wide" aria-labelledby="similar-h"><h2 id="similar-h">Similar skills</h2><p class="note">Very close in name or description: an agent may pick one for the other.</p><ul class="similar">${input.similar.map((s) => html`<li><a href="${s.path}">${s.name}</a> <span class="muted">${s.similarity.toFixed(2)} by ${s.reason}</span></li>`)}</ul></section>` : ''}`;
}

function scanSummaryLine(counts: { low: number; medium: number; high: number }): Html {
  const parts = (['high', 'medium', 'low'] as const).filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}`);
  return html`<p class="meta">The registry scanned this version at publish: ${parts.length > 0 ? parts.join(', ') : 'nothing found'}.</p>`;
}

/** What the skill needs (MCP servers, tools, scopes, agents; allowed tools and compatibility as written) and, signed in, whether the caller has it. */
function requirementsPanel(input: SkillPageInput): Html | string {
  const req = input.skill.requirements;
  if (req === undefined) return '';
  const row = (label: string, values: readonly string[]) =>
    values.length === 0 ? '' : html`<dt>${label}</dt><dd>${values.map((value) => html`<code>${value}</code> `)}</dd>`;
  const servers = req.mcpServers.map((server) => (server.url !== undefined ? `${server.name} (${server.url})` : server.name));
  const status = input.availability;
  const readiness =
    status === undefined
      ? ''
      : html`<p class="readiness ${status.status}" data-status="${status.status}"><strong>For you:</strong> ${
          status.status === 'unknown' ? 'not known here (your host decides whether it has what this skill needs)' : availabilitySummary(status)
        }</p>`;
  return html`<section class="card" aria-labelledby="req-h"><h2 id="req-h">Requirements</h2>${readiness}<dl class="requirements">${row('MCP servers', servers)}${row('Tools', req.tools)}${row('Scopes', req.scopes)}${row('Agents', req.agents)}${row('Allowed tools', req.allowedTools)}${req.compatibility !== undefined ? html`<dt>Compatibility</dt><dd>${req.compatibility}</dd>` : ''}</dl><p class="note">Read from ${req.sources.join(', ')}.</p></section>`;
}

function usePanel(input: SkillPageInput): Html {
  const { skill } = input;
  const httpConfig = JSON.stringify(
    { mcpServers: { skillport: { type: 'http', url: input.mcpUrl, ...(input.authRequired ? { headers: { Authorization: 'Bearer <your token>' } } : {}) } } },
    null,
    2,
  );
  // Commands as they run today: `skillport` is on PATH after `npm install -g ./packages/cli` in a clone (the package
  // is not on the npm registry, so `npx skillport` would fetch nothing). A server with tokens needs one with each.
  const base = input.mcpUrl.replace(/\/mcp$/, '');
  const install = [
    ...(input.authRequired ? [`echo "<your token>" | skillport login ${base}`] : []),
    `skillport install ${base} ${skill.name} --agent claude-code`,
  ].join('\n');
  const stdioConfig = JSON.stringify({ mcpServers: { skills: { command: 'skillport', args: ['serve', '.claude/skills'] } } }, null, 2);
  const block = (id: string, label: string, text: string, note?: string) => html`<div class="copy-block">
  <div class="copy-head"><h3 id="${id}-h">${label}</h3><button type="button" class="copy" data-copy="${id}" aria-describedby="${id}-h">Copy</button></div>
  ${note ? html`<p class="note">${note}</p>` : ''}
  <pre class="code" id="${id}" tabindex="0"><code>${text}</code></pre>
</div>`;
  return html`<section class="card use" aria-labelledby="use-h"><h2 id="use-h">Use it</h2>
<p class="note">The commands need <code>skillport</code> on your PATH: <code>npm install -g ./packages/cli</code> in a clone of skillport (or run <code>node &lt;clone&gt;/packages/cli/bin/skillport.js</code> in its place).</p>
${block('use-install', 'Install into a project', install, `Writes the verified files into .claude/skills (--agent codex, cursor… for others; skillport agents lists them) and records them in skillport-lock.json.${input.authRequired ? ' This server needs a token: login stores it for every later command.' : ''}`)}
${block('use-http', 'MCP client over HTTP', httpConfig, 'Every skill here, read live from this server.')}
${block('use-stdio', 'MCP client over stdio', stdioConfig, 'Serves the installed folder to a local agent.')}
</section>`;
}

interface TreeNode {
  dirs: Map<string, TreeNode>;
  files: CatalogFile[];
}

function fileTree(skill: CatalogSkill): Html {
  const root: TreeNode = { dirs: new Map(), files: [] };
  for (const file of skill.files) {
    const parts = file.path.split('/');
    let node = root;
    for (const dir of parts.slice(0, -1)) {
      let next = node.dirs.get(dir);
      if (next === undefined) {
        next = { dirs: new Map(), files: [] };
        node.dirs.set(dir, next);
      }
      node = next;
    }
    node.files.push(file);
  }
  const renderNode = (node: TreeNode): Html =>
    html`<ul class="tree">${[...node.dirs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, child]) => html`<li class="dir"><span class="dir-name">${name}/</span>${renderNode(child)}</li>`)}${node.files.map(
      (file) => {
        const name = file.path.slice(file.path.lastIndexOf('/') + 1);
        return html`<li class="file"><a href="${filePath(skill, file)}">${name}</a> <span class="size">${formatSize(file.size)}</span> <code class="digest" title="${file.digest}">${file.digest.slice(0, 19)}…</code> <a class="dl" href="${rawPath(skill, file)}" aria-label="Download ${file.path}">download</a></li>`;
      },
    )}</ul>`;
  return html`<p class="note">${skill.files.length} file${skill.files.length === 1 ? '' : 's'}, ${formatSize(skill.totalBytes)}.</p>${renderNode(root)}`;
}

function frontmatterTable(frontmatter: Record<string, unknown>): Html {
  const entries = Object.entries(frontmatter);
  if (entries.length === 0) return html`<p class="empty">No frontmatter.</p>`;
  const value = (item: unknown): Html => {
    if (item !== null && typeof item === 'object') return html`<pre class="code small"><code>${JSON.stringify(item, null, 2)}</code></pre>`;
    return html`${String(item)}`;
  };
  return html`<table class="kv"><thead><tr><th scope="col">Field</th><th scope="col">Value</th></tr></thead><tbody>${entries.map(([key, item]) => html`<tr><th scope="row">${key}</th><td>${value(item)}</td></tr>`)}</tbody></table>`;
}

function versionsSection(input: SkillPageInput): Html {
  const versions = input.versions;
  if (versions === undefined || versions.length === 0) {
    return html`<p class="empty">This skill is served from ${originKind(input.skill) === 'folder' ? 'a folder' : 'a source'} without published versions. Versions, signatures and reviews come from a registry (<code>skillport serve --data DIR</code>, <code>skillport publish</code>).</p>`;
  }
  const rows = versions.map((version) => {
    const status = version.revoked
      ? html`<span class="state bad">revoked</span> <span class="reason">${version.revoked.reason}</span>`
      : version.yankedAt
        ? html`<span class="state warn">yanked</span>`
        : html`<span class="state ok">available</span>`;
    const signature =
      version.signatures.length === 0
        ? html`<span class="state warn">unsigned</span>`
        : html`${version.signatures.map((sig) => html`<span class="state ${sig.trusted ? 'ok' : 'warn'}">${sig.trusted ? 'signed' : 'signed (untrusted key)'}</span> <code class="digest" title="${sig.keyId}">${sig.keyId.slice(0, 20)}…</code> `)}`;
    const path = input.versionPaths.get(version.version);
    const source = version.repository
      ? html`<span class="src">${version.repository}${version.commit ? html` @ <code>${version.commit.slice(0, 12)}</code>` : ''}</span>`
      : version.commit
        ? html`<code>${version.commit.slice(0, 12)}</code>`
        : html`<span class="muted">—</span>`;
    return html`<tr>
  <th scope="row">${path ? html`<a href="${path}">${version.version}</a>` : version.version}</th>
  <td>${version.tags.map((tag) => html`<span class="pill">${tag}</span> `)}</td>
  <td>${status}</td>
  <td>${signature}</td>
  <td>${version.publisher}<br><time datetime="${version.publishedAt}">${version.publishedAt.slice(0, 16).replace('T', ' ')}</time></td>
  <td>${source}</td>
  <td>${
    version.pending
      ? html`<span class="state warn">pending review, not approved</span>${version.pending.reviewable ? html` <a href="/review">Review</a>` : ''}`
      : html`<span class="state ${version.review === 'approved' ? 'ok' : version.review === 'rejected' ? 'bad' : 'muted'}">${version.review}</span>`
  }</td>
</tr>`;
  });
  const choices = versions.filter((version) => !version.revoked).map((version) => version.version);
  const compare =
    choices.length >= 2
      ? html`<form class="compare-form" method="get" action="${input.comparePath}">
  <label>From <select name="from">${choices.map((v, i) => html`<option${i === 1 ? html` selected` : ''}>${v}</option>`)}</select></label>
  <label>To <select name="to">${choices.map((v, i) => html`<option${i === 0 ? html` selected` : ''}>${v}</option>`)}</select></label>
  <button type="submit">Compare</button>
</form>`
      : html``;
  return html`<div class="table-wrap" tabindex="0"><table class="versions"><thead><tr><th scope="col">Version</th><th scope="col">Tags</th><th scope="col">Status</th><th scope="col">Signature</th><th scope="col">Published</th><th scope="col">Source</th><th scope="col">Review</th></tr></thead><tbody>${rows}</tbody></table></div>${compare}`;
}

export { skillPath };

/** Where a skill served from a git repository came from: repository, ref and commit (its `_meta` provenance). */
function gitSource(skill: CatalogSkill): Html | string {
  const meta = skill.entry._meta as Record<string, unknown> | undefined;
  const provenance = meta?.[META_PROVENANCE] as Record<string, unknown> | undefined;
  if (skill.origin.kind !== 'stored' || !skill.origin.source.startsWith('git:') || typeof provenance?.['commit'] !== 'string') return '';
  const plugin = meta?.['dev.skillport/plugin'] as Record<string, unknown> | undefined;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return html`<p class="meta source">From <span class="src">${text(provenance['repository'])}</span> <code>${text(provenance['ref']).replace(/^refs\/(heads|tags)\//, '')}</code> at <code title="${text(provenance['commit'])}">${text(provenance['commit']).slice(0, 12)}</code>${text(provenance['path']) ? html` in <code>${text(provenance['path'])}/</code>` : ''}${plugin ? html` · plugin <strong>${text(plugin['name'])}</strong>${text(plugin['version']) ? html` ${text(plugin['version'])}` : ''}` : ''}</p>`;
}
