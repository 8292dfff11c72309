import { randomBytes } from 'node:crypto';
import { startSystem, type Services } from '@quarry/system';
import { APP_ROLE, INDEXER_ROLE, migrateAll } from '@quarry/cli';
import { planV1 } from '@quarry/contracts';
import { createCursorCodec } from '@quarry/cursors';
import { appUrlFrom, createDb, sql, startEmbeddedPostgres } from '@quarry/db';
import { createIdentityAdmin, type IdentityDatabase, startGateway } from '@quarry/gateway';
import { createIdentitySigner, createRawClient, type Identity } from '@quarry/grpc';
import { createPlanChangeListener, type PlanDatabase } from '@quarry/plan-engine';
import { createLogger, type Logger } from '@quarry/telemetry';
import { inProcessPlanBackend } from './monolith.js';

const PLAN_SERVICE = `${planV1.protobufPackage}.PlanService`;

export interface BenchSystem {
  /** MCP endpoint of Quarry as `npm start` runs it: gateway → in-process transport → plan engine. */
  quarryUrl: string;
  /**
   * MCP endpoint of the same one-process Quarry over loopback gRPC instead (QUARRY_SERVICE_TRANSPORT=grpc):
   * a second gateway over the same services, so the in-process transport is priced in the same run.
   */
  quarryGrpcUrl: string;
  /** MCP endpoint of the monolith baseline: the same gateway calling the plan handlers in-process. */
  monolithUrl: string;
  /** Bearer token of the benchmark's own member (org `bench`). */
  token: string;
  /** Every backend service as `quarry start` runs them (search backends and indexer included), for in-process baselines. */
  services: Services;
  /** What a gateway in another process needs to serve the same system (the gateway CPU phase). */
  gatewaySettings: { databaseUrl: string; identityKey: string; serviceAddresses: Record<string, string> };
  /** A new org `slug` with an owner and a token: phases keep their data apart (e.g. a search corpus of its own). */
  createMember(slug: string): Promise<BenchMember>;
  /** A directory of this run for scratch data (removed with the run). */
  scratchDir: string;
  /** The embedded PostgreSQL's superuser URL (the audit phase measures the chain with and without its trigger). */
  adminUrl: string;
  /**
   * get_plan_status straight to Quarry's plan engine, over the client the gateway itself uses
   * (`createRawClient`, ADR 0022) with the generated codec: what the gateway adds is measured
   * against exactly the hop it makes, not against a heavier or lighter client.
   */
  getPlanStatusDirect(request: planV1.GetPlanStatusRequest): Promise<planV1.GetPlanStatusResponse>;
  /**
   * The artifact store's rows for sources written straight into the indexes: search answers only
   * with sources that exist in PostgreSQL, so a synthetic corpus needs its rows too.
   */
  registerArtifacts(artifacts: readonly { orgId: string; id: string; title: string }[]): Promise<void>;
  /** After loading data: fresh planner statistics and a checkpoint, so no run pays for the load. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** A member of an org of the benchmark's own, with a token. */
export interface BenchMember {
  /** The owner's email (`<slug>@localhost`). */
  email: string;
  token: string;
  tokenId: string;
  orgId: string;
  userId: string;
}

/**
 * Starts everything the benchmark measures on one machine, like `quarry start` does (embedded
 * PostgreSQL with its default settings, migrations, app role, plan engine on loopback gRPC,
 * gateway), plus the monolith baseline on the same database, and a member of its own.
 */
export async function startBenchSystem(options: {
  dataDir: string;
  searchDir: string;
  logger?: Logger;
}): Promise<BenchSystem> {
  const logger = options.logger ?? createLogger({ service: 'bench', level: 'warn' });
  const postgres = await startEmbeddedPostgres({ dataDir: options.dataDir, persistent: true });
  const closers: Array<() => Promise<void> | void> = [() => postgres.stop()];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    const appPassword = randomBytes(24).toString('base64url');
    const indexerPassword = randomBytes(24).toString('base64url');
    await migrateAll(postgres.adminUrl, {
      app: { role: APP_ROLE, password: appPassword },
      indexer: { role: INDEXER_ROLE, password: indexerPassword },
    });
    const databaseUrl = appUrlFrom(postgres.adminUrl, APP_ROLE, appPassword);
    const member = await createMember(postgres.adminUrl, 'bench');
    const admin = createDb<unknown>({
      connectionString: postgres.adminUrl,
      applicationName: 'quarry-bench-admin',
      max: 1,
    });
    closers.push(() => admin.destroy());
    // Every backend service and the gateway, as under `quarry start`.
    const system = await startSystem({
      databaseUrl,
      indexerDatabaseUrl: appUrlFrom(postgres.adminUrl, INDEXER_ROLE, indexerPassword),
      identityKey: randomBytes(48).toString('base64url'),
      dataDir: options.searchDir,
      env: {
        HOST: '127.0.0.1',
        PORT: '0',
        // The benchmark is one token sending as fast as it can; the limiter still runs, never trips.
        QUARRY_RATE_LIMIT_PER_MINUTE: '1000000000',
        // The engines are always the embedded ones here; their cache caps may be set to compare them.
        LANCEDB_INDEX_CACHE_MB: process.env.LANCEDB_INDEX_CACHE_MB,
        LANCEDB_METADATA_CACHE_MB: process.env.LANCEDB_METADATA_CACHE_MB,
      },
      logger,
      closeGraceMs: 1_000,
    });
    closers.push(() => system.close());
    const { config, services } = system;

    // The monolith owns its pool and change listener, exactly as the plan engine's runtime does.
    const db = createDb<PlanDatabase>({
      connectionString: databaseUrl,
      applicationName: 'quarry-bench-monolith',
      max: 10,
    });
    closers.push(() => db.destroy());
    const changes = createPlanChangeListener({ connectionString: databaseUrl, logger });
    await changes.start();
    closers.push(() => changes.close());
    const backend = inProcessPlanBackend({
      db,
      changes,
      logger,
      stallThresholdMs: 30 * 60_000,
      cursors: createCursorCodec(config.QUARRY_IDENTITY_KEY, 'plan-engine'),
    });
    // A second gateway over the same services, with the plan service in-process.
    const monolith = await startGateway({
      config,
      logger,
      serviceAddresses: services.addresses,
      backends: { [PLAN_SERVICE]: backend },
    });
    closers.push(() => monolith.close());
    const overGrpc = await startGateway({ config, logger, serviceAddresses: services.addresses });
    closers.push(() => overGrpc.close());

    const signer = createIdentitySigner({ key: config.QUARRY_IDENTITY_KEY, issuer: 'quarry-bench' });
    const planRaw = createRawClient(services.planEngine.address, { signer });
    closers.push(() => planRaw.close());
    const getPlanStatus = planV1.PlanServiceService.getPlanStatus;

    let request = 0;
    const identity = (): Identity => ({
      kind: 'user',
      orgId: member.orgId,
      userId: member.userId,
      tokenId: member.tokenId,
      requestId: `bench-${++request}`,
    });
    return {
      quarryUrl: system.url,
      quarryGrpcUrl: overGrpc.url,
      monolithUrl: monolith.url,
      token: member.token,
      services,
      gatewaySettings: {
        databaseUrl,
        identityKey: config.QUARRY_IDENTITY_KEY,
        serviceAddresses: { ...services.addresses },
      },
      createMember: (slug) => createMember(postgres.adminUrl, slug),
      scratchDir: options.searchDir,
      adminUrl: postgres.adminUrl,
      getPlanStatusDirect: async (request) =>
        getPlanStatus.responseDeserialize(
          Buffer.from(
            await planRaw.unary(getPlanStatus.path, getPlanStatus.requestSerialize(request), { identity: identity() }),
          ),
        ),
      async registerArtifacts(artifacts) {
        if (artifacts.length === 0) return;
        const rows = artifacts.map(
          (a) => sql`(${a.id}::uuid, ${a.orgId}::uuid, 'summary', 'client', ${a.title}, '{}'::jsonb)`,
        );
        await sql`
          insert into artifact.research_artifacts (id, org_id, artifact_type, source, title, content)
          values ${sql.join(rows)}
        `.execute(admin);
      },
      async settle() {
        await sql`VACUUM ANALYZE`.execute(admin);
        await sql`CHECKPOINT`.execute(admin);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function createMember(adminUrl: string, slug: string): Promise<BenchMember> {
  const db = createDb<IdentityDatabase>({ connectionString: adminUrl, applicationName: 'quarry-bench-setup', max: 1 });
  try {
    const admin = createIdentityAdmin(db);
    const email = `${slug}@localhost`;
    const org = await admin.createOrg({ slug, name: `Benchmark (${slug})` });
    const user = await admin.addUser({ email, orgSlug: slug, name: 'Bench', role: 'owner' });
    const { token, id } = await admin.createToken({ orgSlug: slug, email, name: 'bench' });
    return { email, token, tokenId: id, orgId: org.id, userId: user.id };
  } finally {
    await db.destroy();
  }
}
