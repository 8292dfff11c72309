import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toolCatalogue } from '@quarry/contracts';
import { isAdmin } from '../../identity/member.js';
import { type AuditLogRow, queryAuditLog } from '../../records/audit-log.js';
import { toCsv } from '../../records/csv.js';
import { dateOf, EXPORT_LIMIT, type LogPage, positionOf } from '../../records/page.js';
import { queryToolCalls, type ToolCallRow } from '../../records/tool-call-query.js';
import { esc, options, table, when } from '../people/html.js';
import { memberOf } from '../people/member-of.js';
import { adminsOnly } from '../people/service-errors.js';
import type { WebShell } from '../shell/web-shell.js';

type Query = Record<string, string | undefined>;

/** The filters a log page was opened with, kept in its links (the next page, the CSV export). */
function keep(query: Query, names: readonly string[], extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const name of names) if (query[name]) params.set(name, query[name]!);
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** An end date filter includes its whole day. */
const endOf = (value: string | undefined) => {
  const date = dateOf(value);
  return date && /^\d{4}-\d{2}-\d{2}$/.test(value!) ? new Date(date.getTime() + 86_400_000) : date;
};

function filterForm(action: string, query: Query, fields: string): string {
  return `<form method="get" action="${action}" class="filters" role=search aria-label="Filter the log">
${fields}
<label for="f-from">From</label><input id="f-from" name="from" type="date" value="${esc(query.from)}">
<label for="f-to">To</label><input id="f-to" name="to" type="date" value="${esc(query.to)}">
<button type="submit" class="secondary">Filter</button>
</form>`;
}

function pager<T>(path: string, query: Query, names: readonly string[], page: LogPage<T>): string {
  const links = [
    query.before ? `<a href="${esc(path + keep(query, names))}">Newest</a>` : '',
    page.before ? `<a href="${esc(path + keep(query, names, { before: page.before }))}" rel="next">Older</a>` : '',
  ].filter(Boolean);
  return links.length ? `<nav class="pager" aria-label="Pages">${links.join(' ')}</nav>` : '';
}

function sendCsv(reply: FastifyReply, name: string, csv: string): FastifyReply {
  return reply
    .code(200)
    .headers({
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${name}"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    })
    .send(csv);
}

const AUDIT_FILTERS = ['event', 'email', 'from', 'to'] as const;
const CALL_FILTERS = ['tool', 'outcome', 'email', 'from', 'to'] as const;
const AUDIT_COLUMNS: ReadonlyArray<keyof AuditLogRow & string> = [
  'id',
  'occurredAt',
  'event',
  'email',
  'clientId',
  'ip',
  'detail',
];
const CALL_COLUMNS: ReadonlyArray<keyof ToolCallRow & string> = [
  'id',
  'occurredAt',
  'tool',
  'outcome',
  'errorCode',
  'durationMs',
  'email',
  'tokenId',
  'requestId',
  'inputTokens',
  'outputTokens',
];
const EVENTS = [
  'sign_in',
  'sign_in_failed',
  'consent',
  'token_issued',
  'token_created',
  'token_revoked',
  'grant_revoked',
  'invitation_created',
  'invitation_accepted',
  'invitation_revoked',
  'member_role_changed',
  'member_removed',
  'service_account_created',
  'service_account_secret_rotated',
  'service_account_revoked',
  'first_run_setup',
];

/**
 * /app/admin/audit and /app/admin/tool-calls (admins): the organization's audit log and
 * tool-call log, filtered, newest first, a page at a time (keyset), and the same filters exported
 * as CSV (…/export.csv, up to EXPORT_LIMIT rows, formula-looking cells neutralised).
 */
export function registerLogPages(scope: FastifyInstance, shell: WebShell): void {
  const admitted = (request: FastifyRequest) => {
    const member = memberOf(shell.viewer(request));
    return isAdmin(member) ? member : undefined;
  };
  const auditFilter = (q: Query) => ({
    event: q.event || undefined,
    email: q.email || undefined,
    from: dateOf(q.from),
    to: endOf(q.to),
  });
  const callFilter = (q: Query) => ({
    tool: q.tool || undefined,
    outcome: q.outcome || undefined,
    email: q.email || undefined,
    from: dateOf(q.from),
    to: endOf(q.to),
  });

  scope.get<{ Querystring: Query }>('/admin/audit', async (request, reply) => {
    const member = admitted(request);
    if (!member) return adminsOnly(shell, request, reply);
    const q = request.query;
    const page = await queryAuditLog(shell.db, member, { ...auditFilter(q), before: positionOf(q.before) });
    return shell.page(request, reply, 200, {
      title: 'Audit log',
      body: `<h1>Audit log</h1>
${filterForm(
  '/app/admin/audit',
  q,
  `<label for="f-event">Event</label><select id="f-event" name="event"><option value="">Any</option>${options(EVENTS, q.event)}</select>
<label for="f-email">Email</label><input id="f-email" name="email" type="email" value="${esc(q.email)}">`,
)}
<p><a href="${esc(`/app/admin/audit/export.csv${keep(q, AUDIT_FILTERS)}`)}" download>Export CSV</a></p>
${table(
  'Audit events, newest first',
  ['When', 'Event', 'Email', 'Client', 'Address', 'Details'],
  page.rows.map((r) => [
    when(r.occurredAt),
    esc(r.event),
    esc(r.email),
    esc(r.clientId),
    esc(r.ip),
    r.detail ? `<code>${esc(JSON.stringify(r.detail))}</code>` : '',
  ]),
  'No events match.',
)}
${pager('/app/admin/audit', q, AUDIT_FILTERS, page)}`,
    });
  });

  scope.get<{ Querystring: Query }>('/admin/audit/export.csv', async (request, reply) => {
    const member = admitted(request);
    if (!member) return adminsOnly(shell, request, reply);
    const page = await queryAuditLog(shell.db, member, { ...auditFilter(request.query), limit: EXPORT_LIMIT });
    return sendCsv(reply, `quarry-audit-${member.orgSlug}.csv`, toCsv(page.rows, AUDIT_COLUMNS));
  });

  scope.get<{ Querystring: Query }>('/admin/tool-calls', async (request, reply) => {
    const member = admitted(request);
    if (!member) return adminsOnly(shell, request, reply);
    const q = request.query;
    const page = await queryToolCalls(shell.db, member, { ...callFilter(q), before: positionOf(q.before) });
    const tools = toolCatalogue.map((t) => t.name).sort();
    return shell.page(request, reply, 200, {
      title: 'Tool calls',
      body: `<h1>Tool calls</h1>
${filterForm(
  '/app/admin/tool-calls',
  q,
  `<label for="f-tool">Tool</label><select id="f-tool" name="tool"><option value="">Any</option>${options(tools, q.tool)}</select>
<label for="f-outcome">Outcome</label><select id="f-outcome" name="outcome"><option value="">Any</option>${options(['ok', 'tool_error', 'protocol_error', 'input_required'], q.outcome)}</select>
<label for="f-email">Email</label><input id="f-email" name="email" type="email" value="${esc(q.email)}">`,
)}
<p><a href="${esc(`/app/admin/tool-calls/export.csv${keep(q, CALL_FILTERS)}`)}" download>Export CSV</a></p>
${table(
  'Tool calls, newest first',
  ['When', 'Tool', 'Outcome', 'Code', 'Duration', 'Who', 'Request'],
  page.rows.map((r) => [
    when(r.occurredAt),
    esc(r.tool),
    esc(r.outcome),
    esc(r.errorCode),
    `${esc(Math.round(r.durationMs))} ms`,
    esc(r.email),
    `<code>${esc(r.requestId)}</code>`,
  ]),
  'No calls match.',
)}
${pager('/app/admin/tool-calls', q, CALL_FILTERS, page)}`,
    });
  });

  scope.get<{ Querystring: Query }>('/admin/tool-calls/export.csv', async (request, reply) => {
    const member = admitted(request);
    if (!member) return adminsOnly(shell, request, reply);
    const page = await queryToolCalls(shell.db, member, { ...callFilter(request.query), limit: EXPORT_LIMIT });
    return sendCsv(reply, `quarry-tool-calls-${member.orgSlug}.csv`, toCsv(page.rows, CALL_COLUMNS));
  });
}
