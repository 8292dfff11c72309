import { runService } from '@quarry/telemetry';
import { loadGatewayConfig } from './config.js';

// The gateway as its own process (as in Kubernetes): migrations already applied by `quarry
// migrate`, services reached at QUARRY_SERVICES; HTTP on HOST:PORT, /metrics on HOST:METRICS_PORT.
await runService({
  service: 'gateway',
  loadConfig: loadGatewayConfig,
  start: async (config, logger) =>
    (await import('./start.js')).startGateway({
      config,
      logger,
      serviceAddresses: config.QUARRY_SERVICES,
      metricsPort: config.METRICS_PORT,
    }),
  shutdownMs: 10_000,
});
