import { describe, expect, it } from '@jest/globals';
import { artifactV1, searchV1 } from '@quarry/contracts';
import { status } from '@quarry/grpc';
import { docs, ids, orgA, orgB, planOne, searchAs, secret, useSearchService } from './service-fixture.js';

// createdSince / createdUntil bound the stored item's createdAt inside both engines, inclusive,
// alone or with the other filters, and never widen what an org sees.

useSearchService();

const at = (iso: string) => new Date(iso);
/** Every fixture item mentions one of these words, so a date filter alone decides what is left. */
const EVERYTHING = 'kafka latency deliverable contract zeppelin';
const sorted = (xs: string[]) => [...xs].sort();

describe('date range (createdSince / createdUntil)', () => {
  it('keeps items stored at or after createdSince (inclusive), leaving out undated items', async () => {
    const r = await searchAs(orgA, EVERYTHING, { limit: 50, createdSince: at('2026-03-20T00:00:00Z') });
    expect(sorted(ids(r))).toEqual(sorted([docs.latency.id, docs.report.id, docs.extraction.id]));
    expect(r.results.every((x) => x.createdAt! >= at('2026-03-20T00:00:00Z'))).toBe(true);
  });

  it('keeps items stored at or before createdUntil (inclusive), comparing instants whatever the offset', async () => {
    // The lag item was stored at 12:00+02:00, i.e. 10:00Z.
    const until = await searchAs(orgA, EVERYTHING, { limit: 50, createdUntil: at('2026-02-15T11:00:00+01:00') });
    expect(sorted(ids(until))).toEqual(sorted([docs.outbox.id, docs.lag.id]));
    const before = await searchAs(orgA, EVERYTHING, { limit: 50, createdUntil: at('2026-02-15T09:59:59.999Z') });
    expect(ids(before)).toEqual([docs.outbox.id]);
    expect(until.results.find((x) => x.id === docs.lag.id)!.createdAt).toEqual(at('2026-02-15T10:00:00Z'));
  });

  it('applies both bounds, in every mode (both legs filter inside the engine)', async () => {
    const window = { createdSince: at('2026-02-01T00:00:00Z'), createdUntil: at('2026-04-25T18:30:00Z') };
    const expected = sorted([docs.lag.id, docs.latency.id, docs.report.id]);
    for (const mode of [
      searchV1.SearchMode.SEARCH_MODE_HYBRID,
      searchV1.SearchMode.SEARCH_MODE_KEYWORD,
      searchV1.SearchMode.SEARCH_MODE_SEMANTIC,
    ]) {
      const r = await searchAs(orgA, EVERYTHING, { limit: 50, mode, ...window });
      for (const id of ids(r)) expect(expected).toContain(id);
      if (mode !== searchV1.SearchMode.SEARCH_MODE_SEMANTIC) expect(sorted(ids(r))).toEqual(expected);
    }
    const instant = at('2026-03-20T00:00:00Z');
    expect(ids(await searchAs(orgA, EVERYTHING, { createdSince: instant, createdUntil: instant }))).toEqual([
      docs.latency.id,
    ]);
  });

  it('combines with planId, tags, sourceTable and artifactType: all conditions hold', async () => {
    const since = at('2026-02-01T00:00:00Z');
    // Keyword mode: exactly the items holding the word (the local vector leg also finds near-misses).
    const keyword = searchV1.SearchMode.SEARCH_MODE_KEYWORD;
    expect(ids(await searchAs(orgA, 'kafka', { mode: keyword, planId: planOne, createdSince: since }))).toEqual([
      docs.lag.id,
    ]);
    const planned = await searchAs(orgA, 'kafka', { limit: 50, planId: planOne, createdSince: since });
    for (const id of ids(planned)) expect([docs.lag.id, docs.report.id]).toContain(id);
    expect(
      ids(await searchAs(orgA, 'kafka', { mode: keyword, tags: ['kafka'], createdUntil: at('2026-01-31T00:00:00Z') })),
    ).toEqual([docs.outbox.id]);
    const outputs = await searchAs(orgA, EVERYTHING, {
      limit: 50,
      sourceTable: searchV1.SourceTable.SOURCE_TABLE_RESEARCH_OUTPUT,
      createdSince: since,
    });
    expect(ids(outputs)).toEqual([docs.report.id]);
    const analyses = await searchAs(orgA, EVERYTHING, {
      limit: 50,
      artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_ANALYSIS,
      createdUntil: at('2026-03-01T00:00:00Z'),
    });
    expect(ids(analyses)).toEqual([docs.lag.id]);
  });

  it("a window holding only another org's item finds nothing, exactly like an empty window", async () => {
    // Org B's item is its only one, stored after all of org A's.
    const window = { createdSince: at('2026-05-15T00:00:00Z') };
    expect(ids(await searchAs(orgB, docs.outbox.text, window))).toEqual([secret.id]);
    const empty = { createdSince: at('2020-01-01T00:00:00Z'), createdUntil: at('2020-01-02T00:00:00Z') };
    for (const query of [docs.outbox.text, 'zanzibar']) {
      const r = await searchAs(orgA, query, { limit: 50, ...window });
      expect(r).toEqual(await searchAs(orgA, query, { limit: 50, ...empty }));
      expect(r.resultCount).toBe(0);
    }
  });

  it.each([
    ['createdUntil', { createdSince: at('2026-05-01T00:00:00Z'), createdUntil: at('2026-04-30T23:59:59Z') }],
    ['createdSince', { createdSince: at('+010000-01-01T00:00:00Z') }],
  ])('refuses a bad bound with INVALID_ARGUMENT naming %s', async (field, extra) => {
    const attempt = searchAs(orgA, 'kafka', extra);
    await expect(attempt).rejects.toMatchObject({ status: status.INVALID_ARGUMENT, code: 'INVALID_ARGUMENT' });
    await expect(attempt).rejects.toThrow(field);
  });
});
