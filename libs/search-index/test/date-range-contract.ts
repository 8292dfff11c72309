import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  createLocalEmbedder,
  prepareSource,
  type Bm25Index,
  type ChunkFilters,
  type VectorIndex,
} from '../src/index.js';

const ORG = 'org-d-0004';
const OTHER = 'org-e-0005';

/**
 * The date range every adapter applies inside its engine (part of indexContract): inclusive
 * bounds on createdAt, stored in UTC whatever offset it came with, undated sources never
 * matching a bound, combined with the other filters, and another org's dated source invisible.
 */
export function dateRangeCases(indexes: () => { bm25: Bm25Index; vectors: VectorIndex }, dimension: number): void {
  describe('date range (createdSince / createdUntil)', () => {
    const embedder = createLocalEmbedder({ dimension });
    const dated: [string, string, string | undefined][] = [
      [ORG, 'jan', '2026-01-15T12:00:00.000Z'],
      [ORG, 'feb', '2026-02-01T01:30:00+02:00'], // 2026-01-31T23:30Z
      [ORG, 'mar', '2026-03-15T12:00:00.000Z'],
      [ORG, 'undated', undefined],
      [OTHER, 'other', '2026-01-20T00:00:00.000Z'],
    ];
    const sources = dated.map(([orgId, id, createdAt]) =>
      prepareSource(
        {
          orgId,
          sourceTable: 'research_artifact',
          sourceId: id,
          title: 'Moraine',
          tags: id === 'mar' ? ['late'] : [],
          ...(createdAt ? { createdAt } : {}),
        },
        'Moraine deposits below the glacier snout.',
      ),
    );

    beforeAll(async () => {
      const { bm25, vectors } = indexes();
      await bm25.upsertMany(sources);
      await vectors.upsertMany(sources, (chunks) => embedder.embed(chunks.map((c) => c.text)));
    });

    /** The source ids both legs find in ORG (they must agree). */
    const found = async (filters: ChunkFilters): Promise<string[]> => {
      const { bm25, vectors } = indexes();
      const scope = { orgId: ORG, limit: 10, filters };
      const keyword = (await bm25.search('moraine', scope)).map((h) => h.sourceId).sort();
      const semantic = (await vectors.search(embedder.embedOne('moraine'), scope)).map((h) => h.sourceId).sort();
      expect(semantic).toEqual(keyword);
      return keyword;
    };

    it('stores createdAt in UTC, as toISOString writes it', async () => {
      expect(sources[1]!.createdAt).toBe('2026-01-31T23:30:00.000Z');
      const hit = (await indexes().bm25.search('moraine', { orgId: ORG, limit: 10 })).find((h) => h.sourceId === 'feb');
      expect(hit?.createdAt).toBe('2026-01-31T23:30:00.000Z');
    });

    it('bounds createdAt inclusively on either side or both; undated sources never match a bound', async () => {
      expect(await found({})).toEqual(['feb', 'jan', 'mar', 'undated']);
      expect(await found({ createdSince: '2026-01-31T23:30:00.000Z' })).toEqual(['feb', 'mar']);
      expect(await found({ createdUntil: '2026-01-31T23:30:00.000Z' })).toEqual(['feb', 'jan']);
      expect(
        await found({ createdSince: '2026-01-31T23:30:00.001Z', createdUntil: '2026-03-15T12:00:00.000Z' }),
      ).toEqual(['mar']);
      expect(
        await found({ createdSince: '2025-01-01T00:00:00.000Z', createdUntil: '2025-12-31T00:00:00.000Z' }),
      ).toEqual([]);
    });

    it("combines with the other filters, and never shows another org's dated source", async () => {
      expect(await found({ createdSince: '2026-01-01T00:00:00.000Z', tags: ['late'] })).toEqual(['mar']);
      expect(await found({ createdUntil: '2026-02-28T00:00:00.000Z', sourceTable: 'research_output' })).toEqual([]);
      // The other org's source sits inside this window; ours do not.
      expect(
        await found({ createdSince: '2026-01-16T00:00:00.000Z', createdUntil: '2026-01-25T00:00:00.000Z' }),
      ).toEqual([]);
    });
  });
}
