// The gateway alone in a process of its own, for the gateway CPU phase: the bench process holds
// PostgreSQL, the services and the load, and reads this process's CPU time over IPC.
// Environment: QUARRY_BENCH_GATEWAY (JSON: databaseUrl, identityKey, serviceAddresses, client).
import { buildServer, createGatewayRuntime, loadGatewayConfig, type ToolBackend } from '@quarry/gateway';
import { createIdentitySigner } from '@quarry/grpc';
import { createLogger } from '@quarry/telemetry';
import { connectBackend, type GatewayClient } from './gateway-clients.js';

export interface GatewayProcessSettings {
  databaseUrl: string;
  identityKey: string;
  serviceAddresses: Record<string, string>;
  client: GatewayClient;
}

export type GatewayProcessMessage = { type: 'listening'; url: string } | { type: 'cpu'; micros: number };

const settings = JSON.parse(process.env.QUARRY_BENCH_GATEWAY ?? '{}') as GatewayProcessSettings;
const send = (message: GatewayProcessMessage) => process.send!(message);

const config = loadGatewayConfig({
  DATABASE_URL: settings.databaseUrl,
  QUARRY_IDENTITY_KEY: settings.identityKey,
  HOST: '127.0.0.1',
  PORT: '0',
  QUARRY_RATE_LIMIT_PER_MINUTE: '1000000000',
});
const logger = createLogger({ service: 'bench-gateway', level: 'warn' });
const signer = createIdentitySigner({ key: config.QUARRY_IDENTITY_KEY, issuer: 'quarry-gateway' });
// The gateway's own client is what createGatewayRuntime builds; any other replaces it for every service.
const make = settings.client === 'connect' ? connectBackend : undefined;
const backends: Record<string, ToolBackend & { close(): void }> = make
  ? Object.fromEntries(
      Object.entries(settings.serviceAddresses).map(([service, address]) => [
        service,
        make(address, signer, config.QUARRY_GRPC_DEADLINE),
      ]),
    )
  : {};

const runtime = await createGatewayRuntime({
  config,
  logger,
  serviceAddresses: settings.serviceAddresses,
  backends,
});
const app = await buildServer(runtime.deps);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
send({ type: 'listening', url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp` });

process.on('message', (message: { type: string }) => {
  if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    send({ type: 'cpu', micros: user + system });
  } else if (message.type === 'close') {
    void (async () => {
      runtime.beginDrain();
      await app.close();
      await runtime.close();
      for (const backend of Object.values(backends)) backend.close();
      process.exit(0);
    })();
  }
});
