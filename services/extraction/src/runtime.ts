import type { ServiceTokenIssuer } from '@quarry/config';
import { hkdfSync } from 'node:crypto';
import { extractionV1 } from '@quarry/contracts';
import { buildServiceServer, listenService, type ListeningService } from '@quarry/grpc';
import { serviceMetrics, type ServiceOptions } from '@quarry/telemetry';
import { createArtifactsClient } from './artifacts.js';
import { stopCompileProbe } from './schema/compile-probe.js';
import { createExtractionService, type ExtractionServiceDeps } from './service.js';

/** The service's deps (providers, choice, sampling, timeouts, logger) and where to listen and call. */
export interface ExtractionOptions
  extends Omit<ExtractionServiceDeps, 'artifacts' | 'guardOptions' | 'logger' | 'handleKey'>, ServiceOptions {
  identityKey: string;
  /** Also accept service accounts' tokens from this issuer (QUARRY_SERVICE_TOKEN_ISSUER). */
  serviceTokens?: ServiceTokenIssuer;
  /** EXTRACTION_HANDLE_KEY; derived from the identity key when not given. */
  handleKey?: string;
  /** gRPC port (0 = any free port). */
  port: number;
  /** host:port of the artifact store (source artifacts' text, storing results). */
  artifactStoreAddress: string;
}

export type Extraction = ListeningService;

/**
 * Connects the artifact-store client, builds the server and listens. Used by `main.ts` (its own
 * process, /metrics on METRICS_PORT) and by `quarry start` (every service in one process, real gRPC).
 */
export async function startExtraction(options: ExtractionOptions): Promise<Extraction> {
  const { identityKey, artifactStoreAddress, host, port, metricsPort, metrics, handleKey, ...deps } = options;
  const artifacts = createArtifactsClient({ address: artifactStoreAddress, identityKey });
  const server = buildServiceServer({
    definition: extractionV1.ExtractionServiceService,
    implementation: createExtractionService({ ...deps, artifacts, handleKey: handleKeyFrom(handleKey, identityKey) }),
    identityKey,
    serviceTokens: options.serviceTokens,
    logger: deps.logger,
  });
  return listenService(server, {
    host,
    port,
    metricsPort,
    metrics: serviceMetrics('extraction', { metrics, metricsPort }),
    release: async () => {
      artifacts.close();
      await stopCompileProbe();
    },
  });
}

/**
 * The handle-signing key: EXTRACTION_HANDLE_KEY as given, or one derived (HKDF-SHA256) from the
 * identity key, which every replica shares already; never the identity key itself.
 */
function handleKeyFrom(configured: string | undefined, identityKey: string): Buffer {
  if (configured) return Buffer.from(configured, 'utf8');
  return Buffer.from(hkdfSync('sha256', identityKey, 'quarry', 'extraction submission handles', 32));
}
