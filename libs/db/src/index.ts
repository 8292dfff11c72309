// @quarry/db: PostgreSQL for every service. One pool per process (createDb), one schema and
// migration history per service (migrate), tenant isolation by row-level security that the
// app role cannot bypass (withTenant, enableTenantRls, provisionAppRole, assertTenantSafety),
// LISTEN/NOTIFY that survives a lost connection (createNotificationListener), and a real
// embedded PostgreSQL when no DATABASE_URL is given (startEmbeddedPostgres).
export { startEmbeddedPostgres, findRunningEmbeddedPostgres } from './embedded/start.js';
export type {
  EmbeddedPostgres,
  EmbeddedPostgresOptions,
  EmbeddedPostgresSupervisor,
  RunningEmbeddedPostgres,
} from './embedded/options.js';
export { createDb, closeDb, isConnectionFailure } from './connect.js';
export type { CreateDbOptions, AnyDb } from './connect.js';
export { migrate, MigrationError } from './migrate.js';
export { createDatabaseIfMissing, existingRoles } from './create-database.js';
export type { Migration, MigrateOptions } from './migrate.js';
export { withTenant, isUuid } from './tenancy.js';
export { createNotificationListener } from './notification-listener.js';
export type { NotificationListener, NotificationListenerOptions } from './notification-listener.js';
export { createSessionClient } from './session-client.js';
export type { TenantIdentity } from './tenancy.js';
export { enableTenantRls } from './rls.js';
export { provisionAppRole, appUrlFrom } from './roles.js';
export type { AppRoleOptions } from './roles.js';
export { rlsReport, assertTenantSafety, TenantSafetyError } from './catalog.js';
export type { TableRls } from './catalog.js';
export { sql } from 'kysely';
export type { Kysely, Transaction, Selectable, Insertable, Updateable, Generated, ColumnType } from 'kysely';
