import { createNotificationListener } from '@quarry/db';
import type { Logger } from 'pino';
import type { PlanPart } from './plan-uris.js';

/**
 * The channels the gateway hears plan changes on, both with the payload `<org_id>:<plan_id>`,
 * sent by table triggers at commit from any replica, and what each one concerns:
 * - `quarry_plan_changed`, the plan engine's: a plan or its steps changed (created, claimed,
 *   submitted, reviewed, modified, cancelled, archived, stalled, deleted);
 * - `quarry_plan_content_changed`, the artifact store's: a deliverable of the plan was stored or
 *   deleted.
 * Each is its owner's published contract (named in its migration and README); the gateway only
 * listens, reads no table and needs no grant.
 */
const CHANNELS: Readonly<Record<string, PlanPart>> = {
  quarry_plan_changed: 'plan',
  quarry_plan_content_changed: 'deliverables',
};

/** What the gateway hears from the feed. */
export interface PlanChangeObserver {
  /** `part` of a plan of `orgId` changed (ids lower-case, as PostgreSQL prints uuids). */
  changed(orgId: string, planId: string, part: PlanPart): void;
  /** The feed was deaf for a while and is back: any plan may have changed meanwhile. */
  resumed(): void;
}

export interface PlanChangeFeed {
  /** Connects and LISTENs; rejects when the database cannot be reached (the gateway fails fast). */
  start(): Promise<void>;
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
    channels: Object.keys(CHANNELS),
    logger,
    onNotification: (channel, payload) => {
      const change = parsePlanChange(payload);
      const part = CHANNELS[channel];
      if (change && part) observer.changed(change.orgId, change.planId, part);
      else logger.warn({ channel, payload }, 'plan change feed: payload is not <org>:<plan>, ignored');
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
    close: () => listener.close(),
  };
}
