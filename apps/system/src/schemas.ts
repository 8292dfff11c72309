import { artifactSchemas } from '@quarry/artifact-store';
import { migrate, provisionAppRole, type AnyDb } from '@quarry/db';
import { eventsSchemas, grantEventConsumer } from '@quarry/events';
import { extractionSchemas, grantExtractionMaintenance } from '@quarry/extraction';
import { indexerSchemas } from '@quarry/indexer';
import { grantPlanMaintenance, grantPlanMetrics, planSchemas } from '@quarry/plan-engine';

/**
 * The backend services' schemas, in dependency order (each service owns its migrations). The
 * gateway's own schemas (identity, gateway) come first and are added by whoever migrates:
 * this package sits below the gateway, whose tests start these services.
 */
export const backendSchemas = [
  ...planSchemas,
  ...eventsSchemas,
  ...artifactSchemas,
  ...indexerSchemas,
  ...extractionSchemas,
];

/** The schemas the indexer role touches: the outbox's offsets and dead letters, and its own. */
const INDEXER_SCHEMAS = ['events', 'indexer'];

export interface ServiceRoles {
  /** What every request-serving service connects as: tenant data only, under RLS. */
  app: { role: string; password: string };
  /**
   * What the indexer connects as: also NOBYPASSRLS, plus membership of quarry_event_consumer
   * (the one cross-tenant read path, events.read_outbox_committed). Kept apart from the app role so a
   * request-serving service can never read another tenant's events.
   */
  indexer: { role: string; password: string };
}

/**
 * The login roles as `quarry migrate` provisions them: a password may be left out for a role
 * that exists and keeps its own.
 */
export type RoleLogins = { [K in keyof ServiceRoles]: { role: string; password?: string } };

type Schemas = ReadonlyArray<{ schema: string; migrations: Parameters<typeof migrate>[0]['migrations'] }>;

/** Bring every schema to its latest migration, in order; returns the names applied (`schema/name`). */
export async function migrateSchemas(admin: AnyDb, schemas: Schemas): Promise<string[]> {
  const applied: string[] = [];
  for (const { schema, migrations } of schemas) {
    const names = await migrate({ db: admin, schema, migrations });
    applied.push(...names.map((name) => `${schema}/${name}`));
  }
  return applied;
}

/** (Re)create both login roles with exactly their grants (the app role on every one of `schemas`). Run as the admin after migrating; idempotent. */
export async function provisionServiceRoles(
  admin: AnyDb,
  schemas: Schemas,
  roles: RoleLogins,
  options: { keepPasswords?: boolean } = {},
): Promise<void> {
  const keepPassword = options.keepPasswords === true;
  await provisionAppRole(admin, { ...roles.app, keepPassword, schemas: schemas.map((s) => s.schema) });
  // The plan engine's /metrics counts stalled plans of every org through one aggregate function.
  // Its stall sweep marks overdue plans of every org stalled through one function.
  if (schemas.some((s) => s.schema === 'plan')) {
    await grantPlanMetrics(admin, roles.app.role);
    await grantPlanMaintenance(admin, roles.app.role);
  }
  // The extraction service's upkeep (expired handles and jobs, jobs whose instance stopped) crosses orgs through one function.
  if (schemas.some((s) => s.schema === 'extraction')) await grantExtractionMaintenance(admin, roles.app.role);
  await provisionIndexerRole(admin, roles.indexer, { keepPassword });
}

/** The indexer's login role alone (tests whose app role comes from elsewhere use it). */
export async function provisionIndexerRole(
  admin: AnyDb,
  indexer: RoleLogins['indexer'],
  options: { keepPassword?: boolean } = {},
): Promise<void> {
  await provisionAppRole(admin, { ...indexer, ...options, schemas: INDEXER_SCHEMAS });
  await grantEventConsumer(admin, indexer.role);
}
