export * from './core/index.js';
export { planSchemas } from './migrations/index.js';
export { createPlanService, type PlanServiceDeps } from './service.js';
export { startPlanEngine, type PlanEngine } from './runtime.js';
export { registerPlanMetrics, countStalledPlans, grantPlanMetrics, type PlanMetricsDeps } from './metrics.js';
export { createPlanChangeListener, type PlanChangeListener } from './plan-changes.js';
export { loadPlanEngineConfig } from './config.js';
export type { PlanDatabase } from './store/schema.js';
export { type PlanArtifacts } from './artifacts.js';
