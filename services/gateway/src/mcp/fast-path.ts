import { classifyInboundRequest, SERVER_INFO_META_KEY, type Implementation } from '@modelcontextprotocol/server';
import type { CallMode } from './call-modes/call-mode.js';
import { modeFor } from './call-modes/modes.js';
import { type Caller, clientCapabilitiesIn } from './request-context.js';
import type { Tools } from './tools/call.js';

/** The one protocol revision the fast path answers; every other request goes to the SDK. */
const FAST_PATH_PROTOCOL_VERSION = '2026-07-28';

/** Keys the fast path reads in params; anything else (requestState, inputResponses, task, …) is the SDK's. */
const PLAIN_CALL_PARAMS = new Set(['name', 'arguments', '_meta']);

type Headers = Readonly<Record<string, string | string[] | undefined>>;

export interface PlainToolCall {
  id: string | number;
  name: string;
  args: Record<string, unknown>;
}

/** The tools/call fast path (ADR 0015): which requests it takes, and their answers. */
export interface ToolCallFastPath {
  /** The call when this request is one the fast path answers, else undefined (the SDK serves it). */
  match(headers: Headers, body: unknown): PlainToolCall | undefined;
  /** The JSON-RPC response to a matched call, as the SDK's modern codec would encode it. */
  answer(call: PlainToolCall, caller: Caller): Promise<string>;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const header = (headers: Headers, name: string) => {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
};

/**
 * The MCP endpoint's hot path (ADR 0015): a 2026-07-28 `tools/call` of a known tool that the call
 * modes give to `plain` (no form, no sampling round trip, no task, no progress stream), a single
 * request with a valid per-request envelope, consistent MCP headers and nothing but name,
 * arguments and `_meta` in its params, is answered without the SDK's per-request server,
 * transport and web Request/Response, which cost more CPU than the whole gRPC hop behind them.
 * The SDK's own classifier decides the era and checks the envelope; what the fast path accepts
 * is a subset of what the SDK serves, and it answers with the JSON the SDK would
 * (test/mcp-fast-path.test.ts holds the two side by side). Every other request, including every
 * malformed one, is served by the SDK.
 */
export function createToolCallFastPath(
  tools: Tools,
  modes: readonly CallMode[],
  serverInfo: Implementation,
): ToolCallFastPath {
  const meta = { [SERVER_INFO_META_KEY]: serverInfo };
  const metaJson = JSON.stringify(meta);
  return {
    match(headers, body) {
      if (!isPlainObject(body) || body.method !== 'tools/call') return undefined;
      const protocolVersionHeader = header(headers, 'mcp-protocol-version');
      const mcpMethodHeader = header(headers, 'mcp-method');
      const mcpNameHeader = header(headers, 'mcp-name');
      // The SDK requires all three on a modern request, the name equal to params.name (a
      // Base64-sentinel or padded name header is left to the SDK to decode).
      if (
        protocolVersionHeader !== FAST_PATH_PROTOCOL_VERSION ||
        mcpMethodHeader !== 'tools/call' ||
        mcpNameHeader === undefined
      )
        return undefined;
      const { params, id } = body;
      if (!isPlainObject(params) || typeof params.name !== 'string' || params.name !== mcpNameHeader) return undefined;
      if (
        (typeof id !== 'string' && typeof id !== 'number') ||
        !Object.keys(params).every((key) => PLAIN_CALL_PARAMS.has(key))
      )
        return undefined;
      const args = params.arguments ?? {};
      const tool = tools.catalogue.get(params.name);
      if (!isPlainObject(args) || !tool) return undefined;
      const meta = isPlainObject(params._meta) ? params._meta : undefined;
      const token = meta?.progressToken;
      const mode = modeFor(modes, {
        tool,
        args,
        era: 'modern',
        capabilities: clientCapabilitiesIn(meta),
        // Any progress token, usable or not, is left to the SDK to judge.
        progressToken: token === undefined ? undefined : typeof token === 'number' ? token : String(token),
        retry: false,
      });
      if (mode.name !== 'plain') return undefined;
      const route = classifyInboundRequest({
        httpMethod: 'POST',
        protocolVersionHeader,
        mcpMethodHeader,
        mcpNameHeader,
        body,
      });
      if (
        route.kind !== 'modern' ||
        route.messageKind !== 'request' ||
        route.classification.revision !== FAST_PATH_PROTOCOL_VERSION
      )
        return undefined;
      return { id, name: params.name, args };
    },

    async answer(call, caller) {
      const outcome = await tools.call(call.name, call.args, caller);
      if (!outcome.result) throw new Error(`tool ${call.name} asked for sampling on the fast path`);
      const { structuredJson } = outcome;
      if (structuredJson !== undefined) {
        // The same JSON as below, with the structured content spliced in rather than serialized twice.
        const text = JSON.stringify(structuredJson);
        const links = outcome.result.content.slice(1).map((item) => `,${JSON.stringify(item)}`);
        return `{"result":{"content":[{"type":"text","text":${text}}${links.join('')}],"structuredContent":${structuredJson},"resultType":"complete","_meta":${metaJson}},"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`;
      }
      const result = { ...outcome.result, resultType: 'complete', _meta: meta };
      return JSON.stringify({ result, jsonrpc: '2.0', id: call.id });
    },
  };
}
