import { describe, expect, it } from '@jest/globals';
import {
  legacyPermalinkPath,
  parseItemReference,
  parsePermalinkPath,
  permalinkPath,
  sourceUrl,
} from '@quarry/contracts';

// A stored item's two addresses: its quarry:// URI (what the services return, the MCP resource)
// and its permalink path under the gateway's public URL (the web app's page; the library path it
// replaced still reads). fetch takes either, or the bare id.

const id = '0b6d1c9e-6f1a-4f5e-9a51-2f8e0a4b7c10';

describe('item references', () => {
  it('give each kind of item one quarry:// URI and one permalink path, and read both back', () => {
    for (const [table, uri, path, legacy] of [
      ['research_artifact', `quarry://artifacts/${id}`, `/app/artifacts/${id}`, `/library/artifact/${id}`],
      ['research_output', `quarry://outputs/${id}`, `/app/outputs/${id}`, `/library/output/${id}`],
      ['extraction_result', `quarry://extractions/${id}`, `/app/extractions/${id}`, `/library/extraction/${id}`],
    ] as const) {
      expect(sourceUrl(table, id)).toBe(uri);
      expect(permalinkPath(table, id)).toBe(path);
      expect(legacyPermalinkPath(table, id)).toBe(legacy);
      expect(parsePermalinkPath(legacy)).toEqual({ sourceTable: table, id });
      expect(parseItemReference(`https://quarry.example${legacy}`)).toEqual({ sourceTable: table, id });
      expect(parseItemReference(uri)).toEqual({ sourceTable: table, id });
      expect(parsePermalinkPath(path)).toEqual({ sourceTable: table, id });
      expect(parseItemReference(`https://quarry.example${path}`)).toEqual({ sourceTable: table, id });
      // Under a base path, and from another host: the path names the item.
      expect(parseItemReference(`http://127.0.0.1:8080/research${path}`)).toEqual({ sourceTable: table, id });
    }
  });

  it('name nothing for anything else', () => {
    for (const other of [
      id,
      `quarry://plans/${id}`,
      `quarry://artifacts/${id}/more`,
      `https://quarry.example/library/plan/${id}`,
      `https://quarry.example/app/artifact/${id}`,
      `https://quarry.example/app/artifacts/${id}/more`,
      `https://quarry.example/library/artifact/${id}/more`,
      `https://quarry.example/library/artifact/${id}?x=1`,
      `https://quarry.example/library/artifact/${id}#top`,
      `ftp://quarry.example/library/artifact/${id}`,
      `javascript:/library/artifact/${id}`,
      'https://',
    ])
      expect(parseItemReference(other)).toBeUndefined();
  });
});
