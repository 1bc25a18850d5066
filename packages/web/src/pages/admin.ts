import type { AuditEvent, TokenRecord } from '@skillport/server';
import { html } from '../html.js';
import type { PendingReview } from '../versions.js';
import type { Html } from '../html.js';

/** Pages for `admin` principals: the audit log, the tokens (revocable), the policy in force. */
function tabs(current: 'audit' | 'tokens' | 'policy' | 'review'): Html {
  const tab = (id: typeof current, label: string) => html`<a href="/admin/${id}"${current === id ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="tabs" aria-label="Admin">${tab('review', 'Review')}${tab('audit', 'Audit log')}${tab('tokens', 'Tokens')}${tab('policy', 'Policy')}</nav>`;
}

/**
 * The review queue (ADR 0231): each version waiting, why it waits, its findings, and approve / reject forms (a
 * reason is required to reject), each with the CSRF field.
 */
export function reviewBody(
  pending: PendingReview[] | undefined,
  csrf: string,
  notice: string | undefined,
  where: { admin: boolean; action: string } = { admin: true, action: '/admin/review/decide' },
): Html {
  return html`${where.admin ? html`<h1>Admin</h1>${tabs('review')}` : html`<h1>Review</h1>`}
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
${
  pending === undefined
    ? html`<p class="empty">No registry: the server was started without <code>--data DIR</code>.</p>`
    : pending.length === 0
      ? html`<p class="empty">Nothing is waiting for review.</p>`
      : pending.map(
          (item) => html`<section class="card wide review" aria-label="${item.name}@${item.version}"><h2>${item.name}@${item.version}</h2>
<p class="meta">published ${item.publishedAt} by ${item.publisher}</p>
${item.reasons.length > 0 ? html`<ul class="reasons">${item.reasons.map((reason) => html`<li>Held: ${reason}</li>`)}</ul>` : ''}
${findingsTable(item.findings)}
${
  item.decidable === false
    ? html`<p class="note">Waiting for a reviewer of ${item.name}: you published it, and may not review it.</p>`
    : html`<form method="post" action="${where.action}" class="decide"><input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="name" value="${item.name}"><input type="hidden" name="version" value="${item.version}">
<label>Reason <input type="text" name="reason" maxlength="500" aria-label="Reason for ${item.name}@${item.version}"></label>
<button type="submit" name="decision" value="approved" aria-label="Approve ${item.name}@${item.version}">Approve</button>
<button type="submit" name="decision" value="rejected" class="danger" aria-label="Reject ${item.name}@${item.version}">Reject</button></form>`
}</section>`,
        )
}`;
}

/** Findings as a table: severity, rule, where, the excerpt (already escaped for display), why. */
export function findingsTable(findings: PendingReview['findings'] | undefined): Html | string {
  if (findings === undefined || findings.length === 0) return html`<p class="note">The scan found nothing.</p>`;
  return html`<div class="table-wrap" tabindex="0"><table class="findings"><thead><tr><th scope="col">Severity</th><th scope="col">Rule</th><th scope="col">Where</th><th scope="col">Excerpt</th><th scope="col">Why</th></tr></thead><tbody>
${findings.map((f) => html`<tr><td><span class="state ${f.severity === 'high' ? 'bad' : f.severity === 'medium' ? 'warn' : 'ok'}">${f.severity}</span></td><td><code>${f.rule}</code><br>${f.title}</td><td><code>${f.file}${f.line > 0 ? `:${f.line}` : ''}</code></td><td><code>${f.excerpt}</code></td><td>${f.why}${f.note ? html`<br><span class="muted">${f.note}</span>` : ''}</td></tr>`)}
</tbody></table></div>`;
}

export interface AuditFilters {
  user: string;
  skill: string;
  since: string;
  until: string;
}

export function auditBody(filters: AuditFilters, events: AuditEvent[] | undefined, error: string | undefined, limit: number): Html {
  return html`<h1>Admin</h1>${tabs('audit')}
<form class="filters audit-filters" method="get" action="/admin/audit">
  <label>User <input type="text" name="user" value="${filters.user}" maxlength="128"></label>
  <label>Skill <input type="text" name="skill" value="${filters.skill}" maxlength="500" placeholder="name or URI"></label>
  <label>Since <input type="text" name="since" value="${filters.since}" maxlength="40" placeholder="2h, 7d or 2026-11-30T10:00"></label>
  <label>Until <input type="text" name="until" value="${filters.until}" maxlength="40" placeholder="ISO time"></label>
  <button type="submit">Filter</button>
</form>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
${
  events === undefined
    ? html`<p class="empty">No audit log: the server was started without <code>--data DIR</code>.</p>`
    : events.length === 0
      ? html`<p class="empty">No event matches.</p>`
      : html`<p class="note">${events.length} event${events.length === 1 ? '' : 's'}, newest first${events.length >= limit ? ` (the latest ${limit})` : ''}.</p>
<div class="table-wrap" tabindex="0"><table class="audit"><thead><tr><th scope="col">Time</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Surface</th><th scope="col">Skill</th><th scope="col">File</th><th scope="col">Outcome</th></tr></thead><tbody>
${events.map((event) => html`<tr><td><time datetime="${event.time}">${event.time.replace('T', ' ').slice(0, 19)}</time></td><td>${event.principal}</td><td>${event.action}</td><td>${event.surface}</td><td>${event.skill ?? event.uri ?? ''}${event.version ? html` <span class="muted">${event.version}</span>` : ''}</td><td>${event.file ?? ''}</td><td><span class="state ${event.outcome === 'ok' ? 'ok' : 'warn'}">${event.outcome}</span>${event.detail ? html` <span class="muted">${event.detail}</span>` : ''}</td></tr>`)}
</tbody></table></div>`
}`;
}

export function tokensBody(tokens: TokenRecord[] | undefined, csrf: string, notice: string | undefined): Html {
  return html`<h1>Admin</h1>${tabs('tokens')}
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
${
  tokens === undefined
    ? html`<p class="empty">No token store: the server was started without <code>--data DIR</code>.</p>`
    : tokens.length === 0
      ? html`<p class="empty">No tokens. Make one with <code>skillport token create --data DIR --user NAME</code>.</p>`
      : html`<div class="table-wrap" tabindex="0"><table class="tokens"><thead><tr><th scope="col">Id</th><th scope="col">User</th><th scope="col">Subjects</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead><tbody>
${tokens.map((token) => html`<tr><td><code>${token.id}</code>${token.description ? html`<br><span class="muted">${token.description}</span>` : ''}</td><td>${token.user}</td><td>${[...token.orgs.map((o) => `org:${o}`), ...token.projects.map((p) => `project:${p}`), ...(token.agent ? [`agent:${token.agent}`] : [])].join(', ') || '—'}</td><td>${token.scopes.join(', ')}</td><td>${token.createdAt.slice(0, 10)}</td><td>${token.expiresAt?.slice(0, 10) ?? 'never'}</td><td>${token.revokedAt ? html`<span class="state bad">revoked</span>` : token.expiresAt && Date.parse(token.expiresAt) < Date.now() ? html`<span class="state warn">expired</span>` : html`<span class="state ok">active</span>`}</td><td>${token.revokedAt ? '' : html`<form method="post" action="/admin/tokens/revoke"><input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="id" value="${token.id}"><button type="submit" class="danger" aria-label="Revoke token ${token.id} of ${token.user}">Revoke</button></form>`}</td></tr>`)}
</tbody></table></div>`
}`;
}

export function policyBody(text: string | undefined, summary: { open: boolean }): Html {
  return html`<h1>Admin</h1>${tabs('policy')}
${
  text === undefined
    ? html`<p class="empty">No policy file: the server was started without <code>--policy FILE</code>, so every skill is visible to every caller${summary.open ? '' : ''}.</p>`
    : html`<p class="note">The policy in force (reloaded when its file changes; edit it there or with <code>PUT /api/v1/admin/policy</code>).</p><pre class="code" tabindex="0" aria-label="Policy file"><code>${text}</code></pre>`
}`;
}
