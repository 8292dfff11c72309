import { describe, expect, it } from '@jest/globals';
import {
  ConfigError,
  DEFAULT_PORTS,
  databaseUrlField,
  explainBindError,
  grpcServiceFields,
  grpcServiceOptionsFrom,
  identityKeyField,
  loadConfig,
  PortInUseError,
  processFields,
  serviceFields,
  z,
} from '@quarry/config';

describe('the fields every service shares', () => {
  const schema = z.object({
    ...serviceFields({ port: 50051, metricsPort: 9464 }),
    ...databaseUrlField('the app role'),
    ...identityKeyField,
  });
  const required = { DATABASE_URL: 'postgres://app@db/quarry', QUARRY_IDENTITY_KEY: 'k'.repeat(32) };

  it('default to loopback, the ports given, and info logs without tracing', () => {
    expect(loadConfig(schema, required)).toEqual({
      ...required,
      HOST: '127.0.0.1',
      PORT: 50051,
      METRICS_PORT: 9464,
      LOG_LEVEL: 'info',
    });
  });

  it('refuse bad values, naming each variable', () => {
    const attempt = () =>
      loadConfig(schema, {
        DATABASE_URL: 'db',
        QUARRY_IDENTITY_KEY: 'short',
        PORT: '70000',
        METRICS_PORT: 'x',
        LOG_LEVEL: 'loud',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'nowhere',
      });
    expect(attempt).toThrow(ConfigError);
    for (const name of [
      'DATABASE_URL',
      'QUARRY_IDENTITY_KEY: must be at least 32 characters',
      'PORT',
      'METRICS_PORT',
      'LOG_LEVEL',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    ])
      expect(attempt).toThrow(name);
  });

  it('leave PORT out for a process that answers no calls', () => {
    const worker = loadConfig(z.object(processFields({ metricsPort: 9468 })), {});
    expect(worker).toEqual({ HOST: '127.0.0.1', METRICS_PORT: 9468, LOG_LEVEL: 'info' });
  });

  it('of a gRPC service add the identity key and the service-token issuer, handed to its start under its option names', () => {
    const grpc = z.object(grpcServiceFields({ port: 50052, metricsPort: 9465 }));
    const key = { QUARRY_IDENTITY_KEY: 'k'.repeat(32) };
    expect(grpcServiceOptionsFrom(loadConfig(grpc, key))).toEqual({
      host: '127.0.0.1',
      port: 50052,
      metricsPort: 9465,
      identityKey: key.QUARRY_IDENTITY_KEY,
      serviceTokens: undefined,
    });
    const withTokens = loadConfig(grpc, {
      ...key,
      HOST: '0.0.0.0',
      QUARRY_SERVICE_TOKEN_ISSUER: 'https://quarry.example.com',
      QUARRY_SERVICE_TOKEN_JWKS_URL: 'https://quarry.example.com/keys',
    });
    expect(grpcServiceOptionsFrom(withTokens)).toMatchObject({
      host: '0.0.0.0',
      serviceTokens: { issuer: 'https://quarry.example.com', jwksUrl: 'https://quarry.example.com/keys' },
    });
    expect(() => loadConfig(grpc, {})).toThrow('QUARRY_IDENTITY_KEY');
  });

  it('give every service ports of its own, so any two run side by side on one host', () => {
    const ports = Object.values(DEFAULT_PORTS).flatMap((p) =>
      'port' in p ? [p.port, p.metricsPort] : [p.metricsPort],
    );
    expect(ports).toHaveLength(11);
    expect(new Set(ports).size).toBe(ports.length);
    expect(Object.keys(DEFAULT_PORTS).sort()).toEqual([
      'artifact-store',
      'extraction',
      'gateway',
      'indexer',
      'plan-engine',
      'search',
    ]);
  });
});

describe('explainBindError', () => {
  const failed = (code: string) => Object.assign(new Error(`listen ${code}: 127.0.0.1:50051`), { code });

  it('turns a busy port into a configuration error naming the variable to change', () => {
    const error = explainBindError('METRICS_PORT', '127.0.0.1', 9464, failed('EADDRINUSE'));
    expect(error).toBeInstanceOf(PortInUseError);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ variable: 'METRICS_PORT', host: '127.0.0.1', port: 9464 });
    expect((error as Error).message).toBe(
      'Invalid configuration:\n  - METRICS_PORT 9464 is already in use on 127.0.0.1:9464 (another process listens there): set METRICS_PORT to a free port',
    );
  });

  it('reads a busy port from the message where there is no code (grpc-js), and writes an IPv6 host in brackets', () => {
    const grpcJs = new Error(
      'No address added out of total 1 resolved errors: [listen EADDRINUSE: address already in use ::1:50051]',
    );
    expect((explainBindError('PORT', '::1', 50051, grpcJs) as Error).message).toContain(
      'PORT 50051 is already in use on [::1]:50051',
    );
  });

  it('names PORT for a privileged port and HOST for an address the machine does not have', () => {
    expect((explainBindError('PORT', '0.0.0.0', 80, failed('EACCES')) as Error).message).toContain(
      'PORT 80 may not be bound on 0.0.0.0:80 by this user',
    );
    expect((explainBindError('PORT', '10.9.9.9', 50051, failed('EADDRNOTAVAIL')) as Error).message).toContain(
      'HOST 10.9.9.9 is not an address of this machine',
    );
  });

  it('passes any other error on untouched', () => {
    const other = failed('EMFILE');
    expect(explainBindError('PORT', '127.0.0.1', 1, other)).toBe(other);
  });
});
