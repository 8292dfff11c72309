import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../identity/schema.js';
import { type AppOrg, principalOf } from '../shell/app-user.js';
import type { WebShell } from '../shell/web-shell.js';

/** What a page's tool call came to: the structured result (and the whole MCP result), or the tool's refusal. */
export type ToolAnswer<T> =
  { ok: true; value: T; content: readonly unknown[] } | { ok: false; code: string; message: string };

/**
 * Calls a tool for the person viewing the page, exactly as a client's call: the same validation,
 * services, row-level security, audit and tool-call log (the browser session's id stands for the
 * token). `principal` defaults to the person in the org they are working in.
 */
export async function callTool<T>(
  shell: WebShell,
  request: FastifyRequest,
  tool: string,
  args: Record<string, unknown>,
  principal: Principal = shell.viewer(request).principal,
): Promise<ToolAnswer<T>> {
  const { result } = await shell.tools.call(tool, args, { principal, requestId: String(request.id) });
  if (!result) return { ok: false, code: 'INTERNAL', message: `${tool} asked for a model the app does not have.` };
  const structured = (result.structuredContent ?? {}) as Record<string, unknown>;
  if (result.isError) {
    const error = (structured.error ?? {}) as { code?: string; message?: string };
    return { ok: false, code: error.code ?? 'INTERNAL', message: error.message ?? `${tool} failed.` };
  }
  return { ok: true, value: structured as T, content: result.content };
}

/**
 * Whether a read's refusal means "nothing of yours is here": a missing id, another org's (the
 * services answer both alike) or a malformed one. Every page answers these with the same 404.
 */
export const isMissing = (answer: { code: string }): boolean =>
  answer.code.endsWith('NOT_FOUND') || answer.code === 'INVALID_ARGUMENT' || answer.code === 'INVALID_CURSOR';

/** The person's orgs, the one they work in first: a permalink opens in whichever of them holds the item. */
function orgsToTry(shell: WebShell, request: FastifyRequest): AppOrg[] {
  const viewer = shell.viewer(request);
  return [viewer.org, ...viewer.user.orgs.filter((org) => org.id !== viewer.org.id)];
}

/**
 * Reads an item with `tool` in each of the person's orgs until one holds it: the answer and the
 * principal that read it (later calls about the item use it), or the last refusal.
 */
export async function readInAnyOrg<T>(
  shell: WebShell,
  request: FastifyRequest,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ answer: ToolAnswer<T>; principal: Principal }> {
  const user = shell.viewer(request).user;
  let last: { answer: ToolAnswer<T>; principal: Principal } | undefined;
  for (const org of orgsToTry(shell, request)) {
    const principal = principalOf(user, org);
    const answer = await callTool<T>(shell, request, tool, args, principal);
    last = { answer, principal };
    if (answer.ok || !isMissing(answer)) return last;
  }
  return last!;
}

/** An id as the pages accept it: a UUID (anything else is the same 404 as a missing item). */
export const isId = (value: string): boolean =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

const UNAVAILABLE_CODES = new Set([
  'INTERNAL',
  'SERVICE_UNAVAILABLE',
  'DEADLINE_EXCEEDED',
  'CANCELLED',
  'UNIMPLEMENTED',
  'RESOURCE_EXHAUSTED',
  'CONFLICT',
]);

/** Whether a refusal is Quarry failing (try again later) rather than the tool refusing what was asked. */
export const isUnavailable = (answer: { code: string }): boolean => UNAVAILABLE_CODES.has(answer.code);
