import { escapeHtml } from '../../http/html-document.js';
import { hidden, when as timeOf } from '../library/page-parts.js';

// Small HTML pieces the onboarding, preferences, admin and operations pages share. Every value
// goes through escapeHtml: names, emails and client names come from people and programs.

export const esc = (value: string | number | null | undefined): string =>
  value === null || value === undefined ? '' : escapeHtml(String(value));

/** A date as people read it, in UTC, with the machine-readable value for assistive tech. */
export function when(date: Date | null | undefined, empty = '—'): string {
  return date ? timeOf(date.toISOString()) : esc(empty);
}

/** The hidden CSRF field every form carries. */
export const csrfField = (csrf: string): string => hidden('csrf', csrf);

/**
 * A one-button form posting to `action` (revoke, remove…). `label` names the action and its
 * object for screen readers, since several such buttons sit in one table.
 */
export function actionButton(action: string, csrf: string, text: string, label: string, danger = false): string {
  return `<form method="post" action="${esc(action)}">${csrfField(csrf)}<button type="submit"${danger ? ' class="danger small"' : ' class="secondary small"'} aria-label="${esc(label)}">${esc(text)}</button></form>`;
}

/** A table with a caption and column headers; `rows` are already HTML cells. */
export function table(caption: string, headers: readonly string[], rows: readonly string[][], empty: string): string {
  if (rows.length === 0) return `<p class="muted">${esc(empty)}</p>`;
  return `<table>
<caption>${esc(caption)}</caption>
<thead><tr>${headers.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead>
<tbody>
${rows.map((cells) => `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('\n')}
</tbody>
</table>`;
}

/** An error or notice line above a form. */
export const alertLine = (message: string | undefined, kind: 'error' | 'notice' = 'error'): string =>
  message ? `<p class="${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${esc(message)}</p>` : '';

/**
 * A value to copy (a token, a link, a command): shown in full in a read-only field, with a button
 * the copy-button module wires up (without script the field can still be selected).
 */
export function copyable(id: string, label: string, value: string): string {
  return `<div class="copy">
<label for="${esc(id)}">${esc(label)}</label>
<input id="${esc(id)}" type="text" readonly value="${esc(value)}" spellcheck="false">
<button type="button" class="secondary small" data-copy="${esc(id)}">Copy</button>
</div>`;
}

/** Options of a select, with the current one selected. */
export const options = (
  values: readonly string[],
  current: string | null | undefined,
  labels?: Record<string, string>,
) =>
  values
    .map((v) => `<option value="${esc(v)}"${v === current ? ' selected' : ''}>${esc(labels?.[v] ?? v)}</option>`)
    .join('');
