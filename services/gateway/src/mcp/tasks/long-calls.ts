import type { TaskRunner } from './task-runner.js';

/** How the MCP endpoint treats long calls (extract_data with a model, long polls). */
export interface LongCallOptions {
  /** How often a call whose client sent a progress token reports progress (default 5 s). */
  progressIntervalMs?: number;
  /** Runs tool calls that run a model as MCP tasks for 2026-07-28 clients that declare the extension. */
  tasks?: TaskRunner;
}
