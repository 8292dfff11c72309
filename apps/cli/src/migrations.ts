import { createDb } from '@quarry/db';
import { gatewaySchemas } from '@quarry/gateway';
import { backendSchemas, migrateSchemas, provisionServiceRoles, type RoleLogins } from '@quarry/system';

/** Every service schema, in dependency order: the gateway's, then the backend services'. */
export const serviceSchemas = [...gatewaySchemas, ...backendSchemas];

export const APP_ROLE = 'quarry_app';
export const INDEXER_ROLE = 'quarry_indexer';

/**
 * Bring every schema to the latest migration as the admin role, then (re)grant the two login
 * roles exactly what they need: the app role DML on the tables (nothing that could bypass
 * row-level security), the indexer role its schemas plus the consumers' read path. With
 * `keepPasswords`, a role that exists already keeps its password (the given one is for new roles).
 */
export async function migrateAll(
  adminUrl: string,
  roles: RoleLogins,
  options: { keepPasswords?: boolean } = {},
): Promise<string[]> {
  const admin = createDb<unknown>({ connectionString: adminUrl, applicationName: 'quarry-migrate', max: 2 });
  try {
    const applied = await migrateSchemas(admin, serviceSchemas);
    await provisionServiceRoles(admin, serviceSchemas, roles, options);
    return applied;
  } finally {
    await admin.destroy();
  }
}
