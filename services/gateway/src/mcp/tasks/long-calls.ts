/** How the MCP endpoint treats long calls (extract_data with a model, long polls). */
export interface LongCallOptions {
  /** How often a call whose client sent a progress token reports progress (default 5 s). */
  progressIntervalMs?: number;
}
