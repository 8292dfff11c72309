import { createNotificationListener } from '@quarry/db';
import type { Logger } from 'pino';

/**
 * The plan engine's change feed: its table triggers `NOTIFY quarry_plan_changed` with the payload
 * `<org_id>:<plan_id>` at the commit of every change to a plan or its steps (created, claimed,
 * submitted, reviewed, modified, cancelled, archived, stalled, deleted), from any replica. The
 * channel and payload are the plan engine's published contract (its README and migration); the
 * gateway only listens, reads no table and needs no grant.
 */
const CHANNEL = 'quarry_plan_changed';

/** What the gateway hears from the feed. */
export interface PlanChangeObserver {
  /** A plan of `orgId` changed (ids lower-case, as PostgreSQL prints uuids). */
  changed(orgId: string, planId: string): void;
  /** The feed was deaf for a while and is back: any plan may have changed meanwhile. */
  resumed(): void;
}

export interface PlanChangeFeed {
  /** Connects and LISTENs; rejects when the database cannot be reached (the gateway fails fast). */
  start(): Promise<void>;
  isListening(): boolean;
  close(): Promise<void>;
}

/** Parses a feed payload; undefined for anything that is not `<org>:<plan>`. */
export function parsePlanChange(payload: string): { orgId: string; planId: string } | undefined {
  const [orgId, planId, ...rest] = payload.toLowerCase().split(':');
  if (!orgId || !planId || rest.length > 0) return undefined;
  return { orgId, planId };
}

/**
 * One LISTEN connection per gateway process on the plan change feed (ADR 0020's listener, which
 * reconnects with backoff). Every replica hears every change, whichever replica or service made
 * it, so a subscriber is told of a change wherever its stream is served.
 */
export function createPlanChangeFeed(options: {
  connectionString: string;
  logger: Logger;
  observer: PlanChangeObserver;
}): PlanChangeFeed {
  const { observer, logger } = options;
  let deaf = false;
  const listener = createNotificationListener({
    connectionString: options.connectionString,
    applicationName: 'quarry-gateway-plans-listen',
    channels: [CHANNEL],
    logger,
    onNotification: (_channel, payload) => {
      const change = parsePlanChange(payload);
      if (change) observer.changed(change.orgId, change.planId);
      else logger.warn({ payload }, 'plan change feed: payload is not <org>:<plan>, ignored');
    },
    onLost: () => {
      deaf = true;
    },
    // Changes committed while deaf were never heard: every subscriber is told its plans may have changed.
    onConnected: () => {
      if (!deaf) return;
      deaf = false;
      observer.resumed();
    },
  });
  return {
    start: () => listener.start(),
    isListening: () => listener.isListening(),
    close: () => listener.close(),
  };
}
