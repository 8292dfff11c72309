import { createIdentityVerifier, listenService } from '@quarry/grpc';
import type { Logger } from 'pino';
import { createArtifactsClient } from './artifacts.js';
import { stopCompileProbe } from './core/compile-probe.js';
import type { ConfiguredProvider, ExtractionProviders } from './selection.js';
import { buildServer } from './server.js';

export interface ExtractionRuntimeOptions {
  identityKey: string;
  /** host:port of the artifact store (source artifacts' text, storing results). */
  artifactStoreAddress: string;
  /** The server-side providers (`providersFromConfig`). */
  providers: ExtractionProviders;
  /** EXTRACTION_PROVIDER. */
  provider: ConfiguredProvider;
  /** EXTRACTION_SAMPLING. */
  samplingEnabled: boolean;
  /** EXTRACTION_TIMEOUT in ms: the budget of one model call. */
  timeoutMs: number;
  /** EXTRACTION_MAX_TOKENS, for sampling requests. */
  maxTokens: number;
  logger: Logger;
  host: string;
  port: number;
}

/**
 * Connects the artifact-store client, builds the server and listens. Used by `main.ts` (a
 * container) and by `quarry start` (all services in one process, real gRPC).
 */
export async function startExtraction(options: ExtractionRuntimeOptions) {
  const artifacts = createArtifactsClient({ address: options.artifactStoreAddress, identityKey: options.identityKey });
  const server = buildServer({
    artifacts,
    providers: options.providers,
    provider: options.provider,
    samplingEnabled: options.samplingEnabled,
    timeoutMs: options.timeoutMs,
    maxTokens: options.maxTokens,
    logger: options.logger,
    verifier: createIdentityVerifier({ key: options.identityKey }),
  });
  return listenService(server, options.host, options.port, async () => {
    artifacts.close();
    await stopCompileProbe();
  });
}

export type Extraction = Awaited<ReturnType<typeof startExtraction>>;
