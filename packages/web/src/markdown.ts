import { UniqueNames } from '@skillport/core';
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';

/**
 * SKILL.md is untrusted: it is rendered with raw HTML off (tags come out as text), links limited to http(s), mailto,
 * fragments and relative paths (`javascript:`, `data:`, `vbscript:`, `file:` and anything else are dropped: the link
 * text stays, the link goes), images only from the skill itself (the page's CSP allows images from this origin
 * only), and no inline styles (table alignment becomes a class). Relative links and images point at the skill's
 * own files in the catalog. Headings get ids and make the outline.
 */
export interface RenderedMarkdown {
  html: string;
  outline: Array<{ level: number; text: string; id: string }>;
}

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
const SAFE_SCHEME = /^(https?:|mailto:)/i;

md.validateLink = (url: string): boolean => {
  const trimmed = url.trim();
  // A scheme is letters, digits, + . - then a colon before any / ? #: only the safe ones pass.
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed);
  if (scheme) return SAFE_SCHEME.test(trimmed);
  // Protocol-relative URLs leave the origin with whatever scheme the page has: refuse them too.
  return !trimmed.startsWith('//') && !trimmed.startsWith('\\\\');
};

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  const href = token.attrGet('href') ?? '';
  const context = env as RenderEnv;
  if (/^https?:/i.test(href)) {
    token.attrSet('rel', 'noopener noreferrer nofollow');
  } else if (!href.startsWith('#') && !/^mailto:/i.test(href)) {
    token.attrSet('href', context.fileHref(href) ?? '#');
  }
  return defaultLinkOpen(tokens, idx, options, env, self);
};

md.renderer.rules.image = (tokens, idx, _options, env) => {
  const token = tokens[idx]!;
  const src = token.attrGet('src') ?? '';
  const alt = token.children ? md.renderer.renderInlineAsText(token.children, md.options, env) : token.content;
  const local = /^[a-z][a-z0-9+.-]*:/i.test(src) || src.startsWith('//') ? undefined : (env as RenderEnv).rawHref(src);
  // Remote images would be refused by the CSP anyway; show what they are instead of a broken image.
  if (local === undefined) return `<span class="img-alt">[image: ${md.utils.escapeHtml(alt)}]</span>`;
  return `<img src="${md.utils.escapeHtml(local)}" alt="${md.utils.escapeHtml(alt)}" loading="lazy">`;
};

for (const rule of ['th_open', 'td_open'] as const) {
  md.renderer.rules[rule] = (tokens, idx, options, _env, self) => {
    const token = tokens[idx]!;
    const style = token.attrGet('style');
    if (style) {
      token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
      const align = /text-align:(left|right|center)/.exec(style)?.[1];
      if (align) token.attrJoin('class', `align-${align}`);
    }
    return self.renderToken(tokens, idx, options);
  };
}

md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx]!;
  const lang = token.info.trim().split(/\s+/)[0] ?? '';
  const label = lang ? ` data-lang="${md.utils.escapeHtml(lang.slice(0, 32))}"` : '';
  return `<pre class="code" tabindex="0"${label}><code>${md.utils.escapeHtml(token.content)}</code></pre>\n`;
};

interface RenderEnv {
  fileHref(relative: string): string | undefined;
  rawHref(relative: string): string | undefined;
  outline: RenderedMarkdown['outline'];
  ids: UniqueNames;
}

function slug(text: string, used: UniqueNames): string {
  const base =
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'section';
  return used.take(`h-${base}`);
}

function headingText(inline: Token | undefined): string {
  return (inline?.children ?? [])
    .filter((child) => child.type === 'text' || child.type === 'code_inline')
    .map((child) => child.content)
    .join('')
    .trim();
}

md.core.ruler.push('heading_ids', (state) => {
  const env = state.env as RenderEnv;
  const tokens = state.tokens;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.type !== 'heading_open') continue;
    const text = headingText(tokens[i + 1]);
    const id = slug(text, env.ids);
    token.attrSet('id', id);
    env.outline.push({ level: Number(token.tag.slice(1)), text, id });
  }
});

/**
 * Renders a Markdown body. `fileHref`/`rawHref` turn a relative path into the catalog URL of the skill's file (its
 * page and its bytes); undefined when the skill has no such file (the link is then dropped).
 */
export function renderMarkdown(
  body: string,
  links: { fileHref(relative: string): string | undefined; rawHref(relative: string): string | undefined },
): RenderedMarkdown {
  const env: RenderEnv = { ...links, outline: [], ids: new UniqueNames() };
  const out = md.render(body, env);
  return { html: out, outline: env.outline };
}
