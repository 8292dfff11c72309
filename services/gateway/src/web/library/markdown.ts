import MarkdownIt from 'markdown-it';

/**
 * Stored text (artifacts' contentText, markdown deliverables) rendered for a page. Stored
 * research is untrusted input, so markdown-it runs with raw HTML disabled (any tag in the text is
 * shown as text), links only to http(s), mailto and same-origin paths (javascript:, data:,
 * vbscript:, file: and the rest stay text), images shown as their alt text with a link (the page
 * loads nothing from elsewhere), and every link opens without a referrer or opener.
 * docs/adr/0048-web-app-stack.md says why this and not a sanitiser after the fact.
 */
const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

const SAFE_LINK = /^(https?:\/\/|mailto:|\/(?!\/)|#)/i;
// Characters a browser strips or ignores inside a URL, which could hide a scheme from the check.
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u0020\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\\]/;

md.validateLink = (url: string) => SAFE_LINK.test(url) && !INVISIBLE.test(url);

md.renderer.rules.image = (tokens, index, _options, env, self) => {
  const token = tokens[index]!;
  const alt = self.renderInlineAsText(token.children ?? [], md.options, env) || 'image';
  const src = String(token.attrGet('src') ?? '');
  const label = md.utils.escapeHtml(`[image: ${alt}]`);
  return md.validateLink(src) ? `<a href="${md.utils.escapeHtml(src)}">${label}</a>` : label;
};

const defaultLinkOpen =
  md.renderer.rules.link_open ?? ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
md.renderer.rules.link_open = (tokens, index, options, env, self) => {
  tokens[index]!.attrSet('rel', 'noopener noreferrer nofollow');
  return defaultLinkOpen(tokens, index, options, env, self);
};

/** Markdown (or plain text, which renders as paragraphs) as inert HTML. */
export function renderMarkdown(source: string): string {
  return md.render(source);
}
