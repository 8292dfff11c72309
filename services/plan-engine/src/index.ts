export * from './core/index.js';
export { planSchemas } from './migrations/index.js';
export { buildServer, type PlanEngineDeps } from './server.js';
export { createPlanService, summarizeResult, type PlanServiceDeps } from './service.js';
export { startPlanEngine, type PlanEngine, type PlanEngineRuntimeOptions } from './runtime.js';
export { createPlanChangeListener, type PlanChangeListener } from './plan-changes.js';
export { loadPlanEngineConfig, planEngineConfigSchema } from './config.js';
export { planErrors } from './errors.js';
export type { PlanDatabase } from './store/schema.js';
