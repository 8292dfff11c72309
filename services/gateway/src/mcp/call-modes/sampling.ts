import { type CallToolResult, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { gatewayToolError } from '../../errors.js';
import { canSample, longCallOf } from '../tools/catalogue.js';
import type { CallerSampling, SamplingAsk } from '../tools/call.js';
import type { CallMode, CallModeDeps, ModeCall } from './call-mode.js';
import { withProgress } from './progress.js';

/** What a sampling round trip carries through the client, signed. */
interface SamplingState {
  tool: string;
  /** SHA-256 of the call's arguments (canonical JSON): the retry must repeat them. */
  args: string;
  /** The service's continuation (base64). */
  continuation: string;
}

/** The key of the one embedded request a sampling round trip carries. */
const SAMPLING_INPUT_KEY = 'model_answer';

/**
 * MCP sampling (ADR 0011): a tool whose service can ask for the client's own model, called by a
 * 2026-07-28 client that declares sampling, or the retry carrying its model's answer. When the
 * service asks, the call is answered with an input-required result carrying one
 * `sampling/createMessage` request and a signed `requestState` (bound to the token, the tool and
 * its arguments); the client runs its model and retries the same call, and the answer and the
 * service's continuation go back to the service. A 2025-era client on this stateless endpoint is
 * never asked: it could only be pushed a request that hangs until it times out.
 */
export function samplingMode({ tools, mintState, progressIntervalMs }: CallModeDeps): CallMode {
  return {
    name: 'sampling',
    appliesTo: (call) =>
      call.era === 'modern' && canSample(call.tool) && (call.retry || Boolean(call.capabilities?.sampling)),
    async run(call) {
      const sampling = samplingOf(call);
      if ('refused' in sampling) return { result: sampling.refused };
      const { tool, args, caller, ctx } = call;
      const outcome = await withProgress(ctx, longCallOf(tool, args), progressIntervalMs, () =>
        tools.call(tool.name, args, caller, sampling),
      );
      if (!outcome.sampling) return { result: outcome.result };
      const state: SamplingState = {
        tool: tool.name,
        args: call.argsHash(),
        continuation: outcome.sampling.continuation,
      };
      return {
        answer: inputRequired({
          inputRequests: { [SAMPLING_INPUT_KEY]: inputRequired.createMessage(createMessageParams(outcome.sampling)) },
          requestState: await mintState(state, ctx, 'model'),
        }),
      };
    },
  };
}

/** Can the client be asked, and what did it answer? A retry of another call, or without the answer, is refused. */
function samplingOf(call: ModeCall): CallerSampling | { refused: CallToolResult } {
  const available = Boolean(call.capabilities?.sampling);
  // Verified by the codec before the handler runs (signature, expiry, token binding).
  const state = call.ctx.mcpReq.requestState<SamplingState>();
  if (!state) return { available };
  if (state.tool !== call.tool.name || state.args !== call.argsHash()) {
    return {
      refused: gatewayToolError(
        'SAMPLING_STATE_MISMATCH',
        'This retry carries the requestState of a different call (another tool or other arguments). Call the tool again without it.',
      ),
    };
  }
  const response = inputResponse(call.ctx.mcpReq.inputResponses, SAMPLING_INPUT_KEY);
  if (response.kind !== 'sampling') {
    return {
      refused: gatewayToolError(
        'SAMPLING_ANSWER_MISSING',
        `The retry carries no answer to the sampling request "${SAMPLING_INPUT_KEY}". Answer it with your model, or call the tool again without requestState.`,
      ),
    };
  }
  const blocks = Array.isArray(response.result.content) ? response.result.content : [response.result.content];
  const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  return {
    available,
    answer: { text, model: String(response.result.model ?? ''), stopReason: String(response.result.stopReason ?? '') },
    continuation: state.continuation,
  };
}

function createMessageParams(ask: SamplingAsk) {
  return {
    systemPrompt: ask.systemPrompt,
    messages: ask.messages.map((m) => ({ role: m.role, content: { type: 'text' as const, text: m.text } })),
    maxTokens: ask.maxTokens,
    ...(ask.temperature !== undefined ? { temperature: ask.temperature } : {}),
    // Extraction needs no context from other servers, and a careful model more than a fast one.
    includeContext: 'none' as const,
    modelPreferences: { intelligencePriority: 0.8, speedPriority: 0.3, costPriority: 0.3 },
  };
}
