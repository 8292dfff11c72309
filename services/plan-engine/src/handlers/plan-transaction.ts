import type { CursorCodec } from '@quarry/cursors';
import { withTenant } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import type { Kysely } from 'kysely';
import { type PlanEvent, transition, type TransitionResult } from '../core/index.js';
import type { PlanArtifacts } from '../artifacts.js';
import { planErrors, toServiceError } from '../errors.js';
import type { PlanChangeListener } from '../plan-changes.js';
import type { PlanStatusCache } from '../plan-status-cache.js';
import { applyEffects, type LoadedPlan, loadPlan, type Trx } from '../store/plans.js';
import type { PlanDatabase } from '../store/schema.js';

/** What every handler may use: the database, the clock, ids, and the plan engine's shared parts. */
export interface PlanHandlerDeps {
  db: Kysely<PlanDatabase>;
  changes: PlanChangeListener;
  /** get_plan_status answers unchanged plans from memory. */
  statusCache: PlanStatusCache<LoadedPlan>;
  artifacts: PlanArtifacts;
  stallThresholdMs: number;
  /** Seals and opens list_active_plans' and list_plans' cursors. */
  cursors: CursorCodec;
  now: () => Date;
  newId: () => string;
}

/** An event before the shell stamps its time (which happens under the plan lock). */
export type Untimed<E> = E extends unknown ? Omit<E, 'at'> : never;

/** Runs a pure decision of the core; its refusals leave as the service's catalogue errors. */
export function decide<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw toServiceError(error);
  }
}

/**
 * Runs `fn` in one transaction under the caller's org (row-level security), so a plan of another
 * org is exactly as invisible as a missing one; the core's refusals leave as catalogue errors.
 */
export async function inTenant<T>(deps: PlanHandlerDeps, ctx: CallContext, fn: (trx: Trx) => Promise<T>): Promise<T> {
  try {
    return await withTenant(deps.db, { orgId: ctx.identity.orgId }, (trx) => fn(trx as Trx));
  } catch (error) {
    throw toServiceError(error);
  }
}

/** The plan, or PLAN_NOT_FOUND. With `lock`, its row stays locked until the transaction ends. */
export async function mustLoad(trx: Trx, planId: string, lock: boolean): Promise<LoadedPlan> {
  const loaded = await loadPlan(trx, planId, lock);
  if (!loaded) throw planErrors.PLAN_NOT_FOUND({ planId });
  return loaded;
}

/** Runs the state machine on a loaded snapshot and persists its effects (rows and audit) in `trx`. */
export async function applyTransition(
  trx: Trx,
  ctx: CallContext,
  loaded: LoadedPlan,
  event: PlanEvent,
): Promise<TransitionResult> {
  const result = transition(loaded.snapshot, event);
  await applyEffects(
    trx,
    { orgId: ctx.identity.orgId, planId: loaded.plan.id, after: result.state, at: event.at },
    result.effects,
  );
  return result;
}

/** Load with the lock, run the state machine, persist its effects: the one way plans change. */
export async function mutate(
  deps: PlanHandlerDeps,
  trx: Trx,
  ctx: CallContext,
  planId: string,
  event: Untimed<PlanEvent>,
): Promise<LoadedPlan & { result: TransitionResult; at: Date }> {
  const loaded = await mustLoad(trx, planId, true);
  // The clock is read once the plan lock is held, so recorded times follow commit order.
  const at = deps.now();
  const result = await applyTransition(trx, ctx, loaded, { ...event, at } as PlanEvent);
  return { ...loaded, result, at };
}
