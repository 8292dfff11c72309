/**
 * How get_entity_graph pages a neighbourhood, decided from ids and distances alone. Entities are
 * ordered by distance from the start, then id, and paged by keyset on that order (a cursor holds
 * the last entity's distance and id). A relation is shown on the page of whichever of its ends
 * comes later in that order, so across the pages every relation of the neighbourhood is shown
 * exactly once, and always beside entities the client has already seen.
 */

/** At most this many entities make one neighbourhood (the nearest, by distance then id: store/entity-graph.ts). */
export const MAX_NEIGHBOURHOOD = 5000;

export interface Reached {
  id: string;
  distance: number;
}

const byDistanceThenId = (a: Reached, b: Reached) =>
  a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The page after `after` (the first page without it) and whether more follow. */
export function neighbourhoodPage(
  reached: ReadonlyMap<string, number>,
  after: Reached | undefined,
  limit: number,
): { all: Reached[]; page: Reached[]; more: boolean } {
  const all = [...reached].map(([id, distance]) => ({ id, distance })).sort(byDistanceThenId);
  const from = after ? all.findIndex((r) => byDistanceThenId(r, after) > 0) : 0;
  const rest = from < 0 ? [] : all.slice(from);
  return { all, page: rest.slice(0, limit), more: rest.length > limit };
}

/** Of relations between reached entities, those whose later end is on this page. */
export function relationsOfPage<R extends { fromId: string; toId: string }>(
  relations: readonly R[],
  all: readonly Reached[],
  page: readonly Reached[],
): R[] {
  const rank = new Map(all.map((r, i) => [r.id, i]));
  const onPage = new Set(page.map((r) => r.id));
  return relations.filter((r) => {
    const [a, b] = [rank.get(r.fromId), rank.get(r.toId)];
    if (a === undefined || b === undefined) return false;
    return onPage.has(a > b ? r.fromId : r.toId);
  });
}
