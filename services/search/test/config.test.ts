import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@quarry/config';
import { loadSearchConfig } from '../src/index.js';

const KEY = 'k'.repeat(40);
const DATA = '/var/lib/quarry';

describe('the search service configuration', () => {
  it('has defaults for everything but the identity key', () => {
    const config = loadSearchConfig({ QUARRY_IDENTITY_KEY: KEY, QUARRY_DATA_DIR: DATA });
    expect(config).toMatchObject({
      HOST: '127.0.0.1',
      PORT: 50053,
      METRICS_PORT: 9466,
      LOG_LEVEL: 'info',
      SEARCH_READ_CONSISTENCY: 1000,
      OPENSEARCH_INDEX: 'quarry-chunks',
      QDRANT_COLLECTION: 'quarry_chunks',
    });
    expect(config.OPENSEARCH_URL).toBeUndefined();
    expect(config.EMBEDDINGS_URL).toBeUndefined();
    expect(
      loadSearchConfig({ QUARRY_IDENTITY_KEY: KEY, QUARRY_DATA_DIR: DATA, SEARCH_READ_CONSISTENCY: '250ms' })
        .SEARCH_READ_CONSISTENCY,
    ).toBe(250);
  });

  it.each([
    [
      'EMBEDDINGS_URL without EMBEDDINGS_MODEL',
      { EMBEDDINGS_URL: 'http://127.0.0.1:11434' },
      'EMBEDDINGS_MODEL: is required when EMBEDDINGS_URL is set',
    ],
    [
      'an engine URL without its scheme',
      { OPENSEARCH_URL: 'opensearch:9200' },
      'OPENSEARCH_URL: must be an http:// or https:// URL',
    ],
    ['a URL that is not one', { QDRANT_URL: 'qdrant' }, 'QDRANT_URL'],
    ['a bad embeddings URL', { EMBEDDINGS_URL: 'not a url', EMBEDDINGS_MODEL: 'm' }, 'EMBEDDINGS_URL'],
    ['a dimension that is not a positive integer', { EMBEDDINGS_DIMENSION: '-3' }, 'EMBEDDINGS_DIMENSION'],
    ['a read consistency that is not a duration', { SEARCH_READ_CONSISTENCY: 'soon' }, 'SEARCH_READ_CONSISTENCY'],
    ['a short identity key', { QUARRY_IDENTITY_KEY: 'short' }, 'QUARRY_IDENTITY_KEY'],
  ])('refuses %s, naming the variable', (_name, env, named) => {
    const attempt = () => loadSearchConfig({ QUARRY_IDENTITY_KEY: KEY, QUARRY_DATA_DIR: DATA, ...env });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(named);
  });

  it('refuses to open the embedded indexes without QUARRY_DATA_DIR, so it never reads another directory than the indexer writes', () => {
    const without = (env: Record<string, string>) => () => loadSearchConfig({ QUARRY_IDENTITY_KEY: KEY, ...env });
    expect(without({})).toThrow(ConfigError);
    expect(without({})).toThrow(
      'QUARRY_DATA_DIR: is required while OPENSEARCH_URL and QDRANT_URL are unset: the embedded LanceDB indexes live in <QUARRY_DATA_DIR>/search, and search and the indexer must both be given the same directory',
    );
    expect(without({ OPENSEARCH_URL: 'http://opensearch:9200' })).toThrow(
      'QUARRY_DATA_DIR: is required while QDRANT_URL is unset',
    );
    // Both engines external: nothing embedded, no directory needed.
    expect(
      without({ OPENSEARCH_URL: 'http://opensearch:9200', QDRANT_URL: 'http://qdrant:6333' })().QUARRY_DATA_DIR,
    ).toBeUndefined();
  });
});
