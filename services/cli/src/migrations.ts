import { artifactSchemas } from '@quarry/artifact-store';
import { createDb, migrate, provisionAppRole } from '@quarry/db';
import { eventsSchemas } from '@quarry/events';
import { gatewaySchemas } from '@quarry/gateway';
import { planSchemas } from '@quarry/plan-engine';

/** Every service schema, in dependency order. Each service owns its migrations. */
export const serviceSchemas = [...gatewaySchemas, ...planSchemas, ...eventsSchemas, ...artifactSchemas];

export const APP_ROLE = 'quarry_app';

/**
 * Bring every schema to the latest migration as the admin role, then (re)grant the app role
 * exactly what services need: DML on the tables, nothing that could bypass row-level security.
 */
export async function migrateAll(adminUrl: string, appRole: { role: string; password: string }) {
  const admin = createDb<unknown>({ connectionString: adminUrl, applicationName: 'quarry-migrate', max: 2 });
  try {
    const applied: string[] = [];
    for (const { schema, migrations } of serviceSchemas) {
      const names = await migrate({ db: admin, schema, migrations });
      applied.push(...names.map((name) => `${schema}/${name}`));
    }
    await provisionAppRole(admin, { role: appRole.role, password: appRole.password, schemas: serviceSchemas.map((s) => s.schema) });
    return applied;
  } finally {
    await admin.destroy();
  }
}
