import {
  CLIENT_CAPABILITIES_META_KEY,
  type CallToolResult,
  type ClientCapabilities,
  inputRequired,
  type InputRequiredResult,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CallerContext, ToolDispatcher } from '../dispatcher.js';
import { checkAnswer, formRequest } from './form.js';

/**
 * What an elicitation round trip carries through the client, signed by the endpoint's
 * requestState codec (bound to the method and the token): the call it belongs to, and the reply
 * of the rpc that already ran, so the retry never runs it again and needs no replica's memory.
 */
export interface ElicitationState {
  tool: string;
  /** SHA-256 of the call's arguments (canonical JSON): the retry must repeat them. */
  args: string;
  /** The structured reply of the first round's rpc. */
  first: Record<string, unknown>;
}

/** The key of the one embedded request an elicitation round trip carries. */
const ELICITATION_INPUT_KEY = 'user_answer';

export interface ElicitingCallOptions {
  dispatcher: ToolDispatcher;
  /** Signs a state with the endpoint's codec (the same key and binding as sampling's). */
  mint(state: ElicitationState, ctx: ServerContext): Promise<string>;
}

export interface ElicitingCall {
  name: string;
  args: Record<string, unknown>;
  caller: CallerContext;
  /** The request is of the 2026-07-28 era (the only one where the server can ask on a stateless endpoint). */
  modern: boolean;
  /** The hash of `args`, as the endpoint computes it for every round trip. */
  argsHash(): string;
  ctx: ServerContext;
}

/**
 * Calls of a tool with `(quarry.mcp.v1.elicit)` (ADR 0033). First round: the tool's rpc runs as
 * for any client (e.g. the review is requested and audited); when the client can show a form,
 * the reply is held in the signed state and the call is answered with one form. Second round
 * (the retry with the user's answer): the answer is checked against the form and recorded
 * through the answer tool's rpc, exactly as if the model had called that tool; a declined or
 * dismissed form records nothing. Clients that cannot show a form get the reply as it is.
 */
export function createElicitingCalls(options: ElicitingCallOptions) {
  const { dispatcher } = options;
  // A token that may not record the answer is never shown the form: it gets the reply as it is.
  const mayCall = (call: ElicitingCall, tool: string) =>
    dispatcher.toolsFor(call.caller.principal).some((t) => t.name === tool);

  return async function callEliciting(call: ElicitingCall): Promise<CallToolResult | InputRequiredResult> {
    const spec = dispatcher.elicitationOf(call.name)!;
    const { ctx } = call;
    const state = ctx.mcpReq.requestState<Partial<ElicitationState>>();
    if (!state) {
      const outcome = await dispatcher.call(call.name, call.args, call.caller);
      const result = outcome.result!;
      if (!result.structuredContent || result.isError || !formsAvailable(call) || !mayCall(call, spec.answerTool))
        return result;
      const first: ElicitationState = {
        tool: call.name,
        args: call.argsHash(),
        first: result.structuredContent as Record<string, unknown>,
      };
      return inputRequired({
        inputRequests: { [ELICITATION_INPUT_KEY]: inputRequired.elicit(formRequest(spec, call.args)) },
        requestState: await options.mint(first, ctx),
      });
    }

    // Verified by the codec before the handler runs (signature, expiry, method and token).
    if (!state.first || state.tool !== call.name || state.args !== call.argsHash()) {
      return refusal(
        'ELICITATION_STATE_MISMATCH',
        'This retry carries the requestState of a different call (another tool or other arguments). Call the tool again without it.',
      );
    }
    // The rpc ran in the first round under this token; it must still be allowed to (an allowlist
    // may have been narrowed since), and so must the answer tool.
    const allowed = new Set(dispatcher.toolsFor(call.caller.principal).map((t) => t.name));
    if (!allowed.has(call.name))
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${call.name}. Call tools/list for the available tools.`,
      );
    const response = inputResponse(ctx.mcpReq.inputResponses, ELICITATION_INPUT_KEY);
    if (response.kind !== 'elicit') {
      return refusal(
        'ELICITATION_ANSWER_MISSING',
        `The retry carries no answer to the form "${ELICITATION_INPUT_KEY}". Show it to the user and retry with their answer, or call the tool again without requestState.`,
      );
    }
    const first = state.first;
    if (response.action !== 'accept') {
      return complete({ ...first, [spec.outcomeField]: { action: response.action, next: spec.onDecline } });
    }
    const checked = checkAnswer(spec.form, response.content);
    if ('problem' in checked) {
      return refusal(
        'INVALID_ANSWER',
        `The form's answer cannot be recorded: ${checked.problem}. Nothing was recorded; the call's first round stands. Ask the user again, or record their answer with ${spec.answerTool}.`,
      );
    }
    if (!allowed.has(spec.answerTool))
      return refusal('ANSWER_TOOL_UNAVAILABLE', `This token may not call ${spec.answerTool}: nothing was recorded.`);
    // The answer goes to exactly what the first round opened (e.g. its review), or is refused.
    const carried = { ...pick(call.args, spec.carry), ...pick(first, spec.carryReply) };
    const recorded = (await dispatcher.call(spec.answerTool, { ...carried, ...checked.answer }, call.caller)).result!;
    // The answer tool refused (e.g. the plan moved on meanwhile): its error, as the model would have had it.
    if (recorded.isError || !recorded.structuredContent) return recorded;
    // The fields both replies share say how things stand now, after the answer.
    const after = recorded.structuredContent as Record<string, unknown>;
    return complete({
      ...first,
      ...pick(after, Object.keys(first)),
      [spec.outcomeField]: { action: 'accept', answer: checked.answer, next: spec.onAccept },
    });
  };
}

/** The client declared form elicitation, on the 2026-07-28 era. */
function formsAvailable(call: ElicitingCall): boolean {
  if (!call.modern) return false;
  const envelope = call.ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  // An empty elicitation capability means form mode (the spec's backwards-compatible reading).
  const form = elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
  return form;
}

/** The named fields of `from` that are set. */
function pick(from: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((k) => from[k] !== undefined).map((k) => [k, from[k]]));
}

function complete(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

function refusal(code: string, message: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${message} [${code}]` }],
    structuredContent: { error: { code, message, retryable: false } },
  };
}
