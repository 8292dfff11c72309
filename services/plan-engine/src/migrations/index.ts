import type { Migration } from 'kysely';
import * as createPlan from './plan/2026_11_21_2300_create_plan.js';
import * as countStalledPlans from './plan/2026_11_22_0400_count_stalled_plans.js';
import * as trovellaFieldShapes from './plan/2026_11_25_2100_trovella_field_shapes.js';
import * as markStalledPlans from './plan/2026_11_25_2110_mark_stalled_plans.js';
import * as archiveAndCancel from './plan/2026_11_25_2140_archive_and_cancel.js';
import * as planDeletion from './plan/2026_11_25_2150_plan_deletion.js';
import * as auditChain from './plan/2026_11_28_1700_audit_chain.js';
import * as defaultDepth from './plan/2026_11_28_1800_default_depth.js';

/**
 * The plan engine owns the `plan` schema: research plans and steps, branching conditions, user
 * reviews, skill executions, feedback, output preferences, submit idempotency keys, the
 * append-only audit log and the content-free tombstones of deleted plans (one hash chain per org,
 * whose heads and signed checkpoints live in the plan_ledger schema the app role never reaches:
 * see the audit_chain migration), plus the one
 * cross-tenant aggregate for metrics (count_stalled_plans, callable by members of
 * quarry_plan_metrics: see grantPlanMetrics) and the stall sweep (mark_stalled_plans, callable by
 * members of quarry_plan_maintenance: see grantPlanMaintenance). Names are timestamps so order is
 * explicit and stable.
 */
export const planSchemas: ReadonlyArray<{ schema: string; migrations: Record<string, Migration> }> = [
  {
    schema: 'plan',
    migrations: {
      '2026_11_21_2300_create_plan': createPlan,
      '2026_11_22_0400_count_stalled_plans': countStalledPlans,
      '2026_11_25_2100_trovella_field_shapes': trovellaFieldShapes,
      '2026_11_25_2110_mark_stalled_plans': markStalledPlans,
      '2026_11_25_2140_archive_and_cancel': archiveAndCancel,
      '2026_11_25_2150_plan_deletion': planDeletion,
      '2026_11_28_1700_audit_chain': auditChain,
      '2026_11_28_1800_default_depth': defaultDepth,
    },
  },
];
