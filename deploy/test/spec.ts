// The facts of notes/deploy-spec.md that every deployment artifact must agree on (the kustomize
// overlays, the Helm chart, the Dockerfile, dashboards and alerts), written once for the checks.

export type ServiceName = 'gateway' | 'plan-engine' | 'artifact-store' | 'search' | 'extraction' | 'indexer';

export interface ServiceSpec {
  /** The main port: its name and number. */
  port: { name: 'http' | 'grpc' | 'metrics'; number: number };
  probes: 'http' | 'grpc' | 'metrics';
  /** Where /metrics is served: every service's METRICS_PORT, on a port of its own. */
  metricsPort: number;
  /** Environment variables the container must set (directly, from the Secret or the ConfigMap). */
  env: readonly string[];
  /** Of those, the ones that come from the Secret, with their key. */
  secrets: Readonly<Record<string, string>>;
}

const ENGINES = [
  'OPENSEARCH_URL',
  'OPENSEARCH_INDEX',
  'QDRANT_URL',
  'QDRANT_API_KEY',
  'QDRANT_COLLECTION',
  'EMBEDDINGS_URL',
  'EMBEDDINGS_MODEL',
  'EMBEDDINGS_API_KEY',
  'EMBEDDINGS_DIMENSION',
  'EMBEDDINGS_SIMILARITY_FLOOR',
];

/** The gateway's OAuth settings: the embedded authorization server, or an external one (ADR 0026). */
const OAUTH = [
  'QUARRY_PUBLIC_URL',
  'QUARRY_OAUTH_ACCESS_TOKEN_TTL',
  'QUARRY_OAUTH_ISSUER',
  'QUARRY_OAUTH_AUDIENCE',
  'QUARRY_OAUTH_JWKS_URL',
  'QUARRY_OAUTH_EMAIL_CLAIM',
  'QUARRY_OAUTH_ORG_CLAIM',
  'QUARRY_OAUTH_DEFAULT_ORG',
];
/** Where the gRPC services check service accounts' tokens (ADR 0036). */
const SERVICE_TOKENS = ['QUARRY_SERVICE_TOKEN_ISSUER', 'QUARRY_SERVICE_TOKEN_JWKS_URL'];

export const SERVICES: Readonly<Record<ServiceName, ServiceSpec>> = {
  gateway: {
    port: { name: 'http', number: 8080 },
    probes: 'http',
    metricsPort: 9463,
    env: [
      'HOST',
      'PORT',
      'METRICS_PORT',
      'LOG_LEVEL',
      'DATABASE_URL',
      'QUARRY_IDENTITY_KEY',
      'QUARRY_SERVICES',
      'QUARRY_TRUST_PROXY',
      'QUARRY_ALLOWED_HOSTS',
      'QUARRY_RATE_LIMIT_PER_MINUTE',
      'QUARRY_MODEL_TOOL_DEADLINE',
      ...OAUTH,
    ],
    secrets: { DATABASE_URL: 'database-url', QUARRY_IDENTITY_KEY: 'identity-key' },
  },
  'plan-engine': {
    port: { name: 'grpc', number: 50051 },
    probes: 'grpc',
    metricsPort: 9464,
    env: [
      'HOST',
      'PORT',
      'LOG_LEVEL',
      'DATABASE_URL',
      'QUARRY_IDENTITY_KEY',
      'ARTIFACT_STORE_ADDRESS',
      'QUARRY_STALL_THRESHOLD',
      'METRICS_PORT',
      ...SERVICE_TOKENS,
    ],
    secrets: { DATABASE_URL: 'database-url', QUARRY_IDENTITY_KEY: 'identity-key' },
  },
  'artifact-store': {
    port: { name: 'grpc', number: 50052 },
    probes: 'grpc',
    metricsPort: 9465,
    env: [
      'HOST',
      'PORT',
      'METRICS_PORT',
      'LOG_LEVEL',
      'DATABASE_URL',
      'QUARRY_IDENTITY_KEY',
      'PLAN_ENGINE_ADDRESS',
      ...SERVICE_TOKENS,
    ],
    secrets: { DATABASE_URL: 'database-url', QUARRY_IDENTITY_KEY: 'identity-key' },
  },
  search: {
    port: { name: 'grpc', number: 50053 },
    probes: 'grpc',
    metricsPort: 9466,
    env: [
      'HOST',
      'PORT',
      'METRICS_PORT',
      'LOG_LEVEL',
      'QUARRY_IDENTITY_KEY',
      'ARTIFACT_STORE_ADDRESS',
      ...ENGINES,
      ...SERVICE_TOKENS,
    ],
    secrets: {
      QUARRY_IDENTITY_KEY: 'identity-key',
      QDRANT_API_KEY: 'qdrant-api-key',
      EMBEDDINGS_API_KEY: 'embeddings-api-key',
    },
  },
  extraction: {
    port: { name: 'grpc', number: 50054 },
    probes: 'grpc',
    metricsPort: 9467,
    env: [
      'HOST',
      'PORT',
      'METRICS_PORT',
      'LOG_LEVEL',
      'DATABASE_URL',
      'QUARRY_IDENTITY_KEY',
      'ARTIFACT_STORE_ADDRESS',
      'EXTRACTION_PROVIDER',
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_MODEL',
      'OPENAI_BASE_URL',
      'OPENAI_API_KEY',
      'OPENAI_MODEL',
      'EXTRACTION_TIMEOUT',
      'EXTRACTION_MAX_TOKENS',
      'EXTRACTION_SAMPLING',
      ...SERVICE_TOKENS,
    ],
    secrets: {
      DATABASE_URL: 'database-url',
      QUARRY_IDENTITY_KEY: 'identity-key',
      ANTHROPIC_API_KEY: 'anthropic-api-key',
      OPENAI_API_KEY: 'openai-api-key',
    },
  },
  indexer: {
    port: { name: 'metrics', number: 9468 },
    probes: 'metrics',
    metricsPort: 9468,
    env: [
      'HOST',
      'LOG_LEVEL',
      'DATABASE_URL',
      'KAFKA_BROKERS',
      'QUARRY_OUTBOX_RELAY',
      'INDEXER_BATCH_SIZE',
      'QUARRY_OUTBOX_RETENTION',
      'METRICS_PORT',
      ...ENGINES,
    ],
    secrets: {
      DATABASE_URL: 'indexer-database-url',
      QDRANT_API_KEY: 'qdrant-api-key',
      EMBEDDINGS_API_KEY: 'embeddings-api-key',
    },
  },
};

export const SERVICE_NAMES = Object.keys(SERVICES) as ServiceName[];
export const GRPC_SERVICES = SERVICE_NAMES.filter((s) => SERVICES[s].probes === 'grpc');

/** The gateway's QUARRY_SERVICES entries: proto service → `<svc>:<port>`. */
export const GATEWAY_ROUTES: Readonly<Record<string, ServiceName>> = {
  'quarry.plan.v1.PlanService': 'plan-engine',
  'quarry.artifact.v1.ArtifactService': 'artifact-store',
  'quarry.search.v1.SearchService': 'search',
  'quarry.extraction.v1.ExtractionService': 'extraction',
};

/** Components whose pods may call the gRPC services (besides pods labelled internal-client). */
export const GRPC_CALLERS = ['gateway', 'indexer', 'plan-engine', 'artifact-store', 'extraction'];

export const MIGRATION_ENV = [
  'DATABASE_ADMIN_URL',
  'QUARRY_APP_ROLE',
  'QUARRY_APP_ROLE_PASSWORD',
  'QUARRY_INDEXER_ROLE',
  'QUARRY_INDEXER_ROLE_PASSWORD',
];
export const MIGRATION_SECRETS: Readonly<Record<string, string>> = {
  DATABASE_ADMIN_URL: 'database-admin-url',
  QUARRY_APP_ROLE_PASSWORD: 'app-role-password',
  QUARRY_INDEXER_ROLE_PASSWORD: 'indexer-role-password',
};

/** The keys of the one Secret (or existingSecret). */
export const SECRET_KEYS = [
  'database-url',
  'database-admin-url',
  'indexer-database-url',
  'app-role-password',
  'indexer-role-password',
  'identity-key',
  'qdrant-api-key',
  'embeddings-api-key',
  'anthropic-api-key',
  'openai-api-key',
];
/** Keys a deployment may leave out (the services run without them). */
export const OPTIONAL_SECRET_KEYS = ['qdrant-api-key', 'embeddings-api-key', 'anthropic-api-key', 'openai-api-key'];

/** Image per Dockerfile target. */
export const IMAGE_TARGETS: Readonly<Record<string, string>> = {
  gateway: 'quarry/gateway',
  'plan-engine': 'quarry/plan-engine',
  'artifact-store': 'quarry/artifact-store',
  search: 'quarry/search',
  extraction: 'quarry/extraction',
  indexer: 'quarry/indexer',
  cli: 'quarry/cli',
};

export const POD_LABELS = [
  'app.kubernetes.io/name',
  'app.kubernetes.io/instance',
  'app.kubernetes.io/component',
  'app.kubernetes.io/part-of',
];

// Metrics ------------------------------------------------------------------------------------

/** Quarry's own metrics, by type (histograms expose _bucket, _sum and _count series). */
export const QUARRY_METRICS = {
  counter: [
    'quarry_gateway_tool_calls_total',
    'quarry_gateway_http_responses_total',
    'quarry_gateway_tool_call_log_dropped_total',
    'quarry_indexer_events_total',
    'quarry_indexer_failures_total',
    'quarry_indexer_dead_letters_total',
    'quarry_plan_metrics_failures_total',
  ],
  gauge: [
    'quarry_gateway_tool_call_log_pending',
    'quarry_indexer_lag_seconds',
    'quarry_indexer_pending_events',
    'quarry_plan_stalled_plans',
  ],
  histogram: ['quarry_gateway_tool_call_duration_seconds', 'quarry_indexer_batch_duration_seconds'],
} as const;

/** prom-client's default process metrics (collectDefaultMetrics), on every /metrics. */
const PROCESS_METRICS = [
  'process_cpu_seconds_total',
  'process_cpu_user_seconds_total',
  'process_cpu_system_seconds_total',
  'process_resident_memory_bytes',
  'process_virtual_memory_bytes',
  'process_heap_bytes',
  'process_open_fds',
  'process_max_fds',
  'process_start_time_seconds',
  'nodejs_eventloop_lag_seconds',
  'nodejs_eventloop_lag_p50_seconds',
  'nodejs_eventloop_lag_p90_seconds',
  'nodejs_eventloop_lag_p99_seconds',
  'nodejs_heap_size_total_bytes',
  'nodejs_heap_size_used_bytes',
  'nodejs_external_memory_bytes',
  'nodejs_gc_duration_seconds_bucket',
  'nodejs_gc_duration_seconds_sum',
  'nodejs_gc_duration_seconds_count',
];

/** Series Prometheus itself records for every scrape target. */
const SCRAPE_METRICS = ['up', 'scrape_duration_seconds', 'scrape_samples_scraped'];

/** Every series name a dashboard or alert may read. */
export const EXPORTED_SERIES: ReadonlySet<string> = new Set([
  ...QUARRY_METRICS.counter,
  ...QUARRY_METRICS.gauge,
  ...QUARRY_METRICS.histogram.flatMap((h) => [`${h}_bucket`, `${h}_sum`, `${h}_count`]),
  ...PROCESS_METRICS,
  ...SCRAPE_METRICS,
]);
