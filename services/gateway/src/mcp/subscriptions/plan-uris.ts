/**
 * The plan resources a client can subscribe to: `quarry://plans/{planId}` (the plan's status) and
 * `quarry://plans/{planId}/report` (its readable account, deliverables included).
 */
const PLAN_URI = /^quarry:\/\/plans\/([^/?#]+)(\/report)?$/;

/** Which part of a plan changed: the plan itself (both resources) or only its deliverables (the report). */
export type PlanPart = 'plan' | 'deliverables';

/** A plan resource: the plan it is about (lower-cased, as the change feed names plans) and whether it is the report. */
export function planResourceOf(uri: string): { planId: string; report: boolean } | undefined {
  const match = PLAN_URI.exec(uri);
  if (!match) return undefined;
  try {
    return { planId: decodeURIComponent(match[1]!).toLowerCase(), report: match[2] !== undefined };
  } catch {
    return undefined;
  }
}

/** The subscribed URIs about one plan, each kept exactly as the client sent it. */
export interface PlanUris {
  status: readonly string[];
  report: readonly string[];
}

/**
 * The subscribed URIs grouped by the plan they watch. A notification must carry the URI the client
 * subscribed to, character for character. Any other URI is acknowledged like every URI, and never
 * hears of a change.
 */
export function urisByPlan(uris: readonly string[]): ReadonlyMap<string, PlanUris> {
  const byPlan = new Map<string, { status: string[]; report: string[] }>();
  for (const uri of new Set(uris)) {
    const resource = planResourceOf(uri);
    if (!resource) continue;
    const entry = byPlan.get(resource.planId) ?? { status: [], report: [] };
    (resource.report ? entry.report : entry.status).push(uri);
    byPlan.set(resource.planId, entry);
  }
  return byPlan;
}

/** The subscribed URIs a change of `part` of the plan concerns. */
export function urisChangedBy(uris: PlanUris | undefined, part: PlanPart): readonly string[] {
  if (!uris) return [];
  return part === 'plan' ? [...uris.status, ...uris.report] : uris.report;
}
