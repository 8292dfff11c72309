/**
 * Escaping and links, the only way text reaches the views' HTML: every stored string (titles,
 * instructions, results, snippets, file names) is untrusted research and goes through `text`;
 * every link goes through `safeHref`, which keeps only web and same-origin addresses.
 */

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Text made safe for an element's content or a quoted attribute value. */
export function text(value: string | number | undefined | null): string {
  if (value === undefined || value === null) return '';
  return String(value).replace(/[&<>"'`]/g, (c) => ENTITIES[c]!);
}

/** The schemes a view links to; anything else (javascript:, data:, vbscript:, quarry:) is shown as text. */
const WEB_SCHEME = /^https?:\/\//i;
// Characters browsers strip or ignore inside a URL, which could hide a scheme from the checks.
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u0020\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/;

/**
 * The address as an `href` value when a view may link to it: an absolute http(s) URL, or a path
 * on the same origin (`/app/...`, not the protocol-relative `//host`); undefined otherwise.
 */
export function safeHref(url: string | undefined): string | undefined {
  if (!url || INVISIBLE.test(url) || url.includes('\\')) return undefined;
  const sameOrigin = url.startsWith('/') && !url.startsWith('//');
  return sameOrigin || WEB_SCHEME.test(url) ? text(url) : undefined;
}

/** A link when the address is safe, else the label alone (what it names stays readable). */
export function link(label: string, url: string | undefined, className?: string): string {
  const href = safeHref(url);
  const cls = className ? ` class="${className}"` : '';
  return href ? `<a${cls} href="${href}">${text(label)}</a>` : `<span${cls}>${text(label)}</span>`;
}

/** An ISO timestamp as a `<time>` element (its text the timestamp to the minute, in UTC). */
export function time(iso: string | undefined): string {
  if (!iso) return '';
  const shown = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso;
  return `<time datetime="${text(iso)}">${text(shown)}</time>`;
}

/** A number rounded for people to read (confidence to 2 places, percentages whole). */
export const round = (value: number, digits = 0): number => Number(value.toFixed(digits));

/** Text cut to `max` characters with an ellipsis (the whole is in the tools). */
export const clip = (value: string, max: number): string => (value.length > max ? `${value.slice(0, max)}…` : value);

/** A machine word (status, step type) as a class-name suffix: letters, digits, `-` and `_` only. */
export const token = (value: string | undefined): string => (value ?? 'unknown').replace(/[^a-z0-9_-]/gi, '');
