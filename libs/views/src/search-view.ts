import { clip, link, text, time } from './html.js';
import type { SearchHit, SearchLegs, SearchView } from './search-model.js';

const SNIPPET_CHARS = 500;

/**
 * The search-results view as an HTML fragment: each hit's title (linked when its address is a
 * web or same-origin one), source, the page of a document it is on, snippet, tags, and how each leg of the hybrid search ranked
 * it. Stored text is escaped (html.ts): a snippet is plain text, never markup.
 */
export function renderSearchView(view: SearchView): string {
  const summary = [
    view.query !== undefined ? `<span>Results for <q class="q-query">${text(view.query)}</q></span>` : '',
    view.mode ? `<span class="q-muted">${text(view.mode)} search</span>` : '',
    view.keywordMatches !== undefined
      ? `<span class="q-muted">keyword matched ${view.keywordMatches}, semantic ${view.semanticMatches ?? 0}</span>`
      : '',
  ].filter(Boolean);
  const body = view.hits.length
    ? `<ol class="q-hits">${view.hits.map(hitItem).join('')}</ol>`
    : '<p class="q-muted">Nothing found.</p>';
  return [
    '<section class="q-view q-search" aria-label="Search results">',
    summary.length ? `<p class="q-status-line">${summary.join(' · ')}</p>` : '',
    body,
    '</section>',
  ].join('');
}

function hitItem(hit: SearchHit): string {
  const facts = [
    hit.source ? `<span class="q-type">${text(hit.source)}</span>` : '',
    hit.page !== undefined ? `<span class="q-page">page ${hit.page}</span>` : '',
    hit.createdAt ? `<span class="q-muted">${time(hit.createdAt)}</span>` : '',
    ...hit.tags.map((tag) => `<span class="q-tag">${text(tag)}</span>`),
  ].filter(Boolean);
  return [
    `<li class="q-hit" data-item-id="${text(hit.id)}">`,
    `<p class="q-hit-title">${link(hit.title || 'untitled', hit.href)}</p>`,
    facts.length ? `<p class="q-hit-facts">${facts.join(' ')}</p>` : '',
    hit.snippet ? `<p class="q-snippet">${text(clip(hit.snippet.trim(), SNIPPET_CHARS))}</p>` : '',
    hit.legs ? `<p class="q-legs">${legsText(hit.legs)}</p>` : '',
    '</li>',
  ].join('');
}

/** Why it was found: the rank each leg gave it and the fused score. */
function legsText(legs: SearchLegs): string {
  const leg = (name: string, found: boolean, rank: number | undefined) =>
    found ? `${name} #${rank ?? '?'}` : `not in ${name}`;
  const parts = [leg('keyword', legs.inKeyword, legs.keywordRank), leg('semantic', legs.inSemantic, legs.semanticRank)];
  if (legs.rrfScore !== undefined) parts.push(`fused score ${legs.rrfScore.toFixed(4)}`);
  return text(parts.join(' · '));
}
