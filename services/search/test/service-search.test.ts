import { describe, expect, it } from '@jest/globals';
import { status } from '@quarry/grpc';
import { as, client, docs, ids, orgA, orgB, orgBulk, searchAs, secret, useSearchService } from './service-fixture.js';

// search, the research contract of ChatGPT's deep research: one query, {results: [{id, title,
// url}]}, ranked exactly as search_sources ranks it with its defaults, in the caller's org only.

useSearchService();

const searchFor = (orgId: string, query: string) => client.call('search', { query }, as(orgId));

describe('search', () => {
  it.each([
    'outbox',
    'which relay publishes the content events to kafka exactly once',
    'zeppelin hangar',
    'renewal date and price of the vendor contract',
  ])('ranks as search_sources does, one result per item, each with id, title and url (%s)', async (query) => {
    const found = await searchFor(orgA, query);
    const sources = await searchAs(orgA, query);
    expect(found.results.map((r) => r.id)).toEqual(ids(sources));
    expect(found.results).toEqual(sources.results.map((r) => ({ id: r.sourceId, title: r.title, url: r.url })));
    expect(new Set(found.results.map((r) => r.id)).size).toBe(found.results.length);
  });

  it('gives each kind of item its url', async () => {
    const first = async (query: string) => (await searchFor(orgA, query)).results[0];
    expect(await first('outbox relay kafka')).toEqual({
      id: docs.outbox.id,
      title: 'Outbox relay design',
      url: `quarry://artifacts/${docs.outbox.id}`,
    });
    expect((await first('deliverable summarises the pipeline'))?.url).toBe(`quarry://outputs/${docs.report.id}`);
    expect((await first('vendor contract termination clause'))?.url).toBe(`quarry://extractions/${docs.extraction.id}`);
  });

  it('answers at most 10 results, as search_sources by default', async () => {
    expect((await searchFor(orgBulk, 'quartz crystal observation')).results).toHaveLength(10);
  });

  it("never finds another org's items, even by their own words", async () => {
    expect((await searchFor(orgA, 'zanzibar canary')).results.map((r) => r.id)).not.toContain(secret.id);
    expect((await searchFor(orgB, docs.outbox.text)).results.map((r) => r.id)).toEqual([secret.id]);
  });

  it('refuses a blank query with INVALID_ARGUMENT naming it', async () => {
    await expect(searchFor(orgA, '   ')).rejects.toMatchObject({
      status: status.INVALID_ARGUMENT,
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/`query`/),
    });
  });
});
