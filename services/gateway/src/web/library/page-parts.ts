import { escapeHtml } from '../../http/html-document.js';

// Small pieces of HTML the library's pages share. Every value is escaped here.

export const PLAN_STATUSES = [
  'planning',
  'executing',
  'awaiting_review',
  'stalled',
  'completed',
  'failed',
  'cancelled',
] as const;

/** A machine word (a status, a kind) as people read it. */
export const words = (value: string | undefined): string => (value ?? 'unknown').replace(/_/g, ' ');

/** An ISO timestamp to the minute, in UTC, as a <time>. */
export function when(iso: string | undefined): string {
  if (!iso) return '';
  const shown = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso;
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(shown)}</time>`;
}

/** A hidden form field. */
export const hidden = (name: string, value: string): string =>
  `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;

/** A POST form to `action` carrying the page's form token, with `fields` and one submit button. */
export function postForm(
  action: string,
  csrf: string,
  label: string,
  options: { fields?: string; button?: 'primary' | 'secondary' | 'danger' } = {},
): string {
  const cls = options.button && options.button !== 'primary' ? ` class="${options.button}"` : '';
  return `<form method="post" action="${escapeHtml(action)}">${hidden('csrf', csrf)}${options.fields ?? ''}<button type="submit"${cls}>${escapeHtml(label)}</button></form>`;
}

/** A query string from the values that are set. */
export function queryOf(values: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value) params.set(key, value);
  const query = params.toString();
  return query ? `?${query}` : '';
}

/** A number of bytes as people read it. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
