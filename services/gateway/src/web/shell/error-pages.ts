import { escapeHtml } from '../../http/html-document.js';

// The app's answers that are no page of an area. A missing item, another organization's and a
// malformed id all get notFoundBody, word for word, so no answer tells them apart.

export const NOT_FOUND_TITLE = 'Not found';

export function notFoundBody(): string {
  return '<h1>Not found</h1><p role="alert">Nothing in your organization is stored under this link.</p><p><a href="/app/plans">Back to your plans</a></p>';
}

/** A short message page body: a heading and one sentence, both escaped. */
export function messageBody(title: string, message: string): string {
  return `<h1>${escapeHtml(title)}</h1><p role="alert">${escapeHtml(message)}</p>`;
}

export const REFUSED = {
  title: 'Request refused',
  message: 'The form did not come from this page, or it is too old: go back, reload the page and try again.',
};

export const UNAVAILABLE = {
  title: 'Not available',
  message: 'Quarry cannot answer this right now. Try again shortly.',
};
