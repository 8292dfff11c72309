import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { artifactV1, searchV1 } from '@quarry/contracts';
import {
  docs,
  type Doc,
  ids,
  orgA,
  orgB,
  planOne,
  planTwo,
  searchAs,
  secret,
  useSearchService,
} from './service-fixture.js';

// Filters are applied inside both engines, and an org only ever sees its own items.

const { SourceTable } = searchV1;
const { ArtifactType } = artifactV1;

useSearchService();

describe('filters (applied inside both engines)', () => {
  const all: Doc[] = Object.values(docs);
  /** Every result satisfies the filter and every item that satisfies it and contains the words is found. */
  async function expectFiltered(
    query: string,
    filter: Partial<searchV1.SearchSourcesRequest>,
    mustFind: Doc[],
    allowed: (d: Doc) => boolean,
  ) {
    const r = await searchAs(orgA, query, { limit: 50, ...filter });
    const allowedIds = new Set(all.filter(allowed).map((d) => d.id));
    for (const id of ids(r)) expect(allowedIds.has(id)).toBe(true);
    for (const d of mustFind) expect(ids(r)).toContain(d.id);
    return r;
  }

  it('by sourceTable', async () => {
    const outputs = await expectFiltered(
      'kafka pipeline events',
      { sourceTable: SourceTable.SOURCE_TABLE_RESEARCH_OUTPUT },
      [docs.report],
      (d) => d.sourceTable === 'research_output',
    );
    expect(outputs.results.every((x) => x.sourceTable === SourceTable.SOURCE_TABLE_RESEARCH_OUTPUT)).toBe(true);
    const extractions = await expectFiltered(
      'contract',
      { sourceTable: SourceTable.SOURCE_TABLE_EXTRACTION_RESULT },
      [docs.extraction],
      (d) => d.sourceTable === 'extraction_result',
    );
    expect(extractions.results[0]!.sourceTable).toBe(SourceTable.SOURCE_TABLE_EXTRACTION_RESULT);
    await expectFiltered(
      'kafka',
      { sourceTable: SourceTable.SOURCE_TABLE_RESEARCH_ARTIFACT },
      [docs.outbox, docs.lag],
      (d) => d.sourceTable === 'research_artifact',
    );
  });

  it('by artifactType', async () => {
    await expectFiltered(
      'kafka latency',
      { artifactType: ArtifactType.ARTIFACT_TYPE_ANALYSIS },
      [docs.lag, docs.latency],
      (d) => d.artifactType === 'analysis',
    );
    const findings = await expectFiltered(
      'kafka',
      { artifactType: ArtifactType.ARTIFACT_TYPE_FINDING },
      [docs.outbox],
      (d) => d.artifactType === 'finding',
    );
    expect(ids(findings)).toEqual([docs.outbox.id]);
  });

  it('by planId', async () => {
    await expectFiltered(
      'kafka events deliverable',
      { planId: planOne },
      [docs.outbox, docs.lag, docs.report],
      (d) => d.planId === planOne,
    );
    await expectFiltered(
      'latency contract',
      { planId: planTwo.toUpperCase() },
      [docs.latency, docs.extraction],
      (d) => d.planId === planTwo,
    );
    expect((await searchAs(orgA, 'kafka', { planId: randomUUID() })).results).toEqual([]);
  });

  it('by tags: items carrying every listed tag', async () => {
    await expectFiltered(
      'kafka',
      { tags: ['kafka'] },
      [docs.outbox, docs.lag],
      (d) => d.tags?.includes('kafka') === true,
    );
    const both = await expectFiltered(
      'kafka',
      { tags: ['outbox', 'kafka'] },
      [docs.outbox],
      (d) => d.tags?.includes('kafka') === true && d.tags.includes('outbox'),
    );
    expect(ids(both)).toEqual([docs.outbox.id]);
    expect((await searchAs(orgA, 'kafka', { tags: ['kafka', 'latency'] })).results).toEqual([]);
  });

  it('combined: all conditions hold', async () => {
    const r = await expectFiltered(
      'kafka',
      {
        sourceTable: SourceTable.SOURCE_TABLE_RESEARCH_ARTIFACT,
        artifactType: ArtifactType.ARTIFACT_TYPE_ANALYSIS,
        planId: planOne,
        tags: ['kafka'],
      },
      [docs.lag],
      (d) => d === docs.lag,
    );
    expect(ids(r)).toEqual([docs.lag.id]);
    expect(
      (await searchAs(orgA, 'kafka', { artifactType: ArtifactType.ARTIFACT_TYPE_FINDING, planId: planTwo }))
        .resultCount,
    ).toBe(0);
  });

  it('treats UNSPECIFIED enums as no filter', async () => {
    const unfiltered = await searchAs(orgA, 'kafka', { limit: 50 });
    const unspecified = await searchAs(orgA, 'kafka', {
      limit: 50,
      sourceTable: SourceTable.SOURCE_TABLE_UNSPECIFIED,
      artifactType: ArtifactType.ARTIFACT_TYPE_UNSPECIFIED,
    });
    expect(unspecified).toEqual(unfiltered);
  });
});

describe('CANARY: an org sees only its own items', () => {
  it("never returns another org's items, even with the very same words", async () => {
    const a = await searchAs(orgA, docs.outbox.text, { limit: 50 });
    expect(ids(a)).toContain(docs.outbox.id);
    expect(ids(a)).not.toContain(secret.id);
    const b = await searchAs(orgB, docs.outbox.text, { limit: 50 });
    expect(ids(b)).toEqual([secret.id]);
  });

  it('a word only another org uses finds nothing, exactly like a word nobody uses', async () => {
    expect(ids(await searchAs(orgB, 'zanzibar'))).toEqual([secret.id]);
    for (const query of ['zanzibar', 'zanzibar canary']) {
      const r = await searchAs(orgA, query, { limit: 50 });
      expect(r.keywordResults).toBe((await searchAs(orgA, 'xylophone', { limit: 50 })).keywordResults);
      expect(r.keywordResults).toBe(0);
      expect(ids(r)).not.toContain(secret.id);
    }
  });

  it('an org with no data gets zero results, for any query and filter', async () => {
    const nobody = randomUUID();
    const cases: [string, Partial<searchV1.SearchSourcesRequest>][] = [
      ['outbox relay kafka', {}],
      ['zanzibar', {}],
      ['quartz', { limit: 50 }],
      ['kafka', { tags: ['kafka'], planId: planOne }],
    ];
    for (const [query, extra] of cases) {
      expect(await searchAs(nobody, query, extra)).toEqual({
        query,
        queryType: expect.any(Number),
        mode: searchV1.SearchMode.SEARCH_MODE_HYBRID,
        resultCount: 0,
        keywordResults: 0,
        semanticResults: 0,
        results: [],
      });
    }
  });
});
