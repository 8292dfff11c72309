import { describe, expect, it } from '@jest/globals';
import { toolCatalogue } from '../src/index.js';
import { CatalogueError, deriveCatalogue } from '../src/catalogue/derive.js';
import { buildModule } from './support/buf-fixture.js';

// `(quarry.mcp.v1.elicit)`: a tool that can ask the user through the client, resolved against
// its answer tool when the catalogue is derived.

describe('request_user_review asks the user with a form answered by submit_user_decision', () => {
  const review = toolCatalogue.find((t) => t.name === 'request_user_review')!;
  const decision = toolCatalogue.find((t) => t.name === 'submit_user_decision')!;

  it('carries the ids, the session id and the review the first round opened over, and asks for the decision and feedback', () => {
    expect(review.elicitation).toMatchObject({
      answerTool: 'submit_user_decision',
      carry: ['planId', 'stepId', 'sessionId'],
      carryReply: ['reviewId'],
      outcomeField: 'userAnswer',
      message: [
        { field: 'summary', list: false },
        { field: 'questions', heading: 'Questions:', list: true },
      ],
    });
    expect(Object.keys(review.elicitation!.form.properties)).toEqual(['decision', 'feedback']);
    expect(review.elicitation!.form.required).toEqual(['decision']);
  });

  it('offers exactly the decisions submit_user_decision accepts, each titled', () => {
    const offered = review.elicitation!.form.properties.decision as { oneOf: { const: string; title: string }[] };
    expect(offered.oneOf.map((o) => o.const)).toEqual(decision.inputSchema.properties.decision!.enum);
    for (const option of offered.oneOf) expect(option.title).toMatch(new RegExp(`^${option.const}:`, 'i'));
  });

  it('keeps the feedback bounds of submit_user_decision (the form cannot send what the tool refuses)', () => {
    expect(review.elicitation!.form.properties.feedback).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: 10000,
    });
  });

  it('lists the outcome in the output schema, but never the side channel in the input schema', () => {
    expect(review.outputSchema.properties.userAnswer).toMatchObject({ type: 'object' });
    expect(Object.keys(review.inputSchema.properties)).not.toContain('userAnswer');
  });
});

describe('an elicit option that does not fit is refused, naming the rpc', () => {
  const derive = (
    elicit: string,
    response = 'quarry.mcp.v1.ElicitationOutcome outcome = 1;',
    reason = 'optional string reason = 3;',
  ) =>
    deriveCatalogue(
      buildModule({
        'quarry/ask/v1/ask.proto': `syntax = "proto3";
package quarry.ask.v1;
import "quarry/mcp/v1/options.proto";
import "quarry/mcp/v1/elicitation.proto";
service AskService {
  // Asks.
  rpc Ask(AskRequest) returns (AskResponse) {
    option (quarry.mcp.v1.tool) = { name: "ask" title: "Ask" annotations: { destructive: false } };
    option (quarry.mcp.v1.elicit) = { ${elicit} };
  }
  // Answers.
  rpc Answer(AnswerRequest) returns (AnswerResponse) {
    option (quarry.mcp.v1.tool) = { name: "answer" title: "Answer" annotations: { destructive: false } };
  }
}
message AskRequest { string id = 1; string text = 2; repeated int32 counts = 3; }
message AskResponse { ${response} }
message AnswerRequest { string id = 1; bool yes = 2; ${reason} repeated string tags = 4; }
message AnswerResponse {}`,
      }),
    );
  const valid =
    'answer_tool: "answer" ask: [{field: "yes"}] lead: "Well?" message: [{field: "text"}] on_accept: "a" on_decline: "d"';
  const rejection = (fn: () => unknown): string => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(CatalogueError);
      return (error as Error).message;
    }
    throw new Error('expected a CatalogueError');
  };

  it('accepts a fitting option', () => {
    const ask = derive(valid).find((t) => t.name === 'ask')!;
    expect(ask.elicitation).toMatchObject({
      answerTool: 'answer',
      carry: ['id'],
      form: { properties: { yes: { type: 'boolean' } } },
    });
  });

  it.each([
    [
      'an unknown answer tool',
      valid.replace('"answer"', '"nope"'),
      'answer_tool "nope" is not a tool of the catalogue',
    ],
    ['a field the answer tool lacks', valid.replace('"yes"', '"maybe"'), 'ask field "maybe" is not a field'],
    ['a repeated field in the form', valid.replace('"yes"', '"tags"'), 'ask field "tags" must be a singular string'],
    [
      'a message field that is not text',
      valid.replace('"text"', '"counts"'),
      'message field "counts" must be a string field',
    ],
    ['no lead', valid.replace('lead: "Well?"', ''), 'the form needs a lead'],
    ['no on_decline', valid.replace('on_decline: "d"', ''), 'on_accept and on_decline'],
  ])('%s', (_, option, problem) => {
    expect(rejection(() => derive(option))).toContain(`rpc quarry.ask.v1.AskService.Ask: elicit: ${problem}`);
  });

  it('an answer tool that requires a field neither asked nor carried', () => {
    expect(rejection(() => derive(valid, undefined, 'string reason = 3;'))).toContain(
      'answer requires "reason", which the form does not ask for and this rpc neither takes nor returns',
    );
  });

  it('a response without an ElicitationOutcome field', () => {
    expect(rejection(() => derive(valid, 'string id = 1;'))).toContain(
      'exactly one singular quarry.mcp.v1.ElicitationOutcome',
    );
  });
});
