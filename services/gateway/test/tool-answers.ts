import { expect } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';

// Tool calls through an MCP client, as a model sees their answers: for the end-to-end tests.

/** A tool's answer as a model sees it: the error flag and the structured content. */
export interface ToolAnswer {
  isError: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary tool output
  data: Record<string, any>;
}

export type CallTool = (name: string, args: Record<string, unknown>) => Promise<ToolAnswer>;

/** Calls tools on `client`; `call` returns errors too, `ok` fails the test on one. */
export function toolsOf(client: Client) {
  const call: CallTool = async (name, args) => {
    const result = await client.callTool({ name, arguments: args });
    return { isError: Boolean(result.isError), data: (result.structuredContent ?? {}) as ToolAnswer['data'] };
  };
  const ok: CallTool = async (name, args) => {
    const answer = await call(name, args);
    if (answer.isError) throw new Error(`${name} failed: ${JSON.stringify(answer.data.error)}`);
    return answer;
  };
  return { call, ok };
}

/** Asserts a tool error with this stable code whose message matches every pattern. */
export function expectToolError(answer: ToolAnswer, code: string, ...message: RegExp[]): void {
  expect(answer.isError).toBe(true);
  expect(answer.data.error).toMatchObject({ code });
  for (const pattern of message) expect(answer.data.error.message).toMatch(pattern);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
