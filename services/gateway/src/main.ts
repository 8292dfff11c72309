import { createLogger, startTelemetry } from '@quarry/telemetry';
import closeWithGrace from 'close-with-grace';
import { loadGatewayConfig } from './config.js';

// Run the gateway alone (as in Kubernetes): config from the environment, migrations already
// applied by `quarry migrate`, services reached at QUARRY_SERVICES.
const config = loadGatewayConfig();
const telemetry = startTelemetry({ service: 'gateway', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
const { buildServer } = await import('./server.js');
const { createGatewayRuntime } = await import('./runtime.js');
const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
const runtime = await createGatewayRuntime({ config, logger, serviceAddresses: config.QUARRY_SERVICES });
const app = await buildServer(runtime.deps);
await app.listen({ host: config.HOST, port: config.PORT });

closeWithGrace({ delay: 10_000, logger }, async ({ err }) => {
  if (err) logger.error({ err }, 'shutting down after an error');
  runtime.beginDrain();
  await app.close();
  await runtime.close();
  await telemetry.shutdown();
});
