import type { ServiceTokenIssuer } from '@quarry/config';
import { hkdfSync } from 'node:crypto';
import { extractionV1 } from '@quarry/contracts';
import { createDb } from '@quarry/db';
import type { Kysely } from 'kysely';
import { buildServiceServer, listenService, type ListeningService, type ServiceTarget } from '@quarry/grpc';
import { createQuotaMetrics, serviceMetrics, type ServiceOptions } from '@quarry/telemetry';
import { createArtifactsClient } from './artifacts.js';
import { createJobRunner } from './jobs/job-runner.js';
import { runExtractionJob } from './jobs/job-work.js';
import { createCitationVerifications } from './store/citation-verifications.js';
import type { DailyLimits } from './core/daily-quota.js';
import { createModelQuotas } from './store/model-quotas.js';
import { createPendingSubmissions } from './store/pending-submissions.js';
import { stopCompileProbe } from './schema/compile-probe.js';
import { createExtractionService, type ExtractionServiceDeps } from './service.js';

/** The service's deps (providers, choice, sampling, timeouts, logger) and where to listen and call. */
export interface ExtractionOptions
  extends
    Omit<
      ExtractionServiceDeps,
      'artifacts' | 'guardOptions' | 'logger' | 'handleKey' | 'submissions' | 'verifications' | 'jobs' | 'modelQuotas'
    >,
    ServiceOptions {
  /** App-role connection (RLS applies): pending submissions and jobs (the `extraction` schema). */
  databaseUrl: string;
  /** EXTRACTION_JOB_TTL: how long a job and its outcome are kept (default 24 h). */
  jobTtlMs?: number;
  /** QUOTA_EXTRACTIONS_PER_DAY, QUOTA_MODEL_TOKENS_PER_DAY: every org's unless the operator set its own. */
  modelQuotaDefaults?: DailyLimits;
  /** EXTRACTION_JOB_LEASE: how long a running job stays an instance's without renewal (default 30 s). */
  jobLeaseMs?: number;
  identityKey: string;
  /** Also accept service accounts' tokens from this issuer (QUARRY_SERVICE_TOKEN_ISSUER). */
  serviceTokens?: ServiceTokenIssuer;
  /** EXTRACTION_HANDLE_KEY; derived from the identity key when not given. */
  handleKey?: string;
  /** gRPC port (0 = any free port). */
  port: number;
  /** host:port of the artifact store (or the store in this process): source artifacts' text, storing results. */
  artifactStoreAddress: ServiceTarget;
}

export type Extraction = ListeningService;

/**
 * Connects the artifact-store client, builds the server and listens. Used by `main.ts` (its own
 * process, /metrics on METRICS_PORT) and by `quarry start` (every service in one process, real gRPC).
 */
export async function startExtraction(options: ExtractionOptions): Promise<Extraction> {
  const {
    identityKey,
    artifactStoreAddress,
    host,
    port,
    metricsPort,
    metrics,
    handleKey,
    databaseUrl,
    jobTtlMs,
    jobLeaseMs,
    modelQuotaDefaults,
    ...rest
  } = options;
  const registry = serviceMetrics('extraction', { metrics, metricsPort });
  const db = createDb<unknown>({ connectionString: databaseUrl, applicationName: 'quarry-extraction', max: 10 });
  const artifacts = createArtifactsClient({ address: artifactStoreAddress, identityKey });
  const deps: ExtractionServiceDeps = {
    ...rest,
    artifacts,
    handleKey: handleKeyFrom(handleKey, identityKey),
    submissions: createPendingSubmissions(db as Kysely<unknown>),
    verifications: createCitationVerifications(db as Kysely<unknown>),
    modelQuotas: createModelQuotas(db as Kysely<unknown>, modelQuotaDefaults ?? {}, {
      metrics: createQuotaMetrics(registry),
    }),
  };
  const jobs = createJobRunner({
    db: db as Kysely<unknown>,
    logger: rest.logger,
    ttlMs: jobTtlMs ?? DEFAULT_JOB_TTL_MS,
    leaseMs: jobLeaseMs ?? DEFAULT_JOB_LEASE_MS,
    work: (job, signal) => runExtractionJob(deps, job, signal),
  });
  deps.jobs = jobs;
  const server = buildServiceServer({
    definition: extractionV1.ExtractionServiceService,
    implementation: createExtractionService(deps),
    identityKey,
    serviceTokens: options.serviceTokens,
    logger: rest.logger,
  });
  const listening = await listenService(server, {
    host,
    port,
    metricsPort,
    metrics: registry,
    release: async () => {
      // Jobs running here stop and are left for the next instance's sweep (their rows stay running).
      await jobs.close();
      artifacts.close();
      await stopCompileProbe();
      await db.destroy();
    },
  });
  // Jobs an instance that stopped left behind are resumed now, not a lease later.
  void jobs.start();
  return listening;
}

/** A job is read back for a day: a person may come back to a conversation hours later. */
const DEFAULT_JOB_TTL_MS = 24 * 60 * 60 * 1000;
/** Renewed every 10 s while the job runs; a stopped instance's jobs are resumed within about this. */
const DEFAULT_JOB_LEASE_MS = 30_000;

/**
 * The handle-signing key: EXTRACTION_HANDLE_KEY as given, or one derived (HKDF-SHA256) from the
 * identity key, which every replica shares already; never the identity key itself.
 */
function handleKeyFrom(configured: string | undefined, identityKey: string): Buffer {
  if (configured) return Buffer.from(configured, 'utf8');
  return Buffer.from(hkdfSync('sha256', identityKey, 'quarry', 'extraction submission handles', 32));
}
