import { describe, expect, it } from '@jest/globals';
import { CatalogueError, deriveCatalogue } from '../src/catalogue/derive.js';
import { toolCatalogue } from '../src/index.js';
import { buildModule } from './support/buf-fixture.js';

// `(quarry.mcp.v1.resource_link)`: a response field naming a resource. The catalogue records
// where each one is (its path from the result's root, through lists and nested messages) and the
// URIs its value gives, so the gateway links results without knowing any tool.

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
  string url = 1 [(quarry.mcp.v1.resource_link).uris = "{}"];
  Hit parent = 2;
}
message FindResponse {
${response}
}`,
    }),
  );

const rejection = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogueError);
    return (error as Error).message;
  }
  throw new Error('expected a CatalogueError');
};

describe('resource_link fields', () => {
  it('are found at the root and inside lists of messages, a recursive message entered once', () => {
    const [tool] =
      derive(`  string plan_id = 1 [(quarry.mcp.v1.resource_link) = { uris: ["quarry://plans/{}", "quarry://plans/{}/report"] }];
  repeated Hit hits = 2;`);
    expect(tool!.resourceLinks).toEqual([
      { path: ['planId'], uris: ['quarry://plans/{}', 'quarry://plans/{}/report'] },
      { path: ['hits', 'url'], uris: ['{}'] },
    ]);
  });

  it('are absent from a tool whose result names none', () => {
    const [tool] = derive('  string id = 1;');
    expect(tool).not.toHaveProperty('resourceLinks');
  });

  it('must be strings of a response, each uri with exactly one {}', () => {
    expect(rejection(() => derive('  int32 n = 1 [(quarry.mcp.v1.resource_link).uris = "quarry://x/{}"];'))).toMatch(
      /resource_link needs a string field/,
    );
    expect(rejection(() => derive('  string id = 1 [(quarry.mcp.v1.resource_link).uris = "quarry://x/"];'))).toMatch(
      /exactly one \{\}/,
    );
    expect(
      rejection(() => derive('  string id = 1;', '  string x = 2 [(quarry.mcp.v1.resource_link).uris = "{}"];')),
    ).toMatch(/belongs in a response/);
  });

  it("are declared for what Quarry's tools create and read back", () => {
    const links = (name: string) => toolCatalogue.find((t) => t.name === name)!.resourceLinks;
    expect(links('create_research_plan')).toEqual([
      { path: ['planId'], uris: ['quarry://plans/{}', 'quarry://plans/{}/report'] },
    ]);
    expect(links('store_research')).toEqual([{ path: ['id'], uris: ['quarry://artifacts/{}'] }]);
    expect(links('store_research_output')).toEqual([{ path: ['outputId'], uris: ['quarry://outputs/{}'] }]);
    expect(links('extract_data')).toEqual([
      { path: ['extractionId'], uris: ['quarry://extractions/{}'] },
      { path: ['jobId'], uris: ['quarry://extraction-jobs/{}'] },
    ]);
    expect(links('get_extraction_job')).toEqual([{ path: ['extractionId'], uris: ['quarry://extractions/{}'] }]);
    expect(links('search_sources')).toEqual([{ path: ['results', 'url'], uris: ['{}'] }]);
    expect(links('list_research_outputs')).toEqual([{ path: ['outputs', 'url'], uris: ['{}'] }]);
  });
});
