import type { Principal } from '@skillport/server';
import { html } from './html.js';
import type { Html } from './html.js';

/** Who is looking at a page, as the layout needs it. */
export interface Viewer {
  principal: Principal;
  /** Sign-in exists (--auth tokens or jwt). */
  authRequired: boolean;
  /** Signed in with the session cookie (so a sign-out button makes sense). */
  signedIn: boolean;
  admin: boolean;
  /** May open the review queue: a registry is served and the caller may publish or review (a publisher sees its own held versions). */
  reviewer: boolean;
  csrf: string;
  title: string;
}

export interface PageParts {
  title: string;
  body: Html;
  /** Marks the current section in the header. */
  section?: 'catalog' | 'admin' | 'review' | 'signin';
}

/** The page shell: header with the catalog and admin links, who is signed in, the body, one script, one stylesheet. */
export function layout(viewer: Viewer, parts: PageParts): Html {
  const who = viewer.principal.user ?? viewer.principal.agent;
  const account = !viewer.authRequired
    ? html``
    : viewer.signedIn
      ? html`<form method="post" action="/signout" class="signout"><input type="hidden" name="_csrf" value="${viewer.csrf}"><span class="who">${who ?? 'signed in'}</span> <button type="submit" class="link">Sign out</button></form>`
      : html`<a href="/signin">Sign in</a>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.title} · ${viewer.title}</title>
<link rel="stylesheet" href="/assets/app.css">
<script src="/assets/app.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <div class="bar">
    <a class="brand" href="/"><span class="logo" aria-hidden="true">◆</span> ${viewer.title}</a>
    <nav aria-label="Sections">
      <a href="/"${parts.section === 'catalog' ? html` aria-current="page"` : ''}>Catalog</a>
      ${viewer.reviewer ? html`<a href="/review"${parts.section === 'review' ? html` aria-current="page"` : ''}>Review</a>` : ''}
      ${viewer.admin ? html`<a href="/admin/audit"${parts.section === 'admin' ? html` aria-current="page"` : ''}>Admin</a>` : ''}
    </nav>
    <div class="account">${account}</div>
  </div>
</header>
<main id="main" tabindex="-1">
${parts.body}
</main>
<footer class="foot"><p>Served by skillport · skills over MCP at <code>/mcp</code></p></footer>
</body>
</html>`;
}

/** A short error page body (404, 403, 400): the same words for a hidden skill as for a missing one. */
export function errorBody(status: number, message: string): Html {
  const heading = status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : status === 400 ? 'Bad request' : 'Something went wrong';
  return html`<section class="narrow"><h1>${heading}</h1><p>${message}</p><p><a href="/">Back to the catalog</a></p></section>`;
}
