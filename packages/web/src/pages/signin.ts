import { html } from '../html.js';
import type { Html } from '../html.js';

export function signinBody(csrf: string, next: string, error: string | undefined, mode: string): Html {
  return html`<section class="narrow card signin">
<h1>Sign in</h1>
<p>Paste a ${mode === 'jwt' ? 'JSON Web Token' : html`token made with <code>skillport token create</code>`}. You will see the skills it may see, as an MCP client with the same token would.</p>
${error ? html`<p class="error" role="alert" id="signin-error">${error}</p>` : ''}
<form method="post" action="/signin">
  <input type="hidden" name="_csrf" value="${csrf}">
  <input type="hidden" name="next" value="${next}">
  <label for="token">Token</label>
  <input type="password" id="token" name="token" autocomplete="current-password" required maxlength="8192"${error ? html` aria-describedby="signin-error" aria-invalid="true"` : ''}>
  <button type="submit">Sign in</button>
</form>
<p class="note">The token is kept in an HttpOnly cookie for this site only; sign out to forget it.</p>
</section>`;
}
