import { createIdentityVerifier, listenService } from '@quarry/grpc';
import { createArtifactsClient } from './artifacts.js';
import { stopCompileProbe } from './schema/compile-probe.js';
import { buildServer } from './server.js';
import type { ExtractionServiceDeps } from './service.js';

/** The service's deps (providers, choice, sampling, timeouts, logger) and where to listen and call. */
export interface ExtractionRuntimeOptions extends Omit<ExtractionServiceDeps, 'artifacts' | 'guardOptions'> {
  identityKey: string;
  /** host:port of the artifact store (source artifacts' text, storing results). */
  artifactStoreAddress: string;
  host: string;
  port: number;
}

/**
 * Connects the artifact-store client, builds the server and listens. Used by `main.ts` (a
 * container) and by `quarry start` (all services in one process, real gRPC).
 */
export async function startExtraction(options: ExtractionRuntimeOptions) {
  const { identityKey, artifactStoreAddress, host, port, ...deps } = options;
  const artifacts = createArtifactsClient({ address: artifactStoreAddress, identityKey });
  const server = buildServer({ ...deps, artifacts, verifier: createIdentityVerifier({ key: identityKey }) });
  return listenService(server, host, port, async () => {
    artifacts.close();
    await stopCompileProbe();
  });
}

export type Extraction = Awaited<ReturnType<typeof startExtraction>>;
