import { identityV1 } from '@quarry/contracts';
import {
  buildServer,
  createGatewayRuntime,
  createIdentityAdmin,
  gatewaySchemas,
  type GatewayRuntimeOptions,
  type IdentityDatabase,
  loadGatewayConfig,
} from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase } from '@quarry/testing';
import type { Kysely } from 'kysely';
import { stubBackends } from './stub-backend.js';

/**
 * The gateway alone, as it runs: its runtime over a fresh migrated database (identity, OAuth's
 * authorization server, tokens, the tool-call log, MCP tasks, plan-change notifications) on a
 * free loopback port, with one member — and stub services behind it (`stub.reply` sets what a
 * tool's rpc answers). For what the gateway itself does with a database; what crosses into the
 * services is tested with the whole system (harness.ts).
 */
export async function startGatewayOnly(
  env: Record<string, string> = {},
  runtimeOptions: Pick<GatewayRuntimeOptions, 'oauthFetch'> = {},
) {
  const database = await createTestDatabase({ schemas: [...gatewaySchemas] });
  const admin = createIdentityAdmin(database.admin as Kysely<IdentityDatabase>);
  await admin.createOrg({ slug: 'acme', name: 'Acme Research' });
  await admin.addUser({ email: 'ada@acme.test', orgSlug: 'acme', name: 'Ada Lovelace' });
  const { token, id: tokenId } = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test', name: 'tests' });
  const config = loadGatewayConfig({
    DATABASE_URL: database.appUrl,
    QUARRY_IDENTITY_KEY: 'k'.repeat(48),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const stub = stubBackends();
  // The identity service is the gateway's own and runs in-process as in production.
  const { [`${identityV1.protobufPackage}.IdentityService`]: _identity, ...services } = stub.backends;
  const runtime = await createGatewayRuntime({
    config,
    logger: createLogger({ service: 'gateway-test', level: 'silent' }),
    backends: services,
    ...runtimeOptions,
  });
  const app = await buildServer(runtime.deps);
  await app.listen({ host: '127.0.0.1', port: Number(config.PORT) });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    url: `${base}/mcp`,
    /** The server itself, for `app.inject()`. */
    app,
    token,
    tokenId,
    admin,
    database,
    runtime,
    stub,
    async close() {
      await app.close();
      await runtime.close();
      await database.drop();
    },
  };
}
