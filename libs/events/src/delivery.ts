import type { DeadLetter, SubscribeOptions } from './port.js';

/**
 * The retry policy both adapters share, independent of where events come from: hand the
 * batch to the handler; if it fails, isolate the culprit by retrying each event alone up to
 * `maxAttempts` times, dead-letter the one that keeps failing, and commit after every success
 * so nothing done is redone needlessly.
 */
export interface DeliveryPlan<E> {
  handler(batch: readonly E[]): Promise<void>;
  /** Store the position after `last` (everything up to it is done). */
  commit(last: E): Promise<void>;
  deadLetter(event: E, attempts: number, error: unknown): Promise<void>;
  maxAttempts: number;
  retryDelayMs: number;
  /** A failure that says nothing about the event (an engine down): retried without counting. */
  isTransient?(error: unknown): boolean;
  /** True once the subscription is closing: stop retrying, commit nothing more. */
  isClosed(): boolean;
  sleep?(ms: number): Promise<void>;
}

/** Thrown when a subscription closes during retries: the events are left for redelivery. */
export class DeliveryAborted extends Error {
  constructor() {
    super('subscription closed during retries; events will be delivered again');
    this.name = 'DeliveryAborted';
  }
}

const MAX_DELAY_MS = 30_000;

function retryDelay(baseMs: number, attempt: number): number {
  return Math.min(baseMs * 2 ** (attempt - 1), MAX_DELAY_MS);
}

export async function deliver<E>(batch: readonly E[], plan: DeliveryPlan<E>): Promise<void> {
  const last = batch.at(-1);
  if (last === undefined) return;
  if (batch.length > 1) {
    try {
      await plan.handler(batch);
      await plan.commit(last);
      return;
    } catch {
      // Isolate the failing event below.
    }
  }
  for (const event of batch) await deliverOne(event, plan);
}

async function deliverOne<E>(event: E, plan: DeliveryPlan<E>): Promise<void> {
  const sleep = plan.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // `attempt` counts the event's own failures; `tries` drives the backoff of every retry.
  for (let attempt = 1, tries = 1; ; tries++) {
    if (plan.isClosed()) throw new DeliveryAborted();
    try {
      await plan.handler([event]);
      await plan.commit(event);
      return;
    } catch (error) {
      if (plan.isTransient?.(error)) {
        await sleep(retryDelay(plan.retryDelayMs, tries));
        continue;
      }
      if (attempt >= plan.maxAttempts) {
        await plan.deadLetter(event, attempt, error);
        await plan.commit(event);
        return;
      }
      attempt++;
      await sleep(retryDelay(plan.retryDelayMs, tries));
    }
  }
}

/** Tell the subscriber's onDeadLetter hook, if any; a hook that throws is reported, never fatal. */
export function notifyDeadLetter(
  hook: SubscribeOptions['onDeadLetter'],
  deadLetter: DeadLetter,
  onError: (error: unknown) => void,
): void {
  if (!hook) return;
  try {
    hook(deadLetter);
  } catch (error) {
    onError(error);
  }
}

export function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, 4000);
}
