import { readFile } from 'node:fs/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { DocumentUpload, StoreRequest } from './import-items.js';

// How `quarry import` stores documents: through the MCP endpoint, with the caller's token, like
// any client (the same validation, scopes, tool allowlist, rate limit and audit). Everything
// about the wire is here: one store_research_batch call per batch, or, for a token whose tool
// allowlist does not include it, one store_research call per item.

/** One item's outcome, in the order sent. */
export type StoreResult = { ok: true; id: string } | { ok: false; error: string };

export interface StoreSender {
  /** Who the token acts for (ping): imports are remembered per org. */
  org(): Promise<string>;
  /**
   * Store the items (at most 100, one call); one result per item, in order. Never throws: a
   * refused item is its own result, and a call that failed as a whole fails each of its items.
   */
  store(items: readonly StoreRequest[]): Promise<StoreResult[]>;
  /**
   * Send a file as a source document, whole, to the gateway's upload (`POST /documents` beside the
   * MCP endpoint), which imports it like import_document. Never throws: a refusal is the result.
   */
  upload(document: DocumentUpload): Promise<StoreResult>;
  close(): Promise<void>;
}

/**
 * Tries per call when the server is briefly unable (rate limited, restarting, a dropped
 * connection): with delays doubling to 15 s, the last try comes more than a minute after the
 * first, past the gateway's one-minute rate-limit window. Only a call that failed as a whole is
 * tried again, never one that returned per-item results.
 */
const ATTEMPTS = 10;
const TRANSIENT = /\b(429|502|503|504)\b|rate.?limit|ECONNRESET|ECONNREFUSED|socket hang up|fetch failed|terminated/i;
const TRANSIENT_STATUS = new Set([429, 502, 503, 504]);
/** The SDK's HTTP errors carry the status apart from the message (which holds only the body). */
const transient = (error: unknown) =>
  TRANSIENT_STATUS.has((error as { status?: unknown }).status as number) ||
  TRANSIENT.test((error as Error).message ?? String(error));
/** Tool errors of a whole call that mean nothing was stored and a retry may succeed. */
const RETRYABLE_CODES = new Set(['SERVICE_UNAVAILABLE', 'RESOURCE_EXHAUSTED', 'CONFLICT', 'RATE_LIMITED']);

/** One item's result in store_research_batch's reply. */
interface BatchItemResult {
  id?: string;
  errorCode?: string;
  error?: string;
}

export async function openStoreSender(options: {
  url: string;
  token: string;
  retryDelayMs?: number;
  /** The HTTP client (default: the global fetch). */
  fetch?: typeof fetch;
}): Promise<StoreSender> {
  const client = new Client({ name: 'quarry-import', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(options.url), {
      authProvider: { token: async () => options.token },
      fetch: options.fetch,
    }),
  );
  const baseDelay = options.retryDelayMs ?? 500;

  const retryable = (result: { isError?: boolean; structuredContent?: unknown }) =>
    result.isError === true &&
    RETRYABLE_CODES.has((result.structuredContent as { error?: { code?: string } } | undefined)?.error?.code ?? '');

  async function call(name: string, args: Record<string, unknown>) {
    for (let attempt = 1; ; attempt++) {
      const wait = () => new Promise((r) => setTimeout(r, Math.min(baseDelay * 2 ** (attempt - 1), 15_000)));
      try {
        const result = await client.callTool({ name, arguments: args });
        if (attempt >= ATTEMPTS || !retryable(result)) return result;
      } catch (error) {
        if (attempt >= ATTEMPTS || !transient(error)) throw error;
      }
      await wait();
    }
  }

  // A token's tools/list names only the tools its allowlist and scopes let it call.
  const tools = await client.listTools();
  const batchTool = tools.tools.some((tool) => tool.name === 'store_research_batch');

  const errorText = (content: unknown) =>
    Array.isArray(content)
      ? content
          .map((c: { type?: string; text?: string }) => (c.type === 'text' ? c.text : ''))
          .join(' ')
          .trim()
      : 'refused';

  async function storeOne(item: StoreRequest): Promise<StoreResult> {
    try {
      const result = await call('store_research', { ...item });
      if (result.isError) return { ok: false, error: errorText(result.content) };
      const id = (result.structuredContent as { id?: string } | undefined)?.id;
      return id ? { ok: true, id } : { ok: false, error: 'the server returned no id' };
    } catch (error) {
      return { ok: false, error: (error as Error).message ?? String(error) };
    }
  }

  return {
    async org() {
      const result = await call('ping', {});
      if (result.isError) throw new Error(`ping: ${errorText(result.content)}`);
      const slug = (result.structuredContent as { orgSlug?: string } | undefined)?.orgSlug;
      if (!slug) throw new Error('ping: the server did not say which organization the token acts for');
      return slug;
    },
    async store(items) {
      const failAll = (error: string): StoreResult[] => items.map(() => ({ ok: false, error }));
      if (!batchTool) {
        // One call after another: the calls in flight stay as many as the import's batches.
        const results: StoreResult[] = [];
        for (const item of items) results.push(await storeOne(item));
        return results;
      }
      try {
        const result = await call('store_research_batch', { artifacts: items });
        if (result.isError) return failAll(errorText(result.content));
        const results = (result.structuredContent as { results?: BatchItemResult[] } | undefined)?.results ?? [];
        if (results.length !== items.length)
          return failAll(`the server returned ${results.length} result(s) for ${items.length} item(s)`);
        return results.map((r): StoreResult => {
          if (r.id) return { ok: true, id: r.id };
          return { ok: false, error: r.error ? `${r.error}${r.errorCode ? ` [${r.errorCode}]` : ''}` : 'refused' };
        });
      } catch (error) {
        return failAll((error as Error).message ?? String(error));
      }
    },
    async upload(document) {
      const http = options.fetch ?? fetch;
      const target = uploadUrl(options.url, document);
      try {
        const body = await readFile(document.path);
        for (let attempt = 1; ; attempt++) {
          const response = await http(target, {
            method: 'POST',
            headers: { authorization: `Bearer ${options.token}`, 'content-type': document.mediaType },
            body,
          }).catch((error: unknown) => {
            if (attempt >= ATTEMPTS || !transient(error)) throw error;
            return undefined;
          });
          if (response && !(TRANSIENT_STATUS.has(response.status) && attempt < ATTEMPTS)) {
            const answer = (await response.json().catch(() => ({}))) as UploadAnswer;
            if (response.ok && answer.id) return { ok: true, id: answer.id };
            return { ok: false, error: uploadError(response.status, answer) };
          }
          await new Promise((r) => setTimeout(r, Math.min(baseDelay * 2 ** (attempt - 1), 15_000)));
        }
      } catch (error) {
        return { ok: false, error: (error as Error).message ?? String(error) };
      }
    },
    close: () => client.close(),
  };
}

/** What the upload answers: import_document's result, a tool error, or an HTTP-level JSON-RPC error. */
interface UploadAnswer {
  id?: string;
  error?: { code?: string | number; message?: string };
}

function uploadError(status: number, answer: UploadAnswer): string {
  const { code, message } = answer.error ?? {};
  return `${message ?? `the upload was refused (HTTP ${status})`}${typeof code === 'string' ? ` [${code}]` : ''}`;
}

/** The upload beside the MCP endpoint (…/mcp → …/documents), naming the file and the plan. */
function uploadUrl(mcpUrl: string, document: DocumentUpload): URL {
  const url = new URL(mcpUrl);
  url.pathname = `${url.pathname.replace(/\/mcp\/?$/, '')}/documents`;
  url.search = '';
  url.searchParams.set('name', document.fileName);
  if (document.planId) url.searchParams.set('planId', document.planId);
  return url;
}
