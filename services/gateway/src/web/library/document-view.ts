import { escapeHtml } from '../../http/html-document.js';
import { renderMarkdown } from './markdown.js';

/** What reading an artifact says of a source document (proto3 JSON names), as the artifact page uses it. */
export interface DocumentRead {
  document?: { fileName: string; unitKind: string; unitCount: number };
  units?: { number: number }[];
  figures?: { number: number; page: number; caption?: string; width: number; height: number }[];
  tables?: { number: number; page: number; caption?: string; markdown?: string }[];
}

/** `?page=N` as the artifact page takes it: a page number, else none. */
export function pageAsked(value: unknown): number | undefined {
  return typeof value === 'string' && /^[1-9][0-9]{0,5}$/.test(value) ? Number(value) : undefined;
}

/** The document's file and length, for the page's facts. */
export function documentFact(read: DocumentRead): [string, string] | undefined {
  const doc = read.document;
  if (!doc) return undefined;
  const count = `${doc.unitCount} ${doc.unitKind}${doc.unitCount === 1 ? '' : 's'}`;
  return ['Document', `${escapeHtml(doc.fileName)} (${escapeHtml(count)})`];
}

/**
 * Where the text shown sits in a document: "Page N of M" with the pages either side, or a form to
 * open one page; then the figures (by caption) and tables (as markdown) of the page shown.
 */
export function documentPager(artifactId: string, read: DocumentRead, page: number | undefined): string {
  const doc = read.document;
  if (!doc || doc.unitKind === 'section') return '';
  const kind = escapeHtml(doc.unitKind);
  const href = (n: number) => `/app/artifacts/${escapeHtml(artifactId)}?page=${n}`;
  if (page === undefined) {
    return `<form method="get" action="/app/artifacts/${escapeHtml(artifactId)}" class="inline"><label for="page">Open ${kind}</label><input id="page" name="page" type="number" min="1" max="${doc.unitCount}" required><button type="submit" class="secondary">Open</button></form>`;
  }
  const links = [
    page > 1 ? `<a rel="prev" href="${href(page - 1)}">${kind} ${page - 1}</a>` : '',
    `<a href="/app/artifacts/${escapeHtml(artifactId)}">the whole text</a>`,
    page < doc.unitCount ? `<a rel="next" href="${href(page + 1)}">${kind} ${page + 1}</a>` : '',
  ].filter(Boolean);
  const figures = (read.figures ?? []).map(
    (f) =>
      `<li>${escapeHtml(f.caption ?? `Figure ${f.number}`)} <span class="muted">(${f.width} × ${f.height} px)</span></li>`,
  );
  const tables = (read.tables ?? []).map(
    (t) =>
      `<figure><figcaption>${escapeHtml(t.caption ?? `Table ${t.number}`)}</figcaption>${renderMarkdown(t.markdown ?? '')}</figure>`,
  );
  return [
    `<p id="page=${page}"><strong>${kind[0]!.toUpperCase()}${kind.slice(1)} ${page} of ${doc.unitCount}</strong></p>`,
    `<nav class="pager" aria-label="${kind}s">${links.join(' · ')}</nav>`,
    figures.length ? `<h3>Figures on this ${kind}</h3><ul>${figures.join('')}</ul>` : '',
    tables.length ? `<h3>Tables on this ${kind}</h3>${tables.join('')}` : '',
  ].join('');
}
