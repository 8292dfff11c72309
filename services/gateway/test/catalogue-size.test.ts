import { describe, expect, it } from '@jest/globals';
import { toolCatalogue } from '@quarry/contracts';
import { createTools, type ToolBackend } from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import { SERVER_INSTRUCTIONS } from '../src/mcp/prompts/instructions.js';

// The catalogue stays light. What a client puts in front of its model for Quarry is counted:
// every tool of tools/list (the widest credential sees them all) with its name, title,
// description and input schema, as the JSON the client receives, plus the server instructions.
// Output schemas and annotations are not counted: clients validate results with them but do not
// show them to the model. Tokens are estimated at 4 characters each.

const TOKEN_BUDGET = 10_000;
const CHARS_PER_TOKEN = 4;

const unused: ToolBackend = {
  unary: () => Promise.reject(new Error('the catalogue test calls no tool')),
};
const tools = createTools({
  catalogue: toolCatalogue,
  backends: Object.fromEntries(toolCatalogue.map((t) => [t.rpc.service, unused])),
  logger: createLogger({ service: 'catalogue-size-test', level: 'silent' }),
});

const modelFacing = tools.catalogue.listed.map(({ name, title, description, inputSchema }) => ({
  name,
  title,
  description,
  inputSchema,
}));
const tokens = (value: unknown) =>
  Math.ceil((typeof value === 'string' ? value : JSON.stringify(value)).length / CHARS_PER_TOKEN);

describe('the model-facing catalogue', () => {
  it(`stays under ${TOKEN_BUDGET} tokens (≈ ${CHARS_PER_TOKEN} characters each)`, () => {
    const total = tokens(modelFacing) + tokens(SERVER_INSTRUCTIONS);
    const largest = modelFacing
      .map((tool) => ({ tool: tool.name, tokens: tokens(tool) }))
      .sort((a, b) => b.tokens - a.tokens)
      .slice(0, 5);
    // On failure the message names the largest tools: where to shorten first.
    if (total > TOKEN_BUDGET)
      throw new Error(`The catalogue is ${total} tokens (budget ${TOKEN_BUDGET}); largest: ${JSON.stringify(largest)}`);
    expect(total).toBeLessThanOrEqual(TOKEN_BUDGET);
  });

  it('counts what tools/list serves: every tool, with a description', () => {
    expect(modelFacing.length).toBe(toolCatalogue.length);
    for (const tool of modelFacing) expect(tool.description?.length).toBeGreaterThan(20);
  });
});
