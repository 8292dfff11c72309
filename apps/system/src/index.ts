// @quarry/system: the whole system composed once — every service schema and role, and every
// backend service started and wired — for `quarry start`, the gateway harness, CLI tests and
// the benchmark.
export { startServices, type StartServicesOptions, type Services } from './services.js';
export {
  backendSchemas,
  migrateSchemas,
  provisionServiceRoles,
  provisionIndexerRole,
  type ServiceRoles,
} from './schemas.js';
