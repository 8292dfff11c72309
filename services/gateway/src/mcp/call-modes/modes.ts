import { boundedMode } from './bounded.js';
import type { CallMode, CallModeDeps, CallShape } from './call-mode.js';
import { elicitationMode } from './elicitation.js';
import { plainMode } from './plain.js';
import { progressMode } from './progress.js';
import { samplingMode } from './sampling.js';
import { taskMode } from './task.js';

/**
 * The ways a tool call can run, in the order they are asked: the first whose `appliesTo` holds
 * runs the call, and `plain` always applies. The endpoint runs this list and the fast path
 * answers only calls the list gives to `plain`. A new way to run a call is one file and one line here.
 */
export function createCallModes(deps: CallModeDeps): readonly CallMode[] {
  return [
    elicitationMode(deps),
    samplingMode(deps),
    taskMode(deps),
    boundedMode(deps),
    progressMode(deps),
    plainMode(deps),
  ];
}

/** The mode that runs a call. */
export function modeFor(modes: readonly CallMode[], call: CallShape): CallMode {
  return modes.find((mode) => mode.appliesTo(call)) ?? modes.at(-1)!;
}
