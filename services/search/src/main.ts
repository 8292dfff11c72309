import { createLogger, startTelemetry } from '@quarry/telemetry';
import closeWithGrace from 'close-with-grace';
import { openSearchBackends } from '@quarry/search-index';
import { loadSearchConfig } from './config.js';

// The search service alone (its container): config, telemetry before grpc loads, open the
// engines, listen. Here the indexer is another process writing the same embedded LanceDB
// directory, so reads re-check for its writes every SEARCH_READ_CONSISTENCY.
const config = loadSearchConfig();
const telemetry = startTelemetry({ service: 'search', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
const { startSearch } = await import('./runtime.js');
const logger = createLogger({ service: 'search', level: config.LOG_LEVEL });
let backends: Awaited<ReturnType<typeof openSearchBackends>>;
try {
  backends = await openSearchBackends(config, {
    readConsistencyIntervalSeconds: config.SEARCH_READ_CONSISTENCY / 1000,
  });
} catch (err) {
  logger.fatal({ err }, 'cannot open the search indexes');
  await telemetry.shutdown();
  process.exit(1);
}
const search = await startSearch({
  backends,
  identityKey: config.QUARRY_IDENTITY_KEY,
  logger,
  host: config.HOST,
  port: config.PORT,
});
logger.info({ address: search.address, engines: backends.describe }, 'search listening');

closeWithGrace({ delay: 15_000, logger }, async ({ err }) => {
  if (err) logger.error({ err }, 'shutting down after an error');
  await search.close();
  await backends.close();
  await telemetry.shutdown();
});
