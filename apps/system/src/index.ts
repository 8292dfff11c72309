// @quarry/system: the whole system composed once — every service schema and role, every backend
// service started and wired, and the gateway in front of them — for `quarry start`, the gateway's
// end-to-end tests, the CLI's tests and the benchmark.
export { startSystem, type StartSystemOptions, type RunningSystem } from './system.js';
export { startServices, type StartServicesOptions, type Services } from './services.js';
export {
  backendSchemas,
  migrateSchemas,
  provisionServiceRoles,
  provisionIndexerRole,
  type RoleLogins,
  type ServiceRoles,
} from './schemas.js';
