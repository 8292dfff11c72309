import type { ServerContext } from '@modelcontextprotocol/server';
import { type LongCall, longCallOf } from '../tools/catalogue.js';
import type { CallMode, CallModeDeps } from './call-mode.js';

/** How often a long call reports progress when its client sent a progress token (default 5 s). */
const DEFAULT_PROGRESS_INTERVAL_MS = 5_000;

type ProgressToken = string | number;

export type ProgressParams = {
  progressToken: ProgressToken;
  progress: number;
  total?: number;
  message: string;
};

/**
 * The progress a long call reports after `elapsedMs`, or undefined when it would not move past
 * `last` (the protocol wants every notification's progress larger than the one before). A long
 * poll knows its total (the seconds it was asked to wait); a model call does not.
 */
export function progressAt(
  token: ProgressToken,
  call: LongCall,
  elapsedMs: number,
  last: number,
): ProgressParams | undefined {
  const seconds = Math.floor(elapsedMs / 100) / 10;
  if (call.kind === 'wait') {
    const progress = Math.min(seconds, call.seconds);
    if (progress <= last) return undefined;
    return {
      progressToken: token,
      progress,
      total: call.seconds,
      message: `Waiting for a change: ${Math.round(progress)} of ${call.seconds} s.`,
    };
  }
  if (seconds <= last) return undefined;
  return {
    progressToken: token,
    progress: seconds,
    message: `The model is working: ${Math.round(seconds)} s so far.`,
  };
}

/**
 * Runs `work` and, while it runs, sends `notifications/progress` every `intervalMs` on the
 * request's own stream — when the client sent a progress token and the call is a long one.
 * Otherwise it only runs `work`. A failed send (the client went away) is ignored: the call's
 * own abort signal is what stops the work.
 */
export async function withProgress<T>(
  ctx: ServerContext,
  call: LongCall | undefined,
  intervalMs: number | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const token = ctx.mcpReq._meta?.progressToken;
  if (call === undefined || (typeof token !== 'string' && typeof token !== 'number')) return work();
  const started = performance.now();
  let last = 0;
  const timer = setInterval(() => {
    const params = progressAt(token, call, performance.now() - started, last);
    if (!params) return;
    last = params.progress;
    ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => undefined);
  }, intervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * A long call (a long poll asked to wait, a tool that runs a model) whose client sent a progress
 * token: `notifications/progress` every few seconds on the request's stream while it runs.
 */
export function progressMode({ tools, progressIntervalMs }: CallModeDeps): CallMode {
  return {
    name: 'progress',
    appliesTo: (call) => call.progressToken !== undefined && longCallOf(call.tool, call.args) !== undefined,
    async run({ tool, args, caller, ctx }) {
      const long = longCallOf(tool, args);
      const outcome = await withProgress(ctx, long, progressIntervalMs, () => tools.call(tool.name, args, caller));
      return { result: outcome.result! };
    },
  };
}
