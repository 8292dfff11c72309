import { importUrlFields, storageQuotaFields, urlImportOptionsFrom } from '@quarry/artifact-store';
import { explainBindError, loadConfig, z } from '@quarry/config';
import { extractionModelsConfigSchema } from '@quarry/extraction';
import { buildServer, createGatewayRuntime, type GatewayConfig, loadGatewayConfig } from '@quarry/gateway';
import { outboxRetentionField } from '@quarry/indexer';
import { auditCheckpointFields } from '@quarry/plan-engine';
import { searchBackendsConfigSchema } from '@quarry/search-index';
import type { KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import { closeInOrder } from './close-in-order.js';
import { startServices, type Services } from './services.js';

/**
 * QUARRY_SERVICE_TRANSPORT: how the gateway and the services reach each other in one process.
 * `in-process` calls the same servers without HTTP/2 or a socket; `grpc` goes over their loopback
 * ports as separate processes do (each service listens either way, for grpcurl and service accounts).
 */
const transportField = {
  QUARRY_SERVICE_TRANSPORT: z.enum(['in-process', 'grpc']).default('in-process'),
};

export interface StartSystemOptions {
  /** The app role's connection (RLS applies): the gateway's DATABASE_URL and every request-serving service's. */
  databaseUrl: string;
  /** The indexer role's connection (see ServiceRoles.indexer). */
  indexerDatabaseUrl: string;
  /** QUARRY_IDENTITY_KEY: the gateway signs the caller's identity with it, every service checks it. */
  identityKey: string;
  /**
   * QUARRY_DATA_DIR: where the embedded search indexes live (unless search engines are
   * configured). The caller's: it is neither created nor removed here. close() resolves only
   * once nothing writes under it any more, so the caller may remove it right after.
   */
  dataDir: string;
  /**
   * Every other setting, read as each process reads its own environment: the gateway's (HOST,
   * PORT, QUARRY_*), the search engines', the extraction models', QUARRY_OUTBOX_RETENTION,
   * QUARRY_IMPORT_URL_*,
   * QUARRY_SERVICE_TRANSPORT.
   */
  env?: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  /**
   * The services also accept service accounts' access tokens from the embedded authorization
   * server (issuer: the gateway's public URL), unless the gateway trusts an external issuer
   * (QUARRY_OAUTH_ISSUER). Only where that URL is known before listening (not PORT=0 without
   * QUARRY_PUBLIC_URL). Default false: signed identities only.
   */
  serviceAccounts?: boolean;
  /** How long close() lets each service finish the calls in flight. Default 10 s. */
  closeGraceMs?: number;
  /** How the embedded authorization server fetches Client ID Metadata Documents (tests only). */
  oauthFetch?: typeof fetch;
}

/** The whole system, running; see startSystem. */
export interface RunningSystem {
  /** The MCP endpoint, e.g. http://127.0.0.1:8080/mcp. */
  url: string;
  /** The gateway's origin, e.g. http://127.0.0.1:8080. */
  base: string;
  port: number;
  /** The gateway's configuration, as loaded from `env`. */
  config: GatewayConfig;
  services: Services;
  /** The gateway's runtime (what its HTTP server was built from): its deps, its tool-call log. */
  runtime: Awaited<ReturnType<typeof createGatewayRuntime>>;
  /**
   * Stop advertising readiness, close the gateway (in-flight requests finish), then every
   * service, the indexer before the search indexes. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Every backend service and the gateway in front of them, on a database already migrated (with
 * its roles provisioned): what `quarry start` runs in one process, and what the gateway's
 * end-to-end tests, the CLI's tests and the benchmark start. The gateway routes tools to the
 * services through the in-process transport (ADR 0053; QUARRY_SERVICE_TRANSPORT=grpc: over
 * loopback gRPC, ADR 0006), its /metrics appends theirs, and it listens on
 * HOST:PORT (a busy port is a PortInUseError). Every setting is read before anything starts, and
 * whatever started is stopped again when a later step fails.
 */
export async function startSystem(options: StartSystemOptions): Promise<RunningSystem> {
  const { logger, env = {}, closeGraceMs = 10_000 } = options;
  const config = loadGatewayConfig({
    ...env,
    DATABASE_URL: options.databaseUrl,
    QUARRY_IDENTITY_KEY: options.identityKey,
  });
  const search = loadConfig(searchBackendsConfigSchema, { ...env, QUARRY_DATA_DIR: options.dataDir });
  const extraction = loadConfig(extractionModelsConfigSchema, env);
  const { QUARRY_OUTBOX_RETENTION, QUARRY_OUTBOX_COMPACTION_INTERVAL } = loadConfig(
    z.object(outboxRetentionField),
    env,
  );
  const audit = loadConfig(z.object(auditCheckpointFields), env);
  const urlImports = urlImportOptionsFrom(loadConfig(z.object(importUrlFields), env));
  const storage = loadConfig(z.object(storageQuotaFields), env);
  const { QUARRY_SERVICE_TRANSPORT: transport } = loadConfig(z.object(transportField), env);

  const services = await startServices({
    databaseUrl: config.DATABASE_URL,
    indexerDatabaseUrl: options.indexerDatabaseUrl,
    identityKey: config.QUARRY_IDENTITY_KEY,
    serviceTokens: options.serviceAccounts && !config.QUARRY_OAUTH_ISSUER ? { issuer: config.publicUrl } : undefined,
    search,
    extraction,
    outboxRetentionMs: QUARRY_OUTBOX_RETENTION,
    outboxCompactionIntervalMs: QUARRY_OUTBOX_COMPACTION_INTERVAL,
    auditSigningKey: audit.QUARRY_AUDIT_SIGNING_KEY_FILE as KeyObject | undefined,
    auditCheckpointIntervalMs: audit.QUARRY_AUDIT_CHECKPOINT_INTERVAL,
    urlImports,
    storageQuotas: { storageBytes: storage.QUOTA_STORAGE_BYTES, artifacts: storage.QUOTA_ARTIFACTS },
    transport,
    logger,
  });
  let runtime: RunningSystem['runtime'] | undefined;
  let app: Awaited<ReturnType<typeof buildServer>> | undefined;
  // The gateway before the services, so no call reaches a service that has stopped.
  const close = () =>
    closeInOrder([
      () => runtime?.beginDrain(),
      () => app?.close(),
      () => runtime?.close(),
      () => services.close(closeGraceMs),
    ]);
  const { HOST: host, PORT: port } = config;
  try {
    runtime = await createGatewayRuntime({
      config,
      logger,
      serviceAddresses: {
        ...config.QUARRY_SERVICES,
        ...(transport === 'grpc' ? services.addresses : services.inProcess),
      },
      alsoExpose: services.registries,
      oauthFetch: options.oauthFetch,
    });
    app = await buildServer(runtime.deps);
    await app.listen({ host, port }).catch((error: unknown) => {
      throw explainBindError('PORT', host, port, error);
    });
  } catch (error) {
    await close().catch((err: unknown) => logger.error({ err }, 'could not stop everything after a failed start'));
    throw error;
  }
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  let closing: Promise<void> | undefined;
  return {
    url: `${base}/mcp`,
    base,
    port: bound,
    config,
    services,
    runtime,
    close: () => (closing ??= close()),
  };
}
