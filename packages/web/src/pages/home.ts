import type { CatalogSkill, CatalogSnapshot } from '@skillport/server';
import { facets, tagsOf } from '../catalog.js';
import type { Filters, ListResult } from '../catalog.js';
import { html } from '../html.js';
import type { Html } from '../html.js';
import { skillPath } from '../urls.js';

/**
 * The home page: a search form (results as you type through /fragments/results, a plain GET without JavaScript),
 * filters by origin, folder and tag, and the catalog a page at a time.
 */
const ORIGIN_LABELS: Record<string, string> = { folder: 'Folders', registry: 'Registry', archive: 'Archives', remote: 'Remote hosts' };
const MAX_TAG_OPTIONS = 200;

export function homeBody(snapshot: CatalogSnapshot, filters: Filters, result: ListResult): Html {
  const found = facets(snapshot);
  const option = (value: string, label: string, selected: string) =>
    html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`;
  const tags = found.tags.slice(0, MAX_TAG_OPTIONS);
  // A tag chosen from a link that is not among the top ones still shows as chosen.
  if (filters.tag !== '' && !tags.some(([tag]) => tag === filters.tag)) tags.unshift([filters.tag, 0]);
  return html`<section class="hero">
  <h1>Skills</h1>
  <p class="lede">${snapshot.size} skill${snapshot.size === 1 ? '' : 's'} you can use. Search by what you want done.</p>
  <form class="search" role="search" method="get" action="/" id="search-form" data-fragment="/fragments/results">
    <div class="search-row">
      <label for="q" class="visually-hidden">Search skills</label>
      <input type="search" id="q" name="q" value="${filters.q}" placeholder="e.g. clean a CSV file, write release notes" autocomplete="off" spellcheck="false" maxlength="500">
      <button type="submit">Search</button>
    </div>
    <div class="filters">
      <label>Origin <select name="origin">${option('', 'Any origin', filters.origin)}${found.origins.map(([kind, count]) => option(kind, `${ORIGIN_LABELS[kind] ?? kind} (${count})`, filters.origin))}</select></label>
      ${found.folders.length > 0 ? html`<label>Folder <select name="folder">${option('', 'Any folder', filters.folder)}${found.folders.slice(0, MAX_TAG_OPTIONS).map(([folder, count]) => option(folder, `${folder} (${count})`, filters.folder))}</select></label>` : ''}
      ${tags.length > 0 ? html`<label>Tag <select name="tag">${option('', 'Any tag', filters.tag)}${tags.map(([tag, count]) => option(tag, count > 0 ? `${tag} (${count})` : tag, filters.tag))}</select></label>` : ''}
    </div>
  </form>
</section>
<div id="results" aria-live="polite">${resultsFragment(filters, result)}</div>`;
}

/** The result list with its paging: the whole of /fragments/results, and part of the home page. */
export function resultsFragment(filters: Filters, result: ListResult): Html {
  const summary =
    filters.q !== ''
      ? html`${result.total} result${result.total === 1 ? '' : 's'} for “${filters.q}”${result.ranked ? ', best match first' : ''}`
      : html`${result.total} skill${result.total === 1 ? '' : 's'}`;
  return html`<p class="summary" id="results-summary">${summary}${result.pages > 1 ? html` · page ${result.page} of ${result.pages}` : ''}</p>
${result.skills.length === 0 ? html`<p class="empty">No skill matches. Try other words, or clear the filters.</p>` : html`<ul class="skills" aria-labelledby="results-summary">${result.skills.map(skillItem)}</ul>`}
${pager(filters, result)}`;
}

function skillItem(skill: CatalogSkill): Html {
  const version = (skill.entry._meta as Record<string, unknown> | undefined)?.['dev.skillport/version'];
  return html`<li class="skill">
  <a class="skill-name" href="${skillPath(skill)}">${skill.name}</a>
  ${typeof version === 'string' ? html`<span class="badge">v${version}</span>` : ''}
  <p class="desc">${skill.description}</p>
  <p class="uri"><code>${skill.uri}</code>${tagsOf(skill)
    .slice(0, 4)
    .map((tag) => html` <span class="pill tag">${tag}</span>`)}${needsPills(skill)}</p>
</li>`;
}

/** The MCP servers, tools and scopes a skill needs, as small marks in the results (the skill page says more). */
function needsPills(skill: CatalogSkill): Html | string {
  const req = skill.requirements;
  if (req === undefined) return '';
  const needs = [
    ...req.mcpServers.map((server) => `MCP: ${server.name}`),
    ...req.tools.map((tool) => `tool: ${tool}`),
    ...req.scopes.map((scope) => `scope: ${scope}`),
  ];
  return html`${needs.slice(0, 3).map((need) => html` <span class="pill needs" title="Needs">${need}</span>`)}`;
}

function pager(filters: Filters, result: ListResult): Html {
  if (result.pages <= 1) return html``;
  const link = (page: number) => {
    const query = new URLSearchParams();
    if (filters.q) query.set('q', filters.q);
    if (filters.origin) query.set('origin', filters.origin);
    if (filters.folder) query.set('folder', filters.folder);
    if (filters.tag) query.set('tag', filters.tag);
    if (page > 1) query.set('page', String(page));
    const text = query.toString();
    return text === '' ? '/' : `/?${text}`;
  };
  return html`<nav class="pager" aria-label="Pages">
  ${result.page > 1 ? html`<a href="${link(result.page - 1)}" rel="prev">← Previous</a>` : html`<span></span>`}
  <span>Page ${result.page} of ${result.pages}</span>
  ${result.page < result.pages ? html`<a href="${link(result.page + 1)}" rel="next">Next →</a>` : html`<span></span>`}
</nav>`;
}
