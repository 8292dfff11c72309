import { toolNames } from '@quarry/contracts';
import { renderSearchView, searchViewFrom, type SearchSourcesResult } from '@quarry/views';
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../../http/html-document.js';
import { UNAVAILABLE } from '../shell/error-pages.js';
import type { WebShell } from '../shell/web-shell.js';
import { APP_LINKS } from './plan-sources.js';
import { callTool, isUnavailable } from './tool-call.js';

type Filters = {
  q?: string;
  source?: string;
  type?: string;
  tag?: string;
  since?: string;
  until?: string;
  mode?: string;
};

const SOURCES = { research_artifact: 'Artifacts', research_output: 'Deliverables', extraction_result: 'Extractions' };
const TYPES = ['analysis', 'synthesis', 'comparison', 'summary', 'source_list', 'finding'];
const MODES = { hybrid: 'Keywords and meaning', keyword: 'Keywords only', semantic: 'Meaning only' };
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * GET /app/search — toolNames.searchSources with the person's principal: the query, what kind of item,
 * artifact kind, a tag (from toolNames.listTags), the days stored between, and which searches run; the
 * results rendered by @quarry/views with how each leg (keyword, semantic) ranked each hit.
 */
export function registerSearchPage(scope: FastifyInstance, shell: WebShell): void {
  scope.get<{ Querystring: Filters }>('/search', async (request, reply) => {
    const filters = cleanFilters(request.query);
    const tags = await callTool<{ tags: { tag: string; count: number }[] }>(shell, request, toolNames.listTags, {});
    let results = '';
    let status = 200;
    if (filters.q) {
      const answer = await callTool<SearchSourcesResult>(shell, request, toolNames.searchSources, {
        query: filters.q,
        limit: 25,
        ...(filters.source ? { sourceTable: filters.source } : {}),
        ...(filters.type ? { artifactType: filters.type } : {}),
        ...(filters.tag ? { tags: [filters.tag] } : {}),
        ...(filters.since ? { createdSince: `${filters.since}T00:00:00Z` } : {}),
        ...(filters.until ? { createdUntil: `${filters.until}T23:59:59Z` } : {}),
        ...(filters.mode ? { mode: filters.mode } : {}),
      });
      if (!answer.ok && isUnavailable(answer))
        return shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
      status = answer.ok ? 200 : 400;
      results = answer.ok
        ? renderSearchView(searchViewFrom(answer.value, APP_LINKS))
        : `<p class="error" role="alert">${escapeHtml(answer.message)}</p>`;
    }
    return shell.page(request, reply, status, {
      title: filters.q ? `Search: ${filters.q}` : 'Search',
      body: `<h1>Search</h1>${searchForm(filters, tags.ok ? tags.value.tags.map((t) => t.tag) : [])}${results}`,
      styles: ['views.css'],
    });
  });
}

function cleanFilters(query: Filters): Filters {
  const pick = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);
  const oneOf = (value: unknown, allowed: readonly string[]) => {
    const picked = pick(value);
    return picked && allowed.includes(picked) ? picked : undefined;
  };
  const day = (value: unknown) => {
    const picked = pick(value);
    return picked && DATE.test(picked) ? picked : undefined;
  };
  return {
    q: pick(query.q)?.slice(0, 1000),
    source: oneOf(query.source, Object.keys(SOURCES)),
    type: oneOf(query.type, TYPES),
    tag: pick(query.tag)?.slice(0, 100),
    since: day(query.since),
    until: day(query.until),
    mode: oneOf(query.mode, Object.keys(MODES)),
  };
}

function select(id: string, name: string, label: string, options: [string, string][], chosen: string | undefined) {
  const items = options
    .map(
      ([value, text]) =>
        `<option value="${escapeHtml(value)}"${value === (chosen ?? '') ? ' selected' : ''}>${escapeHtml(text)}</option>`,
    )
    .join('');
  return `<div><label for="${id}">${label}</label><select id="${id}" name="${name}">${items}</select></div>`;
}

// `role` and `type` are unquoted: no gateway source names a tool, not even as an attribute value
// (tool-agnostic.test.ts).
function searchForm(filters: Filters, tags: readonly string[]): string {
  return `<form method="get" action="/app/search" class="filters" role=search aria-label="Search the library">
<div><label for="s-q">Search for</label><input id="s-q" name="q" type=search required value="${escapeHtml(filters.q ?? '')}"></div>
${select('s-source', 'source', 'In', [['', 'Everything'], ...Object.entries(SOURCES)], filters.source)}
${select('s-type', 'type', 'Artifact kind', [['', 'Any kind'], ...TYPES.map((t): [string, string] => [t, t.replace(/_/g, ' ')])], filters.type)}
${select('s-tag', 'tag', 'Tag', [['', 'Any tag'], ...tags.map((t): [string, string] => [t, t])], filters.tag)}
<div><label for="s-since">Stored from</label><input id="s-since" name="since" type="date" value="${escapeHtml(filters.since ?? '')}"></div>
<div><label for="s-until">Stored until</label><input id="s-until" name="until" type="date" value="${escapeHtml(filters.until ?? '')}"></div>
${select('s-mode', 'mode', 'How', [['', 'Keywords and meaning'], ...Object.entries(MODES).slice(1)], filters.mode)}
<div><button type="submit">Search</button></div>
</form>`;
}
