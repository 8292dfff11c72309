import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { grantPlanMaintenance, planSchemas, startPlanEngine } from '../../src/index.js';
import { KEY, logger, planClient, type PlanClient } from '../grpc-support.js';
import { callerOf, type PlanCaller } from './plan-api.js';

export interface TestPlanEngine {
  database: TestDatabase;
  client: PlanClient;
  /** A member of a new org of its own, so what it lists is exactly what it created. */
  newOrg(): PlanCaller;
  close(): Promise<void>;
}

/**
 * A real plan engine (its own gRPC server, database pool and change listener, as `main.ts`
 * runs it) on a fresh migrated database, and a gRPC client signed with the identity key.
 */
export async function startTestPlanEngine(
  options: { stallThresholdMs?: number; stallSweepIntervalMs?: number } = {},
): Promise<TestPlanEngine> {
  const database = await createTestDatabase({ schemas: [...planSchemas] });
  await grantPlanMaintenance(database.admin, database.appRole);
  const engine = await startPlanEngine({
    databaseUrl: database.appUrl,
    identityKey: KEY,
    logger,
    host: '127.0.0.1',
    port: 0,
    ...(options.stallThresholdMs === undefined ? {} : { stallThresholdMs: options.stallThresholdMs }),
    ...(options.stallSweepIntervalMs === undefined ? {} : { stallSweepIntervalMs: options.stallSweepIntervalMs }),
  });
  const client = planClient(engine.address);
  return {
    database,
    client,
    newOrg: () => callerOf(client, randomUUID()),
    async close() {
      client.close();
      await engine.close(1000);
      await database.drop();
    },
  };
}
