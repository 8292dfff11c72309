import { identityV1, planV1 } from '@quarry/contracts';
import { createCursorCodec } from '@quarry/cursors';
import { createDb, type Kysely } from '@quarry/db';
import {
  buildServer,
  createGatewayRuntime,
  createIdentityAdmin,
  createLocalBackend,
  gatewaySchemas,
  type IdentityDatabase,
  loadGatewayConfig,
  type ToolBackend,
} from '@quarry/gateway';
import { type CallContext, Metadata, unaryHandlerOf } from '@quarry/grpc';
import { createPlanChangeListener, createPlanService, type PlanDatabase, planSchemas } from '@quarry/plan-engine';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase } from '@quarry/testing';
import { freePort } from './free-port.js';
import { stubBackends } from './stub-backend.js';

type BackendCall = Parameters<ToolBackend['unary']>[2];
const IDENTITY_KEY = 'k'.repeat(48);

/** The plan engine's own handlers served in-process (the same code and SQL as over gRPC). */
function planBackend(db: Kysely<PlanDatabase>, changes: ReturnType<typeof createPlanChangeListener>): ToolBackend {
  const logger = createLogger({ service: 'plan-engine-test', level: 'silent' });
  const service = createPlanService({
    db,
    changes,
    logger,
    stallThresholdMs: 30 * 60_000,
    cursors: createCursorCodec(IDENTITY_KEY, 'plan-engine'),
  }) as Record<string, unknown>;
  const implementation = Object.fromEntries(
    Object.entries(planV1.PlanServiceService).map(([name, method]) => {
      const handler = unaryHandlerOf(service[name])!;
      const serve = (request: never, call: BackendCall) => {
        const ctx: CallContext = {
          identity: call.identity,
          deadline: new Date(Date.now() + call.deadlineMs),
          signal: AbortSignal.timeout(call.deadlineMs),
          metadata: new Metadata(),
          method: method.path,
        };
        return handler(request, ctx);
      };
      return [name, serve];
    }),
  );
  return createLocalBackend(planV1.PlanServiceService, implementation);
}

/**
 * The gateway with the web app on a loopback port, over a fresh database holding its own schemas
 * and the plan engine's, whose handlers run in-process (the preferences page reads and writes
 * through them); the other services are stubs. With `seed`, organizations acme (owner Olive,
 * admin Adam, member Mia) and globex (owner Gus), each with a password; without, an empty
 * installation for first-run setup.
 */
export async function startPeopleApp(options: { seed?: boolean; env?: Record<string, string> } = {}) {
  const database = await createTestDatabase({ schemas: [...gatewaySchemas, ...planSchemas] });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const config = loadGatewayConfig({
    DATABASE_URL: database.appUrl,
    QUARRY_IDENTITY_KEY: IDENTITY_KEY,
    HOST: '127.0.0.1',
    PORT: String(port),
    QUARRY_PUBLIC_URL: base,
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const planDb = createDb<PlanDatabase>({ connectionString: database.appUrl, max: 4 });
  const changes = createPlanChangeListener({
    connectionString: database.appUrl,
    logger: createLogger({ service: 'plan-changes-test', level: 'silent' }),
  });
  await changes.start();
  const stub = stubBackends();
  const { [`${identityV1.protobufPackage}.IdentityService`]: _identity, ...services } = stub.backends;
  const runtime = await createGatewayRuntime({
    config,
    logger: createLogger({ service: 'gateway-test', level: 'silent' }),
    backends: { ...services, [`${planV1.protobufPackage}.PlanService`]: planBackend(planDb, changes) },
  });
  const app = await buildServer(runtime.deps);
  await app.listen({ host: '127.0.0.1', port });
  const admin = database.admin as Kysely<IdentityDatabase>;
  if (options.seed) {
    const { createOAuthAdmin } = await import('@quarry/gateway');
    const operator = createIdentityAdmin(admin);
    await operator.createOrg({ slug: 'acme', name: 'Acme Research' });
    await operator.createOrg({ slug: 'globex', name: 'Globex' });
    for (const [email, org, name, role] of [
      ['owner@acme.test', 'acme', 'Olive', 'owner'],
      ['admin@acme.test', 'acme', 'Adam', 'admin'],
      ['mia@acme.test', 'acme', 'Mia', 'member'],
      ['gus@globex.test', 'globex', 'Gus', 'owner'],
    ] as const) {
      await operator.addUser({ email, orgSlug: org, name, role });
      await createOAuthAdmin(admin).setPassword(email, PASSWORD);
    }
  }
  return {
    base,
    app,
    admin,
    runtime,
    async close() {
      await app.close();
      await runtime.close();
      await changes.close();
      await planDb.destroy();
      await database.drop();
    },
  };
}

export const PASSWORD = 'correct horse battery staple';
export type PeopleApp = Awaited<ReturnType<typeof startPeopleApp>>;
