import { describe, expect, it } from '@jest/globals';
import { CatalogueError, deriveCatalogue } from '../src/catalogue/derive.js';
import { toolCatalogue } from '../src/index.js';
import { buildModule } from './support/buf-fixture.js';

// `(quarry.mcp.v1.long_poll)`: a request field that asks the service to wait. One option gives
// both the field's bounds in the input schema and the cap the gateway adds to the rpc's deadline
// (ToolRpc.longPoll), so the two can never disagree.

const derive = (request: string, response = '') =>
  deriveCatalogue(
    buildModule({
      'quarry/poll/v1/poll.proto': `syntax = "proto3";
package quarry.poll.v1;
import "quarry/mcp/v1/options.proto";
service PollService {
  // Waits.
  rpc Watch(WatchRequest) returns (WatchResponse) {
    option (quarry.mcp.v1.tool) = { name: "watch" title: "Watch" annotations: { read_only: true } };
  }
}
message WatchRequest {
  string id = 1;
${request}
}
message WatchResponse {
  string id = 1;
${response}
}
message Nested {
  optional int32 wait = 1 [(quarry.mcp.v1.long_poll).max_seconds = 5];
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

describe('a long-poll field', () => {
  it('gives the rpc its long poll and the field its bounds, from the one option', () => {
    const [tool] = derive('  optional uint32 wait_seconds = 2 [(quarry.mcp.v1.long_poll).max_seconds = 30];');
    expect(tool!.rpc).toEqual({
      service: 'quarry.poll.v1.PollService',
      method: 'Watch',
      path: '/quarry.poll.v1.PollService/Watch',
      longPoll: { field: 'waitSeconds', maxSeconds: 30 },
    });
    expect(tool!.inputSchema.properties.waitSeconds).toEqual({ type: 'integer', minimum: 0, maximum: 30 });
    expect(tool!.inputSchema.required).toEqual(['id']);
  });

  it('is absent from an rpc without one', () => {
    const [tool] = derive('  optional int32 wait_seconds = 2;');
    expect(tool!.rpc).not.toHaveProperty('longPoll');
    expect(tool!.inputSchema.properties.waitSeconds).toEqual({
      type: 'integer',
      minimum: -2147483648,
      maximum: 2147483647,
    });
  });

  it.each([
    [
      'on a string field',
      '  string wait = 2 [(quarry.mcp.v1.long_poll).max_seconds = 5];',
      'field quarry.poll.v1.WatchRequest.wait: long_poll applies only to a singular integer field',
    ],
    [
      'on a repeated field',
      '  repeated int32 wait = 2 [(quarry.mcp.v1.long_poll).max_seconds = 5];',
      'field quarry.poll.v1.WatchRequest.wait: long_poll applies only to a singular integer field',
    ],
    [
      'inside a nested message',
      '  Nested nested = 2;',
      'field quarry.poll.v1.Nested.wait: long_poll applies only to a field of the request itself',
    ],
    [
      'beside bounds of its own',
      '  optional int32 wait = 2 [(quarry.mcp.v1.long_poll).max_seconds = 5, (quarry.mcp.v1.field).maximum = 9];',
      'field quarry.poll.v1.WatchRequest.wait: long_poll sets the bounds itself; drop (quarry.mcp.v1.field) maximum',
    ],
    [
      'without max_seconds',
      '  optional int32 wait = 2 [(quarry.mcp.v1.long_poll) = {}];',
      'field quarry.poll.v1.WatchRequest.wait: long_poll needs max_seconds of at least 1',
    ],
    [
      'twice in one request',
      '  optional int32 a = 2 [(quarry.mcp.v1.long_poll).max_seconds = 5];\n  optional int32 b = 3 [(quarry.mcp.v1.long_poll).max_seconds = 5];',
      'rpc quarry.poll.v1.PollService.Watch: has more than one long_poll field: a, b',
    ],
  ])('is refused %s', (_what, request, problem) => {
    expect(rejection(() => derive(request))).toContain(problem);
  });

  it('is refused in a response', () => {
    expect(
      rejection(() => derive('', '  optional int32 wait = 2 [(quarry.mcp.v1.long_poll).max_seconds = 5];')),
    ).toContain('field quarry.poll.v1.WatchResponse.wait: long_poll belongs in the request, not the response');
  });
});

describe("the catalogue's long polls", () => {
  it('are get_plan_status and get_extraction_job waitSeconds, up to 60 seconds', () => {
    const polls = toolCatalogue.filter((t) => t.rpc.longPoll).map((t) => [t.name, t.rpc.longPoll]);
    expect(polls).toEqual([
      ['get_extraction_job', { field: 'waitSeconds', maxSeconds: 60 }],
      ['get_plan_status', { field: 'waitSeconds', maxSeconds: 60 }],
    ]);
  });

  it('bound their field in the input schema to exactly 0–maxSeconds', () => {
    for (const tool of toolCatalogue.filter((t) => t.rpc.longPoll)) {
      const { field, maxSeconds } = tool.rpc.longPoll!;
      expect(tool.inputSchema.properties[field]).toMatchObject({ type: 'integer', minimum: 0, maximum: maxSeconds });
    }
  });
});
