import { describe, expect, it } from '@jest/globals';
import { CatalogueError, deriveCatalogue } from '../src/catalogue/derive.js';
import { type JsonSchema, toolCatalogue } from '../src/index.js';
import { buildModule } from './support/buf-fixture.js';

// `(quarry.mcp.v1.permalink)`: a response field holding a stored item's address, which the
// gateway gives as the item's permalink when it has a public URL. The catalogue records where
// each one is, so the gateway rewrites results without knowing any tool.

const derive = (response: string, request = '') =>
  deriveCatalogue(
    buildModule({
      'quarry/link/v1/link.proto': `syntax = "proto3";
package quarry.link.v1;
import "quarry/mcp/v1/options.proto";
service LinkService {
  // Finds things.
  rpc Find(FindRequest) returns (FindResponse) {
    option (quarry.mcp.v1.tool) = { name: "find" title: "Find" annotations: { read_only: true } };
  }
}
message FindRequest {
  string q = 1;
${request}
}
message Hit {
  string url = 1 [(quarry.mcp.v1.permalink) = true];
  string other = 2 [(quarry.mcp.v1.permalink) = false];
  Hit parent = 3;
}
message FindResponse {
${response}
}`,
    }),
  );

const rejection = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogueError);
    return (error as Error).message;
  }
  throw new Error('expected a CatalogueError');
};

/** The JSON path of every property named `url` in a schema, at any depth (array items walked). */
function urlPaths(schema: JsonSchema, path: string[] = [], seen = 0): string[][] {
  if (seen > 8) return [];
  const found: string[][] = [];
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, property] of Object.entries(props)) {
    const inner = (property.type === 'array' ? property.items : property) as JsonSchema;
    if (name === 'url' && inner.type === 'string') found.push([...path, name]);
    if (inner.type === 'object') found.push(...urlPaths(inner, [...path, name], seen + 1));
  }
  return found;
}

describe('permalink fields', () => {
  it('are found at the root and inside lists of messages; false marks nothing', () => {
    const [tool] = derive(`  string url = 1 [(quarry.mcp.v1.permalink) = true];
  repeated Hit hits = 2;`);
    expect(tool!.permalinks).toEqual([['url'], ['hits', 'url']]);
  });

  it('are absent from a tool whose result holds none', () => {
    const [tool] = derive('  string id = 1;');
    expect(tool).not.toHaveProperty('permalinks');
  });

  it('must be strings of a response', () => {
    expect(rejection(() => derive('  int32 n = 1 [(quarry.mcp.v1.permalink) = true];'))).toMatch(
      /permalink needs a string field/,
    );
    expect(rejection(() => derive('  string id = 1;', '  string x = 2 [(quarry.mcp.v1.permalink) = true];'))).toMatch(
      /permalink belongs in a response/,
    );
  });

  it("mark every url Quarry's tools return, and nothing else", () => {
    const declared = toolCatalogue
      .map((t) => [t.name, (t.permalinks ?? []).map((p) => p.join('.')).sort()] as const)
      .filter(([, paths]) => paths.length > 0);
    const urls = toolCatalogue
      .map(
        (t) =>
          [
            t.name,
            urlPaths(t.outputSchema)
              .map((p) => p.join('.'))
              .sort(),
          ] as const,
      )
      .filter(([, paths]) => paths.length > 0);
    expect(declared).toEqual(urls);
    expect(Object.fromEntries(declared)).toMatchObject({
      search: ['results.url'],
      search_sources: ['results.url'],
      fetch: ['url'],
      get_artifact: ['url'],
      list_artifacts: ['artifacts.url'],
    });
  });
});
