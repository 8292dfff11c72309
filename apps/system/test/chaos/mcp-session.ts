import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

// One MCP client of the chaos load, as a real client behaves when the server goes away: a call
// cut off (connection refused or reset, the session gone with a killed gateway) closes the
// client, and the next call connects again.

export type Answer =
  | { ok: true; data: Record<string, unknown> }
  /** `code`: the tool error's code; absent when the call got no answer at all (connection cut). */
  | { ok: false; code?: string; message: string };

export class McpSession {
  private client: Client | undefined;

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly name: string,
  ) {}

  async call(name: string, args: Record<string, unknown>): Promise<Answer> {
    try {
      const client = await this.connected();
      const result = await client.callTool({ name, arguments: args });
      const data = (result.structuredContent ?? {}) as Record<string, unknown>;
      if (!result.isError) return { ok: true, data };
      const error = (data.error ?? {}) as { code?: string; message?: string };
      return { ok: false, code: error.code ?? 'TOOL_ERROR', message: error.message ?? JSON.stringify(result.content) };
    } catch (error) {
      await this.close();
      const message = (error as Error).message;
      // Refused before the call was read (HTTP 429): an answer, not a cut connection.
      return /\b429\b|rate limit/i.test(message)
        ? { ok: false, code: 'RATE_LIMITED', message }
        : { ok: false, message };
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private async connected(): Promise<Client> {
    if (this.client) return this.client;
    const client = new Client(
      { name: this.name, version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${this.url}/mcp`), {
        authProvider: { token: async () => this.token },
      }),
    );
    this.client = client;
    return client;
  }
}
