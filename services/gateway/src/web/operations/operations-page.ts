import type { FastifyInstance } from 'fastify';
import type { OpsSnapshot } from '../../operations/ops-snapshot.js';
import { isOperatorAdmin } from '../../operations/operator-org.js';
import { esc, table } from '../people/html.js';
import { memberOf } from '../people/member-of.js';
import type { WebShell } from '../shell/web-shell.js';

/** Where the operations page reads from. */
export interface OperationsSource {
  /** Named health checks (the gateway's readiness: database, revocation listener…). */
  health(): Promise<Record<string, boolean>>;
  /** The numbers, from the metrics of the gateway and the services running in this process. */
  snapshot(): Promise<OpsSnapshot>;
  /** QUARRY_OPERATOR_ORG: the organization whose admins see this page (default: the first one created). */
  operatorOrg?: string;
  /** Grafana's base URL (QUARRY_GRAFANA_URL), to link the dashboards shipped in deploy/grafana. */
  grafanaUrl?: string;
}

/** The dashboards deploy/grafana ships, by uid. */
const DASHBOARDS = [{ uid: 'quarry-overview', title: 'Quarry overview' }];

const number = (value: number | null, unit = '') =>
  value === null ? '<span class="muted">not reported here</span>' : `${esc(Math.round(value * 10) / 10)}${esc(unit)}`;

/**
 * GET /app/operations — for admins of the operator organization only (anyone else gets the app's
 * 404, as for a page that does not exist): service health, indexer lag, outbox depth, dead
 * letters, stalled plans, the tool-call log's backlog, failed calls by tool and code, and links to
 * the Grafana dashboards.
 */
export function registerOperationsPage(scope: FastifyInstance, shell: WebShell, source: OperationsSource): void {
  scope.get('/operations', async (request, reply) => {
    if (!(await isOperatorAdmin(shell.db, memberOf(shell.viewer(request)), source.operatorOrg)))
      return shell.notFound(request, reply);
    const [health, ops] = await Promise.all([source.health(), source.snapshot()]);
    const dashboards = source.grafanaUrl
      ? `<ul class="plain">${DASHBOARDS.map((d) => `<li><a href="${esc(`${source.grafanaUrl!.replace(/\/$/, '')}/d/${d.uid}`)}" rel="noreferrer">${esc(d.title)}</a></li>`).join('')}</ul>`
      : '<p class="muted">Set QUARRY_GRAFANA_URL to link the dashboards; import deploy/grafana/quarry-overview.json into Grafana (Dashboards → Import).</p>';
    return shell.page(request, reply, 200, {
      title: 'Operations',
      body: `<h1>Operations</h1>
<h2>Health</h2>
${table(
  'Health checks',
  ['Check', 'State'],
  Object.entries(health).map(([name, ok]) => [esc(name), ok ? 'ok' : '<strong class="error">failing</strong>']),
  'No checks.',
)}
<h2>Indexing and plans</h2>
<dl>
<dt>Indexer lag</dt><dd>${number(ops.indexerLagSeconds, ' s')}</dd>
<dt>Outbox depth (content events not yet indexed)</dt><dd>${number(ops.outboxDepth)}</dd>
<dt>Dead letters since start</dt><dd>${number(ops.deadLetters)}</dd>
<dt>Stalled plans</dt><dd>${number(ops.stalledPlans)}</dd>
<dt>Tool-call log: waiting / dropped</dt><dd>${number(ops.toolCallLogPending)} / ${number(ops.toolCallLogDropped)}</dd>
</dl>
<h2>Recent errors by tool</h2>
${table(
  'Failed tool calls since start, by tool and code',
  ['Tool', 'Code', 'Calls'],
  ops.errorsByTool.map((e) => [esc(e.tool), esc(e.code), esc(e.count)]),
  'No failed tool calls.',
)}
<h2>Dashboards</h2>
${dashboards}`,
    });
  });
}
