import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { StoreRequest } from './import-items.js';

// How `quarry import` stores documents: through the MCP endpoint, with the caller's token, like
// any client (the same validation, scopes, tool allowlist, rate limit and audit). Everything
// about the wire is here, so moving to a batch tool changes this file alone.

/** One item's outcome, in the order sent. */
export type StoreResult = { ok: true; id: string } | { ok: false; error: string };

export interface StoreSender {
  /** Who the token acts for (ping): imports are remembered per org. */
  org(): Promise<string>;
  /** Store the items; never throws for one item's refusal (that is its result). */
  store(items: readonly StoreRequest[]): Promise<StoreResult[]>;
  close(): Promise<void>;
}

/**
 * Tries per item when the server is briefly unable (rate limited, restarting, a dropped
 * connection): with delays doubling to 15 s, the last try comes more than a minute after the
 * first, past the gateway's one-minute rate-limit window.
 */
const ATTEMPTS = 10;
const TRANSIENT = /\b(429|502|503|504)\b|rate.?limit|ECONNRESET|ECONNREFUSED|socket hang up|fetch failed|terminated/i;

export async function openStoreSender(options: {
  url: string;
  token: string;
  retryDelayMs?: number;
}): Promise<StoreSender> {
  const client = new Client({ name: 'quarry-import', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(options.url), { authProvider: { token: async () => options.token } }),
  );
  const baseDelay = options.retryDelayMs ?? 500;

  async function call(name: string, args: Record<string, unknown>) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await client.callTool({ name, arguments: args });
      } catch (error) {
        const message = (error as Error).message ?? String(error);
        if (attempt >= ATTEMPTS || !TRANSIENT.test(message)) throw error;
        await new Promise((r) => setTimeout(r, Math.min(baseDelay * 2 ** (attempt - 1), 15_000)));
      }
    }
  }

  const errorText = (content: unknown) =>
    Array.isArray(content)
      ? content
          .map((c: { type?: string; text?: string }) => (c.type === 'text' ? c.text : ''))
          .join(' ')
          .trim()
      : 'refused';

  return {
    async org() {
      const result = await call('ping', {});
      if (result.isError) throw new Error(`ping: ${errorText(result.content)}`);
      const slug = (result.structuredContent as { orgSlug?: string } | undefined)?.orgSlug;
      if (!slug) throw new Error('ping: the server did not say which organization the token acts for');
      return slug;
    },
    async store(items) {
      // One store_research call per item (a batch tool would take them all in one call).
      return Promise.all(
        items.map(async (item): Promise<StoreResult> => {
          try {
            const result = await call('store_research', { ...item });
            if (result.isError) return { ok: false, error: errorText(result.content) };
            const id = (result.structuredContent as { id?: string } | undefined)?.id;
            return id ? { ok: true, id } : { ok: false, error: 'the server returned no id' };
          } catch (error) {
            return { ok: false, error: (error as Error).message ?? String(error) };
          }
        }),
      );
    },
    close: () => client.close(),
  };
}
