import type { Migration } from 'kysely';
import * as createPlan from './plan/2026_11_21_2300_create_plan.js';

/**
 * The plan engine owns the `plan` schema: research plans and steps, branching conditions, user
 * reviews, skill executions, feedback, output preferences, submit idempotency keys and the
 * append-only audit log. Names are timestamps so order is explicit and stable.
 */
export const planSchemas: ReadonlyArray<{ schema: string; migrations: Record<string, Migration> }> = [
  { schema: 'plan', migrations: { '2026_11_21_2300_create_plan': createPlan } },
];
