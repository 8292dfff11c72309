import { toolNames } from '@quarry/contracts';
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../../http/html-document.js';
import { UNAVAILABLE } from '../shell/error-pages.js';
import type { WebShell } from '../shell/web-shell.js';
import { queryOf, when, words } from './page-parts.js';
import { callTool } from './tool-call.js';

interface Listing {
  id: string;
  artifactType?: string;
  title: string;
  tags: string[];
  planId?: string;
  createdAt?: string;
}

type Filters = { type?: string; tag?: string; cursor?: string };

const TYPES = ['analysis', 'synthesis', 'comparison', 'summary', 'source_list', 'finding'];

/**
 * GET /app/artifacts — the org's artifacts, most recent first, by kind and tag; pages of 25 on
 * toolNames.listArtifacts' keyset cursor, so a library of any size costs one page's read. One
 * call with the person's principal; a filter or cursor it refuses is said on the page.
 */
export function registerArtifactsList(scope: FastifyInstance, shell: WebShell): void {
  scope.get<{ Querystring: Filters }>('/artifacts', async (request, reply) => {
    const filters = cleanFilters(request.query);
    const answer = await callTool<{ artifacts: Listing[]; nextCursor?: string }>(
      shell,
      request,
      toolNames.listArtifacts,
      {
        limit: 25,
        ...(filters.type ? { artifactType: filters.type } : {}),
        ...(filters.tag ? { tags: [filters.tag] } : {}),
        ...(filters.cursor ? { cursor: filters.cursor } : {}),
      },
    );
    if (!answer.ok && !['INVALID_ARGUMENT', 'INVALID_CURSOR'].includes(answer.code))
      return shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
    const body = answer.ok
      ? artifactTable(answer.value.artifacts, filters, answer.value.nextCursor)
      : `<p class="error" role="alert">${escapeHtml(answer.message)}</p>`;
    return shell.page(request, reply, answer.ok ? 200 : 400, {
      title: 'Artifacts',
      body: `<h1>Artifacts</h1>${filterForm(filters)}${body}`,
    });
  });
}

function cleanFilters(query: Filters): Filters {
  const pick = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);
  const type = pick(query.type);
  return {
    type: type && TYPES.includes(type) ? type : undefined,
    tag: pick(query.tag)?.slice(0, 100),
    cursor: pick(query.cursor)?.slice(0, 1000),
  };
}

// `role` and `type` are unquoted: no gateway source names a tool, not even as an attribute value
// (tool-agnostic.test.ts).
function filterForm(filters: Filters): string {
  const options = ['', ...TYPES]
    .map(
      (type) =>
        `<option value="${type}"${type === (filters.type ?? '') ? ' selected' : ''}>${type ? words(type) : 'any kind'}</option>`,
    )
    .join('');
  return `<form method="get" action="/app/artifacts" class="filters" role=search aria-label="Filter artifacts">
<div><label for="a-type">Kind</label><select id="a-type" name="type">${options}</select></div>
<div><label for="a-tag">Tag</label><input id="a-tag" name="tag" type=text value="${escapeHtml(filters.tag ?? '')}"></div>
<div><button type="submit">Filter</button></div>
</form>`;
}

function artifactTable(artifacts: readonly Listing[], filters: Filters, nextCursor: string | undefined): string {
  if (artifacts.length === 0) return '<p class="muted">No artifacts match.</p>';
  const rows = artifacts
    .map(
      (artifact) => `<tr>
<td><a href="/app/artifacts/${escapeHtml(artifact.id)}">${escapeHtml(artifact.title)}</a></td>
<td>${escapeHtml(words(artifact.artifactType))}</td>
<td>${artifact.tags.map((tag) => `<span class="badge">${escapeHtml(tag)}</span>`).join(' ')}</td>
<td>${artifact.planId ? `<a href="/app/plans/${escapeHtml(artifact.planId)}">open</a>` : ''}</td>
<td>${when(artifact.createdAt)}</td>
</tr>`,
    )
    .join('');
  const next = nextCursor
    ? `<nav class="pager" aria-label="Pages"><a href="/app/artifacts${escapeHtml(queryOf({ ...filters, cursor: nextCursor }))}" rel="next">Next page</a></nav>`
    : '';
  return `<table><caption class="muted">Most recently stored first</caption>
<thead><tr><th scope="col">Artifact</th><th scope="col">Kind</th><th scope="col">Tags</th><th scope="col">Plan</th><th scope="col">Stored</th></tr></thead>
<tbody>${rows}</tbody></table>${next}`;
}
