import type { ModelUsage } from './errors.js';
import type { ProviderChoice } from './selection.js';
import type { TokenUsage } from './types.js';

/** Provider, model and tokens of the model answers a call received (summed), for the tool-call log. */
export class UsageMeter {
  total: ModelUsage | undefined;
  /** Whether the total was added to the org's daily model spend (it is, once). */
  counted = false;

  record(provider: ProviderChoice, model: string, usage?: TokenUsage): void {
    this.total = {
      provider,
      model,
      inputTokens: (this.total?.inputTokens ?? 0) + (usage?.inputTokens ?? 0),
      outputTokens: (this.total?.outputTokens ?? 0) + (usage?.outputTokens ?? 0),
    };
  }
}
