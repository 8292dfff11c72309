import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import type { Caller } from '../request-context.js';
import type { Tools } from '../tools/call.js';

/** A tool outside the caller's allowlist: to that caller the resource behind it does not exist. */
export class ToolNotAllowed extends Error {}

/**
 * Calls the read tool behind a resource with the caller's principal, as any tool call (so
 * its allowlist check, deadline and tool-call log apply as to any call), and returns its result.
 * A missing item, another org's item (the services answer both alike) and an id the tool's
 * input schema refuses become `notFound`; any other failure a JSON-RPC internal error with the
 * tool's own message, never an HTTP error.
 */
export async function readThroughTool(
  tools: Tools,
  tool: string,
  args: Record<string, unknown>,
  caller: Caller,
  notFound: () => Error,
): Promise<CallToolResult & { structuredContent: Record<string, unknown> }> {
  let result: CallToolResult | undefined;
  try {
    result = (await tools.call(tool, args, caller)).result;
  } catch (error) {
    // A tool outside the allowlist is refused as an unknown one (invalid params).
    if (error instanceof ProtocolError && !(error instanceof ResourceNotFoundError)) throw new ToolNotAllowed(tool);
    throw error;
  }
  if (!result) throw new ProtocolError(ProtocolErrorCode.InternalError, `${tool} asked for the client's model`);
  const structured = (result.structuredContent ?? {}) as Record<string, unknown>;
  if (result.isError) {
    const error = (structured.error ?? {}) as { code?: string; message?: string };
    const code = error.code ?? 'INTERNAL';
    if (code === 'INVALID_ARGUMENT' || code === 'INVALID_CURSOR' || code.endsWith('NOT_FOUND')) throw notFound();
    throw new ProtocolError(ProtocolErrorCode.InternalError, `${error.message ?? 'Reading failed'} [${code}]`, {
      code,
    });
  }
  return { ...result, structuredContent: structured };
}

/** The resource-not-found answer for `uri`: the same for a missing, foreign or malformed one. */
export function resourceNotFound(uri: string): ResourceNotFoundError {
  return new ResourceNotFoundError(
    uri,
    `Resource not found: ${uri}. Quarry serves quarry://plans/{planId}, quarry://plans/{planId}/report, quarry://artifacts/{artifactId}, quarry://outputs/{outputId}, quarry://extractions/{extractionId}, quarry://extraction-jobs/{jobId} and quarry://entities/{entityId} of your organization.`,
  );
}
