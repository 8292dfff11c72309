import { toolNames } from '@quarry/contracts';
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../../http/html-document.js';
import { UNAVAILABLE } from '../shell/error-pages.js';
import type { WebShell } from '../shell/web-shell.js';
import { PLAN_STATUSES, queryOf, when, words } from './page-parts.js';
import { callTool } from './tool-call.js';

interface Listing {
  planId: string;
  name: string;
  researchQuestion: string;
  status?: string;
  progress: number;
  totalSteps: number;
  completedSteps: number;
  archived: boolean;
  updatedAt?: string;
}

type Filters = { status?: string; q?: string; since?: string; archived?: string; cursor?: string };
type Query = Filters & { deleted?: string };

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * GET /app/plans — the org's plans, most recently changed first, filtered by status, words in
 * the name or question and the day changed since, archived ones on request; pages of 25. One
 * toolNames.listPlans call with the person's principal; a filter it refuses is said on the page.
 */
export function registerPlansList(scope: FastifyInstance, shell: WebShell): void {
  scope.get<{ Querystring: Query }>('/plans', async (request, reply) => {
    const filters = cleanFilters(request.query);
    const answer = await callTool<{ plans: Listing[]; nextCursor?: string }>(shell, request, toolNames.listPlans, {
      limit: 25,
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.q ? { query: filters.q } : {}),
      ...(filters.since ? { updatedSince: `${filters.since}T00:00:00Z` } : {}),
      ...(filters.archived ? { includeArchived: true } : {}),
      ...(filters.cursor ? { cursor: filters.cursor } : {}),
    });
    if (!answer.ok && !['INVALID_ARGUMENT', 'INVALID_CURSOR'].includes(answer.code))
      return shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
    const body = answer.ok
      ? planTable(answer.value.plans, filters, answer.value.nextCursor)
      : `<p class="error" role="alert">${escapeHtml(answer.message)}</p>`;
    return shell.page(request, reply, answer.ok ? 200 : 400, {
      title: 'Plans',
      body: `<h1>Plans</h1>${request.query.deleted === '1' ? '<p class="notice" role="status">The plan and everything it produced are deleted.</p>' : ''}${filterForm(filters)}${body}`,
    });
  });
}

function cleanFilters(query: Filters): Filters {
  const pick = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);
  const status = pick(query.status);
  const since = pick(query.since);
  return {
    status: status && (PLAN_STATUSES as readonly string[]).includes(status) ? status : undefined,
    q: pick(query.q)?.slice(0, 200),
    since: since && DATE.test(since) ? since : undefined,
    archived: query.archived === '1' ? '1' : undefined,
    cursor: pick(query.cursor),
  };
}

// `role` and `type` are unquoted: no gateway source names a tool, not even as an attribute value
// (tool-agnostic.test.ts).
function filterForm(filters: Filters): string {
  const options = ['', ...PLAN_STATUSES]
    .map(
      (status) =>
        `<option value="${status}"${status === (filters.status ?? '') ? ' selected' : ''}>${status ? words(status) : 'any status'}</option>`,
    )
    .join('');
  return `<form method="get" action="/app/plans" class="filters" role=search aria-label="Filter plans">
<div><label for="f-q">Words in name or question</label><input id="f-q" name="q" type=search value="${escapeHtml(filters.q ?? '')}"></div>
<div><label for="f-status">Status</label><select id="f-status" name="status">${options}</select></div>
<div><label for="f-since">Changed since</label><input id="f-since" name="since" type="date" value="${escapeHtml(filters.since ?? '')}"></div>
<div><label class="check"><input type="checkbox" name="archived" value="1"${filters.archived ? ' checked' : ''}> Include archived</label></div>
<div><button type="submit">Filter</button></div>
</form>`;
}

function planTable(plans: readonly Listing[], filters: Filters, nextCursor: string | undefined): string {
  if (plans.length === 0) return '<p class="muted">No plans match.</p>';
  const rows = plans
    .map(
      (plan) => `<tr>
<td><a href="/app/plans/${escapeHtml(plan.planId)}">${escapeHtml(plan.name)}</a><div class="muted">${escapeHtml(plan.researchQuestion)}</div></td>
<td><span class="badge">${escapeHtml(words(plan.status))}</span>${plan.archived ? ' <span class="badge">archived</span>' : ''}</td>
<td>${plan.completedSteps} of ${plan.totalSteps} (${Math.round(plan.progress)}%)</td>
<td>${when(plan.updatedAt)}</td>
</tr>`,
    )
    .join('');
  const next = nextCursor
    ? `<nav class="pager" aria-label="Pages"><a href="/app/plans${escapeHtml(queryOf({ ...filters, cursor: nextCursor }))}" rel="next">Next page</a></nav>`
    : '';
  return `<table><caption class="muted">Most recently changed first</caption>
<thead><tr><th scope="col">Plan</th><th scope="col">Status</th><th scope="col">Steps done</th><th scope="col">Changed</th></tr></thead>
<tbody>${rows}</tbody></table>${next}`;
}
