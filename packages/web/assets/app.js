// skillport web catalog: the little script the pages use. Everything works without it (forms are plain GETs and
// POSTs); with it, search results follow the typing and code blocks get a working Copy button.
// Served from this origin as a file: the Content-Security-Policy allows no inline script.
(() => {
  'use strict';

  const form = document.getElementById('search-form');
  const results = document.getElementById('results');
  if (form && results) {
    const endpoint = form.getAttribute('data-fragment') || '/fragments/results';
    let timer = 0;
    let controller = null;
    let last = '';
    const params = () => {
      const query = new URLSearchParams();
      for (const [name, value] of new FormData(form)) if (typeof value === 'string' && value.trim() !== '') query.set(name, value.trim());
      return query.toString();
    };
    const refresh = () => {
      const query = params();
      if (query === last) return;
      last = query;
      if (controller) controller.abort();
      controller = new AbortController();
      results.setAttribute('aria-busy', 'true');
      fetch(`${endpoint}${query ? `?${query}` : ''}`, { signal: controller.signal, credentials: 'same-origin', headers: { accept: 'text/html' } })
        .then((response) => {
          if (!response.ok) throw new Error(String(response.status));
          return response.text();
        })
        .then((text) => {
          // The fragment is server-rendered HTML from this origin, built from escaped values only.
          results.innerHTML = text;
          results.removeAttribute('aria-busy');
          history.replaceState(null, '', query ? `/?${query}` : '/');
        })
        .catch((error) => {
          if (error && error.name === 'AbortError') return;
          results.removeAttribute('aria-busy');
          last = '';
        });
    };
    last = params();
    form.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(refresh, 120);
    });
    form.addEventListener('change', () => {
      clearTimeout(timer);
      refresh();
    });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      clearTimeout(timer);
      last = '';
      refresh();
    });
  }

  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.addEventListener('click', () => {
      const target = document.getElementById(button.getAttribute('data-copy') || '');
      if (!target) return;
      const text = target.textContent || '';
      const done = (ok) => {
        const label = button.textContent;
        button.textContent = ok ? 'Copied' : 'Select and copy';
        setTimeout(() => (button.textContent = label), 1500);
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(() => done(true), () => done(false));
      } else {
        const range = document.createRange();
        range.selectNodeContents(target);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        done(false);
      }
    });
  }
})();
