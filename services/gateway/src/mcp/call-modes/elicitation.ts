import { type CallToolResult, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import type { ToolElicitation } from '@quarry/contracts';
import { gatewayToolError, unknownTool } from '../../errors.js';
import type { Caller } from '../request-context.js';
import type { Tools } from '../tools/call.js';
import type { CallMode, CallModeDeps, CallShape, ModeAnswer, ModeCall } from './call-mode.js';
import { checkAnswer, formRequest } from './elicitation-form.js';

/**
 * What an elicitation round trip carries through the client, signed (bound to the method and the
 * token): the call it belongs to, and the reply of the rpc that already ran, so the retry never
 * runs it again and needs no replica's memory.
 */
interface ElicitationState {
  tool: string;
  /** SHA-256 of the call's arguments (canonical JSON): the retry must repeat them. */
  args: string;
  /** The structured reply of the first round's rpc. */
  first: Record<string, unknown>;
}

/** The key of the one embedded request an elicitation round trip carries. */
const ELICITATION_INPUT_KEY = 'user_answer';

/**
 * Calls of a tool with `(quarry.mcp.v1.elicit)` (ADR 0033), in both eras. First round: the tool's
 * rpc runs as for any client (e.g. the review is requested and audited); when the client can show
 * a form, the reply is held in the signed state and the call is answered with one form. Second
 * round (the retry with the user's answer): the answer is checked against the form and recorded
 * through the answer tool's rpc, exactly as if the model had called that tool; a declined or
 * dismissed form records nothing. Clients that cannot show a form get the reply as it is.
 */
export function elicitationMode({ tools, mintState }: CallModeDeps): CallMode {
  // A token that may not record the answer is never shown the form: it gets the reply as it is.
  const visible = (caller: Caller) => new Set(tools.catalogue.listFor(caller.principal).map((t) => t.name));

  async function firstRound(call: ModeCall, spec: ToolElicitation): Promise<ModeAnswer> {
    const result = (await tools.call(call.tool.name, call.args, call.caller)).result!;
    if (
      !result.structuredContent ||
      result.isError ||
      !formsAvailable(call) ||
      !visible(call.caller).has(spec.answerTool)
    )
      return { result };
    const state: ElicitationState = {
      tool: call.tool.name,
      args: call.argsHash(),
      first: result.structuredContent as Record<string, unknown>,
    };
    return {
      answer: inputRequired({
        inputRequests: { [ELICITATION_INPUT_KEY]: inputRequired.elicit(formRequest(spec, call.args)) },
        requestState: await mintState(state, call.ctx, 'person'),
      }),
    };
  }

  async function secondRound(call: ModeCall, spec: ToolElicitation, state: Partial<ElicitationState>) {
    // Verified by the codec before the handler runs (signature, expiry, method and token).
    if (!state.first || state.tool !== call.tool.name || state.args !== call.argsHash()) {
      return gatewayToolError(
        'ELICITATION_STATE_MISMATCH',
        'This retry carries the requestState of a different call (another tool or other arguments). Call the tool again without it.',
      );
    }
    // The rpc ran in the first round under this token; it must still be allowed to (an allowlist
    // may have been narrowed since), and so must the answer tool.
    const allowed = visible(call.caller);
    if (!allowed.has(call.tool.name)) throw unknownTool(call.tool.name);
    const response = inputResponse(call.ctx.mcpReq.inputResponses, ELICITATION_INPUT_KEY);
    if (response.kind !== 'elicit') {
      return gatewayToolError(
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
      return gatewayToolError(
        'INVALID_ANSWER',
        `The form's answer cannot be recorded: ${checked.problem}. Nothing was recorded; the call's first round stands. Ask the user again, or record their answer with ${spec.answerTool}.`,
      );
    }
    if (!allowed.has(spec.answerTool))
      return gatewayToolError(
        'ANSWER_TOOL_UNAVAILABLE',
        `This token may not call ${spec.answerTool}: nothing was recorded.`,
      );
    return recordAnswer(tools, call, spec, first, checked.answer);
  }

  return {
    name: 'elicitation',
    appliesTo: (call: CallShape) => call.tool.elicitation !== undefined,
    async run(call) {
      const spec = call.tool.elicitation!;
      const state = call.ctx.mcpReq.requestState<Partial<ElicitationState>>();
      return state ? { result: await secondRound(call, spec, state) } : firstRound(call, spec);
    },
  };
}

/** Records the accepted answer through the answer tool, for exactly what the first round opened. */
async function recordAnswer(
  tools: Tools,
  call: ModeCall,
  spec: ToolElicitation,
  first: Record<string, unknown>,
  answer: Record<string, unknown>,
): Promise<CallToolResult> {
  const carried = { ...pick(call.args, spec.carry), ...pick(first, spec.carryReply) };
  const recorded = (await tools.call(spec.answerTool, { ...carried, ...answer }, call.caller)).result!;
  // The answer tool refused (e.g. the plan moved on meanwhile): its error, as the model would have had it.
  if (recorded.isError || !recorded.structuredContent) return recorded;
  // The fields both replies share say how things stand now, after the answer.
  const after = recorded.structuredContent as Record<string, unknown>;
  return complete({
    ...first,
    ...pick(after, Object.keys(first)),
    [spec.outcomeField]: { action: 'accept', answer, next: spec.onAccept },
  });
}

/** The client declared form elicitation, on the 2026-07-28 era (the only one where the server can ask on a stateless endpoint). */
function formsAvailable(call: CallShape): boolean {
  if (call.era !== 'modern') return false;
  const elicitation = call.capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  // An empty elicitation capability means form mode (the spec's backwards-compatible reading).
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/** The named fields of `from` that are set. */
function pick(from: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((k) => from[k] !== undefined).map((k) => [k, from[k]]));
}

function complete(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}
