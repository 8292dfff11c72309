import { extractionV1 } from '@quarry/contracts';
import { buildServiceServer, listenService, type ListeningService } from '@quarry/grpc';
import { serviceMetrics, type ServiceOptions } from '@quarry/telemetry';
import { createArtifactsClient } from './artifacts.js';
import { stopCompileProbe } from './schema/compile-probe.js';
import { createExtractionService, type ExtractionServiceDeps } from './service.js';

/** The service's deps (providers, choice, sampling, timeouts, logger) and where to listen and call. */
export interface ExtractionOptions
  extends Omit<ExtractionServiceDeps, 'artifacts' | 'guardOptions' | 'logger'>, ServiceOptions {
  identityKey: string;
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
  const { identityKey, artifactStoreAddress, host, port, metricsPort, metrics, ...deps } = options;
  const artifacts = createArtifactsClient({ address: artifactStoreAddress, identityKey });
  const server = buildServiceServer({
    definition: extractionV1.ExtractionServiceService,
    implementation: createExtractionService({ ...deps, artifacts }),
    identityKey,
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
