import { describe, expect, it } from '@jest/globals';
import { CatalogueError, deriveCatalogue } from '../src/catalogue/derive.js';
import { buildModule } from './support/buf-fixture.js';

// What the derivation refuses, each problem naming its rpc (what it makes of a valid module is in
// derive.test.ts).

describe('deriveCatalogue rejects, naming the rpc', () => {
  // A small module with one service; `rpcs` and `messages` are spliced in.
  const derive = (rpcs: string, messages = '') =>
    deriveCatalogue(
      buildModule({
        'quarry/bad/v1/bad.proto': `syntax = "proto3";
package quarry.bad.v1;
import "quarry/mcp/v1/options.proto";
service BadService {
${rpcs}
}
message DoItRequest {}
message DoItResponse {}
message OtherRequest {}
message OtherResponse {}
${messages}`,
      }),
    );
  const rpc = (name: string, tool: string, signature = '(DoItRequest) returns (DoItResponse)') =>
    `  // Does it.\n  rpc ${name}${signature} {\n    option (quarry.mcp.v1.tool) = { ${tool} };\n  }`;
  const READ_ONLY = 'annotations: { read_only: true }';

  const rejection = (fn: () => unknown): string => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(CatalogueError);
      return (error as Error).message;
    }
    throw new Error('expected a CatalogueError');
  };

  it.each([
    ['uppercase and a dash', 'Bad-Name'],
    ['a leading digit', '1tool'],
    ['65 characters', `a${'b'.repeat(64)}`],
    ['an empty name', ''],
  ])('a tool name with %s', (_, name) => {
    const message = rejection(() => derive(rpc('DoIt', `name: "${name}" title: "Do it" ${READ_ONLY}`)));
    expect(message).toContain(
      `rpc quarry.bad.v1.BadService.DoIt: tool name ${JSON.stringify(name)} must be snake_case`,
    );
  });

  it('accepts a 64-character name', () => {
    const name = `a${'b'.repeat(63)}`;
    expect(derive(rpc('DoIt', `name: "${name}" title: "Do it" ${READ_ONLY}`)).map((t) => t.name)).toEqual([name]);
  });

  it('the same tool name on two rpcs', () => {
    const message = rejection(() =>
      derive(
        [
          rpc('DoIt', `name: "do_it" title: "Do it" ${READ_ONLY}`),
          rpc('Other', `name: "do_it" title: "Other" ${READ_ONLY}`, '(OtherRequest) returns (OtherResponse)'),
        ].join('\n'),
      ),
    );
    expect(message).toContain(
      'tool name "do_it" is used by more than one rpc: quarry.bad.v1.BadService.DoIt, quarry.bad.v1.BadService.Other',
    );
  });

  it.each([
    ['server-streaming', '(DoItRequest) returns (stream DoItResponse)'],
    ['client-streaming', '(stream DoItRequest) returns (DoItResponse)'],
    ['bidi-streaming', '(stream DoItRequest) returns (stream DoItResponse)'],
  ])('a %s rpc', (kind, signature) => {
    const message = rejection(() => derive(rpc('DoIt', `name: "do_it" title: "Do it" ${READ_ONLY}`, signature)));
    expect(message).toContain(`rpc quarry.bad.v1.BadService.DoIt: is ${kind}; a tool call is exactly one unary call`);
  });

  it('a tool without a title or without a comment', () => {
    const message = rejection(() =>
      derive(
        `  rpc DoIt(DoItRequest) returns (DoItResponse) {\n    option (quarry.mcp.v1.tool) = { name: "do_it" ${READ_ONLY} };\n  }`,
      ),
    );
    expect(message).toContain('rpc quarry.bad.v1.BadService.DoIt: the tool needs a title');
    expect(message).toContain(
      "rpc quarry.bad.v1.BadService.DoIt: the rpc needs a leading comment: it is the tool's description",
    );
  });

  it('a writing tool that does not say whether it is destructive, and a destructive read-only one', () => {
    expect(rejection(() => derive(rpc('DoIt', 'name: "do_it" title: "Do it"')))).toContain(
      'rpc quarry.bad.v1.BadService.DoIt: a tool that is not read-only must set annotations.destructive (true or false)',
    );
    expect(
      rejection(() =>
        derive(rpc('DoIt', 'name: "do_it" title: "Do it" annotations: { read_only: true destructive: true }')),
      ),
    ).toContain('rpc quarry.bad.v1.BadService.DoIt: a read-only tool cannot be destructive');
  });

  it('a liveness check that writes', () => {
    expect(
      rejection(() =>
        derive(rpc('DoIt', 'name: "do_it" title: "Do it" liveness: true annotations: { destructive: false }')),
      ),
    ).toContain('rpc quarry.bad.v1.BadService.DoIt: a liveness check must be read-only');
  });

  it.each([
    [
      'a string constraint on a number',
      'int32 x = 1 [(quarry.mcp.v1.field).min_length = 1];',
      'minLength only apply to string fields',
    ],
    [
      'an unknown format',
      'string x = 1 [(quarry.mcp.v1.field).format = "ipv4"];',
      'format "ipv4" is not one of uuid, email, uri, date-time',
    ],
    [
      'an invalid pattern',
      'string x = 1 [(quarry.mcp.v1.field).pattern = "(unclosed"];',
      'pattern "(unclosed" is not a valid regular expression',
    ],
    [
      'a number constraint on a string',
      'string x = 1 [(quarry.mcp.v1.field).maximum = 3];',
      'maximum only apply to numeric fields',
    ],
    [
      'an item count on a singular field',
      'string x = 1 [(quarry.mcp.v1.field).max_items = 3];',
      'maxItems only apply to repeated fields',
    ],
    [
      'a property count on a list',
      'repeated string x = 1 [(quarry.mcp.v1.field).min_properties = 1];',
      'minProperties only apply to map and google.protobuf.Struct fields',
    ],
    [
      'required on a scalar',
      'string x = 1 [(quarry.mcp.v1.field).required = true];',
      'required only applies to message, repeated and map fields',
    ],
  ])('%s', (_, field, problem) => {
    const message = rejection(() =>
      derive(
        rpc('Check', `name: "check" title: "Check" ${READ_ONLY}`, '(CheckRequest) returns (CheckResponse)'),
        `message CheckRequest {\n  ${field}\n}\nmessage CheckResponse {}`,
      ),
    );
    expect(message).toContain(`rpc quarry.bad.v1.BadService.Check: field quarry.bad.v1.CheckRequest.x: ${problem}`);
  });

  it('reports every problem at once', () => {
    const message = rejection(() =>
      derive(
        [
          rpc('DoIt', `name: "Do It" title: "Do it" ${READ_ONLY}`),
          rpc('Other', `name: "other" title: "Other" ${READ_ONLY}`, '(OtherRequest) returns (stream OtherResponse)'),
        ].join('\n'),
      ),
    );
    expect(message.split('\n')).toEqual([
      'Cannot derive the MCP tool catalogue:',
      expect.stringContaining('rpc quarry.bad.v1.BadService.DoIt: tool name "Do It"'),
      expect.stringContaining('rpc quarry.bad.v1.BadService.Other: is server-streaming'),
    ]);
  });

  it('a module without any tool option gives an empty catalogue', () => {
    expect(derive('  // Does it.\n  rpc DoIt(DoItRequest) returns (DoItResponse);')).toEqual([]);
  });
});
