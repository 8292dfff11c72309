/**
 * The plan resources a client can subscribe to: `quarry://plans/{planId}` (the plan's status) and
 * `quarry://plans/{planId}/report` (its readable account). Both change whenever the plan does.
 */
const PLAN_URI = /^quarry:\/\/plans\/([^/?#]+)(\/report)?$/;

/**
 * The plan a subscribed URI is about, lower-cased as the change feed names plans; undefined for
 * any other URI (which is acknowledged like every URI, and never hears of a change).
 */
export function planIdOfUri(uri: string): string | undefined {
  const match = PLAN_URI.exec(uri);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!).toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * The subscribed URIs grouped by the plan they watch, each kept exactly as the client sent it: a
 * notification must carry the URI the client subscribed to, character for character.
 */
export function urisByPlan(uris: readonly string[]): ReadonlyMap<string, readonly string[]> {
  const byPlan = new Map<string, string[]>();
  for (const uri of new Set(uris)) {
    const planId = planIdOfUri(uri);
    if (planId === undefined) continue;
    const list = byPlan.get(planId) ?? [];
    list.push(uri);
    byPlan.set(planId, list);
  }
  return byPlan;
}
