import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { identityV1, planV1, toolCatalogue } from '@quarry/contracts';
import { createDb } from '@quarry/db';
import { createIdentitySigner, createRawClient, type ServiceTarget } from '@quarry/grpc';
import {
  createMetrics,
  createQuotaMetrics,
  fastifyOtel,
  metricsText,
  type Registry,
  telemetryRunning,
} from '@quarry/telemetry';
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config.js';
import { createTokenAuthenticator } from './identity/authenticator.js';
import { gatewayOAuth } from './oauth/gateway-oauth.js';
import { identityServiceImplementation } from './identity/service.js';
import type { IdentityDatabase } from './identity/schema.js';
import { createPermalinks } from './web/permalinks.js';
import { createLocalBackend, type ToolBackend } from './mcp/tools/backends.js';
import { createTools } from './mcp/tools/call.js';
import { createCallQuotas, createPostgresCallLimiter } from './quotas/call-quotas.js';
import { createTaskRunner } from './mcp/tasks/task-runner.js';
import { createPlanChangeFeed } from './mcp/subscriptions/plan-change-feed.js';
import { createPlanSubscriptions } from './mcp/subscriptions/plan-subscriptions.js';
import type { GatewayDeps } from './server.js';
import { opsSnapshotOf } from './operations/ops-snapshot.js';
import { prometheusSnapshot } from './operations/prometheus-snapshot.js';
import { createToolCallLog } from './tool-call-log.js';
import { createSmtpMailer } from './web/onboarding/smtp-mailer.js';
import { createOrgPreferences } from './web/preferences/org-preferences.js';

const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

export interface GatewayRuntimeOptions {
  config: GatewayConfig;
  logger: Logger;
  /**
   * Where the services that own tools are, keyed by proto service full name: a gRPC address, or
   * the service's server in this process (`quarry start`: the in-process transport, ADR 0053).
   */
  serviceAddresses?: Readonly<Record<string, ServiceTarget>>;
  /**
   * Services served in-process instead, keyed the same way (e.g. a `createLocalBackend`); they
   * win over `serviceAddresses`. The benchmark's monolith baseline runs the plan service so.
   */
  backends?: Readonly<Record<string, ToolBackend>>;
  /**
   * Registries of services hosted in this process (`quarry start`), appended to /metrics so one
   * scrape sees them all. Their names must not collide with the gateway's (create them with
   * `processMetrics: false`).
   */
  alsoExpose?: readonly Registry[];
  /** How the embedded authorization server fetches Client ID Metadata Documents (tests only). */
  oauthFetch?: typeof fetch;
}

/**
 * Connects everything the gateway needs (database, token authenticator, tool-call log, gRPC
 * channels) and returns the deps for `buildServer`, plus `close` to release them in order.
 */
export async function createGatewayRuntime({
  config,
  logger,
  serviceAddresses = {},
  backends: inProcess = {},
  alsoExpose = [],
  oauthFetch,
}: GatewayRuntimeOptions) {
  const db = createDb<IdentityDatabase>({
    connectionString: config.DATABASE_URL,
    applicationName: 'quarry-gateway',
    max: 10,
  });
  const metrics = createMetrics({ service: 'gateway' });
  const toolCalls = metrics.counter(
    'quarry_gateway_tool_calls_total',
    'MCP tool calls by tool, outcome and error code',
    ['tool', 'outcome', 'code'],
  );
  const toolSeconds = metrics.histogram(
    'quarry_gateway_tool_call_duration_seconds',
    'MCP tool call latency through the gateway',
    ['tool', 'outcome'],
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  const logDrops = metrics.counter(
    'quarry_gateway_tool_call_log_dropped_total',
    'Tool-call log records dropped (queue full or write failed)',
    ['reason'],
  );
  const httpResponses = metrics.counter('quarry_gateway_http_responses_total', 'HTTP responses by route and status', [
    'route',
    'status',
  ]);
  const mcpRequests = metrics.counter(
    'quarry_gateway_mcp_requests_total',
    'MCP requests by who served them: the tools/call fast path or the SDK',
    ['path'],
  );

  const derive = (purpose: string) =>
    createHmac('sha256', config.QUARRY_IDENTITY_KEY).update(`quarry-gateway/${purpose}`).digest();
  const oauth = await gatewayOAuth({ config, db, logger, derive, oauthFetch });
  const resource = oauth.resource;
  const authenticator = createTokenAuthenticator({
    db,
    listenConnectionString: config.DATABASE_URL,
    logger,
    cacheTtlMs: config.QUARRY_TOKEN_CACHE_TTL,
    strictRevocation: config.QUARRY_STRICT_REVOCATION,
    accessTokens: oauth.accessTokens,
  });
  await authenticator.start();
  // Plan changes reach listen streams from PostgreSQL, whichever replica or service made them.
  const planSubscriptions = createPlanSubscriptions({
    onerror: (error) => logger.warn({ err: error }, 'plan change notification not delivered'),
  });
  const planChanges = createPlanChangeFeed({
    connectionString: config.DATABASE_URL,
    logger,
    observer: planSubscriptions,
  });
  try {
    await planChanges.start();
  } catch (error) {
    await authenticator.close();
    throw error;
  }
  const toolCallLog = createToolCallLog({
    db,
    logger,
    capacity: config.QUARRY_TOOL_LOG_QUEUE,
    onDrop: (count, reason) => logDrops.inc({ reason }, count),
  });
  const pending = metrics.gauge('quarry_gateway_tool_call_log_pending', 'Tool-call log records waiting to be written');
  const pendingTimer = setInterval(() => pending.set(toolCallLog.pending()), 5_000).unref();

  const signer = createIdentitySigner({ key: config.QUARRY_IDENTITY_KEY, issuer: 'quarry-gateway' });
  // A gRPC client is a backend as it is: a tool call carries the identity, deadline and signal it takes.
  const remote = Object.entries(serviceAddresses).map(
    ([service, address]) =>
      [
        service,
        createRawClient(address, {
          signer,
          defaultDeadlineMs: config.QUARRY_GRPC_DEADLINE,
          // A source document's original file comes back whole in one reply.
          channelOptions: { 'grpc.max_receive_message_length': config.QUARRY_UPLOAD_LIMIT_BYTES + 1024 * 1024 },
        }),
      ] as const,
  );
  const backends: Record<string, ToolBackend> = {
    [`${identityV1.protobufPackage}.IdentityService`]: createLocalBackend(
      identityV1.IdentityServiceService,
      identityServiceImplementation,
    ),
    ...Object.fromEntries(remote),
    ...inProcess,
  };
  // With a public URL every stored item's url is its permalink page (ADR 0042); without, its quarry:// address.
  const permalinks = createPermalinks(config.QUARRY_PUBLIC_URL ? config.publicUrl : undefined);
  // Calls per minute per org and tool class, counted in PostgreSQL so every replica shares them.
  const callLimiter = createPostgresCallLimiter(config.DATABASE_URL);
  const callQuotas = createCallQuotas({
    limiter: callLimiter.limiter,
    metrics: createQuotaMetrics(metrics),
    db,
    logger,
    defaults: {
      read: config.QUOTA_CALLS_PER_MINUTE_READ,
      write: config.QUOTA_CALLS_PER_MINUTE_WRITE,
      search: config.QUOTA_CALLS_PER_MINUTE_SEARCH,
      model: config.QUOTA_CALLS_PER_MINUTE_MODEL,
    },
  });
  const tools = createTools({
    callQuotas,
    catalogue: toolCatalogue,
    permalinks,
    backends,
    logger,
    toolCallLog,
    deadlineMs: config.QUARRY_GRPC_DEADLINE,
    modelDeadlineMs: config.QUARRY_MODEL_TOOL_DEADLINE,
    observe: (tool, outcome, code, seconds) => {
      toolCalls.inc({ tool, outcome, code });
      toolSeconds.observe({ tool, outcome }, seconds);
    },
  });

  // MCP tasks: a task still working this long after it began was abandoned by a replica that stopped.
  const tasks = createTaskRunner({
    db: db as Kysely<unknown>,
    listenConnectionString: config.DATABASE_URL,
    logger,
    ttlMs: config.QUARRY_MCP_TASK_TTL,
    runDeadlineMs: config.QUARRY_MODEL_TOOL_DEADLINE + 30_000,
  });
  await tasks.start();

  let draining = false;
  const readiness = {
    accepting: async () => !draining,
    database: async () => (await sql`select 1 as ok`.execute(db)).rows.length === 1,
    revocations: async () => authenticator.isListening(),
  };
  const planBackend = backends[`${planV1.protobufPackage}.PlanService`];
  const deps: GatewayDeps = {
    http: {
      allowedHosts: config.allowedHosts,
      allowedOrigins: config.QUARRY_ALLOWED_ORIGINS,
      bodyLimitBytes: config.QUARRY_BODY_LIMIT_BYTES,
      uploadLimitBytes: config.QUARRY_UPLOAD_LIMIT_BYTES,
      rateLimitPerMinute: config.QUARRY_RATE_LIMIT_PER_MINUTE,
      trustProxy: config.QUARRY_TRUST_PROXY,
    },
    authenticator,
    tools,
    logger,
    version: VERSION,
    // Its own key, derived from the identity key every replica already shares.
    requestStateKey: derive('mcp-request-state'),
    oauth: oauth.http,
    planSubscriptions,
    permalinks,
    metricsText: () => metricsText(metrics.registry, ...alsoExpose),
    readiness,
    people: {
      mcpUrl: resource,
      preferences: planBackend ? createOrgPreferences(planBackend, config.QUARRY_GRPC_DEADLINE) : undefined,
      mailer: config.QUARRY_SMTP_URL
        ? createSmtpMailer({ url: config.QUARRY_SMTP_URL, from: config.QUARRY_SMTP_FROM })
        : undefined,
      operations: {
        health: async () =>
          Object.fromEntries(
            await Promise.all(
              Object.entries(readiness).map(async ([name, check]) => [name, await check().catch(() => false)] as const),
            ),
          ),
        // Prometheus's view of every replica when configured; else the gateway's metrics and those
        // of the services hosted in this process (`quarry start`).
        snapshot: config.QUARRY_PROMETHEUS_URL
          ? prometheusSnapshot(config.QUARRY_PROMETHEUS_URL)
          : async () =>
              opsSnapshotOf(
                (await Promise.all([metrics.registry, ...alsoExpose].map((r) => r.getMetricsAsJSON()))).flat() as never,
              ),
        operatorOrg: config.QUARRY_OPERATOR_ORG,
        grafanaUrl: config.QUARRY_GRAFANA_URL,
      },
    },
    onHttpResponse: (route, status) => httpResponses.inc({ route, status: String(status) }),
    mcpFastPath: config.QUARRY_MCP_FAST_PATH,
    mcpApps: config.QUARRY_MCP_APPS,
    longCalls: {
      progressIntervalMs: config.QUARRY_MCP_PROGRESS_INTERVAL,
      tasks,
      callBoundMs: config.QUARRY_MCP_CALL_BOUND,
    },
    onMcpRequest: (path) => mcpRequests.inc({ path }),
    // One span per HTTP request, continuing the caller's traceparent — where OpenTelemetry runs
    // (containers always; `quarry start` with an OTLP endpoint). Without an SDK the spans would go
    // nowhere and still cost CPU on every call (ADR 0015).
    plugins: telemetryRunning() ? [async (app) => void (await app.register(fastifyOtel()))] : [],
  };

  return {
    deps,
    metrics,
    /** Write what the tool-call log holds now (tests and the benchmark read it back). */
    flushToolCallLog: () => toolCallLog.flush(),
    /** Stop advertising readiness (load balancers drain us) before the server closes. */
    beginDrain: () => {
      draining = true;
    },
    async close() {
      draining = true;
      clearInterval(pendingTimer);
      await tasks.close();
      await toolCallLog.close();
      await authenticator.close();
      await planChanges.close();
      for (const [, backend] of remote) backend.close();
      await callLimiter.close();
      await db.destroy();
    },
  };
}
