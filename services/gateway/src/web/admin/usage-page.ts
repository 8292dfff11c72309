import type { FastifyInstance } from 'fastify';
import { isAdmin } from '../../identity/member.js';
import { orgUsage } from '../../records/org-usage.js';
import { esc, table, when } from '../people/html.js';
import { memberOf } from '../people/member-of.js';
import { adminsOnly } from '../people/service-errors.js';
import type { WebShell } from '../shell/web-shell.js';

const PERIODS = [7, 30, 90];

/** /app/admin/usage — what the organization used (tool calls per tool, model tokens) and holds (admins). */
export function registerUsagePage(scope: FastifyInstance, shell: WebShell): void {
  scope.get<{ Querystring: { days?: string } }>('/admin/usage', async (request, reply) => {
    const viewer = shell.viewer(request);
    const member = memberOf(viewer);
    if (!isAdmin(member)) return adminsOnly(shell, request, reply);
    const days = PERIODS.find((d) => String(d) === request.query.days) ?? 30;
    const usage = await orgUsage(shell.db, member, days);
    const total = usage.byTool.reduce((sum, t) => sum + t.calls, 0);
    return shell.page(request, reply, 200, {
      title: 'Usage',
      body: `<h1>Usage of ${esc(viewer.org.name)}</h1>
<nav aria-label="Period"><ul class="plain">${PERIODS.map((d) => `<li><a href="/app/admin/usage?days=${d}"${d === days ? ' aria-current="page"' : ''}>Last ${d} days</a></li>`).join('')}</ul></nav>
<dl>
<dt>Members</dt><dd>${esc(usage.members)}</dd>
<dt>Active personal access tokens</dt><dd>${esc(usage.activeTokens)}</dd>
<dt>Connected apps</dt><dd>${esc(usage.connectedApps)}</dd>
<dt>Service accounts</dt><dd>${esc(usage.serviceAccounts)}</dd>
<dt>Tool calls since ${when(usage.since)}</dt><dd>${esc(total)}</dd>
</dl>
${table(
  `Tool calls per tool, last ${days} days`,
  ['Tool', 'Calls', 'Errors', 'p95 duration', 'Model input tokens', 'Model output tokens'],
  usage.byTool.map((t) => [
    esc(t.tool),
    esc(t.calls),
    esc(t.errors),
    `${esc(Math.round(t.p95Ms))} ms`,
    esc(t.inputTokens),
    esc(t.outputTokens),
  ]),
  'No tool calls in this period.',
)}`,
    });
  });
}
