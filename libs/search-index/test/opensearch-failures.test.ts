import { describe, expect, it } from '@jest/globals';
import { openOpenSearchBm25Index, prepareSource } from '../src/index.js';
import { ACK, bulkReply, mockClient, msearchReply, searchReply } from './opensearch-mock.js';

describe('OpenSearch BM25 adapter: failures', () => {
  it('throws with the engine’s reason when a hash lookup of the _msearch fails', async () => {
    const { client } = mockClient((req) => {
      if (req.method === 'HEAD') return { status: 200 };
      if (req.path === '/_msearch') {
        return {
          status: 200,
          body: msearchReply([
            searchReply([]),
            { error: { root_cause: [], type: 'search_phase_execution_exception', reason: 'all shards failed' } },
          ]),
        };
      }
      return { status: 200, body: ACK };
    });
    const index = await openOpenSearchBm25Index({ client });
    const key = { orgId: 'org-a', sourceTable: 't', sourceId: 's' };
    await expect(index.hashesMany([key, { ...key, sourceId: 'other' }])).rejects.toThrow(
      'search_phase_execution_exception: all shards failed',
    );
  });

  it('throws with the engine’s reason when an item fails', async () => {
    const { client } = mockClient((req) => {
      if (req.method === 'HEAD') return { status: 200 };
      if (req.path === '/_msearch') return { status: 200, body: msearchReply([searchReply([])]) };
      if (req.path === '/_bulk') {
        return {
          status: 200,
          body: bulkReply(
            [
              {
                index: {
                  _index: 'quarry-chunks',
                  _id: 'a',
                  status: 400,
                  error: { type: 'strict_dynamic_mapping_exception', reason: 'mapping set to strict' },
                },
              },
            ],
            true,
          ),
        };
      }
      return { status: 200, body: ACK };
    });
    const index = await openOpenSearchBm25Index({ client });
    const source = prepareSource({ orgId: 'org-a', sourceTable: 't', sourceId: 's', title: 'T' }, 'x');
    await expect(index.upsert(source)).rejects.toThrow('strict_dynamic_mapping_exception: mapping set to strict');
  });
});
