import { expect } from '@jest/globals';
import { planV1 } from '@quarry/contracts';
import type { QuarryError, RequestOf, ResponseOf, UnaryMethodName } from '@quarry/grpc';
import { as, type PlanClient } from '../grpc-support.js';

// The plan engine as its clients see it: PlanService over real gRPC, each call signed with an
// identity of the caller's org. Requests are written as partial messages (ts-proto fromPartial
// fills in the rest), so a test says only what the call is about.

type Service = typeof planV1.PlanServiceService;
export type Method = UnaryMethodName<Service>;
export type Request<M extends Method> = planV1.DeepPartial<RequestOf<Service[M]>>;
export type Response<M extends Method> = ResponseOf<Service[M]>;
export type Outcome<M extends Method> = { ok: true; value: Response<M> } | { ok: false; error: QuarryError };

export const {
  AuditEventType,
  BranchAction,
  FeedbackType,
  ModifyPlanAction,
  NextStepStatus,
  OutputMediaType,
  PlanStatus,
  ReviewDecision,
  SkillExecutionStatus,
  StepStatus,
  StepType,
  UserSatisfaction,
} = planV1;

const messages = planV1 as unknown as Record<string, { fromPartial(object: unknown): unknown }>;

/** The full request message of `method` from a partial one. */
function requestOf<M extends Method>(method: M, partial: Request<M>): RequestOf<Service[M]> {
  const name = `${method[0]!.toUpperCase()}${method.slice(1)}Request`;
  return messages[name]!.fromPartial(partial) as RequestOf<Service[M]>;
}

/** A member of one org calling the plan engine (every call signed with a fresh identity of that org). */
export interface PlanCaller {
  orgId: string;
  call<M extends Method>(method: M, request: Request<M>, options?: { deadlineMs?: number }): Promise<Response<M>>;
  /** The call's outcome, a response or a refusal. */
  attempt<M extends Method>(method: M, request: Request<M>, options?: { deadlineMs?: number }): Promise<Outcome<M>>;
  /** The call's refusal; fails the test when the call succeeds. */
  refusal<M extends Method>(method: M, request: Request<M>): Promise<QuarryError>;
}

export function callerOf(client: PlanClient, orgId: string): PlanCaller {
  const call = <M extends Method>(method: M, request: Request<M>, options: { deadlineMs?: number } = {}) =>
    client.call(method, requestOf(method, request), { ...as(orgId), ...options });
  const attempt = async <M extends Method>(
    method: M,
    request: Request<M>,
    options?: { deadlineMs?: number },
  ): Promise<Outcome<M>> => {
    try {
      return { ok: true, value: await call(method, request, options) };
    } catch (error) {
      return { ok: false, error: error as QuarryError };
    }
  };
  const refusal = async <M extends Method>(method: M, request: Request<M>): Promise<QuarryError> => {
    const outcome = await attempt(method, request);
    if (outcome.ok)
      throw new Error(`${method} was expected to be refused, but answered ${JSON.stringify(outcome.value)}`);
    return outcome.error;
  };
  return { orgId, call, attempt, refusal };
}

/** Asserts a refusal with this stable code whose message matches every pattern. */
export function expectRefusal(error: QuarryError, code: string, ...message: RegExp[]): void {
  expect(error).toMatchObject({ name: 'QuarryError', code });
  for (const pattern of message) expect(error.message).toMatch(pattern);
}

type StepTypeName = 'search' | 'extract' | 'analyze' | 'critique' | 'synthesize' | 'checkpoint' | 'custom';

/** Steps of a new plan: one per type, instructions naming them so assertions read well. */
export function stepsOf(...types: StepTypeName[]): planV1.NewPlanStep[] {
  return types.map((type, index) => ({
    stepType: planV1.stepTypeFromJSON(`STEP_TYPE_${type.toUpperCase()}`),
    instructions: `Step ${index + 1}: ${type}`,
  }));
}

/** A step status by its short name (`in_progress`), to read a plan's shape in one line. */
export const stepStatusName = (status: planV1.StepStatus): string =>
  planV1.stepStatusToJSON(status).slice('STEP_STATUS_'.length).toLowerCase();

/** Step orders, in the order given. */
export const orders = (steps: readonly { stepOrder: number }[]): number[] => steps.map((s) => s.stepOrder);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A UUID no row has. */
export const MISSING = '00000000-0000-4000-8000-000000000000';

/** How many of `items` have each key. */
export function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/** The responses of calls that must all have succeeded (fails the test with the refusals otherwise). */
export function answersOf<T>(outcomes: readonly ({ ok: true; value: T } | { ok: false; error: unknown })[]): T[] {
  expect(outcomes.filter((o) => !o.ok)).toEqual([]);
  return outcomes.map((o) => (o as { value: T }).value);
}
