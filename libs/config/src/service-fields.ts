import { z } from 'zod';
import { env } from './fields.js';

/**
 * Every service's default ports, in one table so that any two services run side by side on one
 * host (the separate-process topology) without a port set by hand; a test holds them distinct.
 * `port` is the gRPC or HTTP port (the indexer has none), `metricsPort` its Prometheus /metrics.
 */
export const DEFAULT_PORTS = {
  gateway: { port: 8080, metricsPort: 9463 },
  'plan-engine': { port: 50051, metricsPort: 9464 },
  'artifact-store': { port: 50052, metricsPort: 9465 },
  search: { port: 50053, metricsPort: 9466 },
  extraction: { port: 50054, metricsPort: 9467 },
  indexer: { metricsPort: 9468 },
} as const;

/**
 * HOST, METRICS_PORT, LOG_LEVEL and OTEL_EXPORTER_OTLP_ENDPOINT: what every Quarry process
 * reads. /metrics binds where HOST binds, so a service on loopback never exposes it wider.
 */
export function processFields(defaults: { metricsPort: number }) {
  return {
    HOST: env.host('127.0.0.1').describe('interface the service binds, its /metrics included (0.0.0.0 in a container)'),
    METRICS_PORT: env.port(defaults.metricsPort).describe('Prometheus GET /metrics on HOST (0 = any free port)'),
    LOG_LEVEL: env.logLevel(),
    OTEL_EXPORTER_OTLP_ENDPOINT: env.url().optional().describe('send traces over OTLP/HTTP (unset: no tracing)'),
  };
}

/** processFields plus PORT: a service that answers calls (gRPC, or the gateway's HTTP). */
export function serviceFields(defaults: { port: number; metricsPort: number }) {
  return {
    ...processFields(defaults),
    PORT: env.port(defaults.port).describe('gRPC or HTTP port on HOST (0 = any free port)'),
  };
}

/** DATABASE_URL: the login role the service connects as (never a superuser: row-level security applies). */
export function databaseUrlField(role: string) {
  return { DATABASE_URL: env.url().describe(`PostgreSQL connection as ${role} (row-level security applies)`) };
}

/** QUARRY_IDENTITY_KEY: the gateway signs each call's identity with it, every gRPC service verifies it. */
export const identityKeyField = {
  QUARRY_IDENTITY_KEY: z
    .string()
    .min(32, 'must be at least 32 characters (it signs and verifies the caller identity on every gRPC call)'),
};

/**
 * QUARRY_SERVICE_TOKEN_ISSUER and QUARRY_SERVICE_TOKEN_JWKS_URL: where a gRPC service checks
 * the access tokens of service accounts calling it directly (ADR 0036). Unset, a service
 * accepts only identities signed with QUARRY_IDENTITY_KEY.
 */
const serviceTokenFields = {
  QUARRY_SERVICE_TOKEN_ISSUER: z
    .url()
    .optional()
    .describe(
      "accept service accounts' access tokens from this issuer (the gateway's QUARRY_PUBLIC_URL under the embedded authorization server)",
    ),
  QUARRY_SERVICE_TOKEN_JWKS_URL: z.url().optional().describe("the issuer's public keys (default: <issuer>/oauth/jwks)"),
};

/** Where service-account tokens are checked, as `buildServiceServer` takes it. */
export interface ServiceTokenIssuer {
  issuer: string;
  jwksUrl?: string;
}

/** The ServiceTokenIssuer a loaded config names, or undefined when service accounts are off. */
function serviceTokenIssuerFrom(config: {
  QUARRY_SERVICE_TOKEN_ISSUER?: string | undefined;
  QUARRY_SERVICE_TOKEN_JWKS_URL?: string | undefined;
}): ServiceTokenIssuer | undefined {
  if (!config.QUARRY_SERVICE_TOKEN_ISSUER) return undefined;
  return { issuer: config.QUARRY_SERVICE_TOKEN_ISSUER, jwksUrl: config.QUARRY_SERVICE_TOKEN_JWKS_URL };
}

/** serviceFields, QUARRY_IDENTITY_KEY and the service-token fields: what every gRPC service reads. */
export function grpcServiceFields(defaults: { port: number; metricsPort: number }) {
  return { ...serviceFields(defaults), ...identityKeyField, ...serviceTokenFields };
}

/** What a gRPC service's start takes from the grpcServiceFields of a loaded config, named as its options name them. */
export function grpcServiceOptionsFrom(config: {
  HOST: string;
  PORT: number;
  METRICS_PORT: number;
  QUARRY_IDENTITY_KEY: string;
  QUARRY_SERVICE_TOKEN_ISSUER?: string | undefined;
  QUARRY_SERVICE_TOKEN_JWKS_URL?: string | undefined;
}): {
  host: string;
  port: number;
  metricsPort: number;
  identityKey: string;
  serviceTokens: ServiceTokenIssuer | undefined;
} {
  return {
    host: config.HOST,
    port: config.PORT,
    metricsPort: config.METRICS_PORT,
    identityKey: config.QUARRY_IDENTITY_KEY,
    serviceTokens: serviceTokenIssuerFrom(config),
  };
}
