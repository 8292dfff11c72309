import { beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  extractionWorld,
  type ExtractionWorld,
  GOOD_ANSWER,
  INVOICE,
  INVOICE_SCHEMA,
  samplingClient,
} from './extraction-fixtures.js';
import type { TestSystem } from './shared-system.js';

// extract_data with the client's own model: a 2026-07-28 client that offers MCP sampling does the
// extraction through the input-required round trip, with one repair round; the round trip's
// signed state refuses a replay with other arguments, a tampered state, a retry without an
// answer and another token. (What the extraction service does with the model's answer:
// services/extraction/test, sampling-grounding.)

export function extractionSamplingSuite(system: () => TestSystem): void {
  describe('extract_data with the client’s model', () => {
    const world = extractionWorld(system, 'sampling');
    let gateway: ExtractionWorld['gateway'];
    let acme: ExtractionWorld['acme'];
    let counts: ExtractionWorld['counts'];
    let storedRow: ExtractionWorld['storedRow'];
    let toolLog: ExtractionWorld['toolLog'];
    let clients: ExtractionWorld['clients'];
    beforeAll(() => {
      ({ gateway, acme, counts, storedRow, toolLog, clients } = world());
    });

    describe('extract_data with the client’s own model (MCP sampling, 2026-07-28)', () => {
      it('asks the client’s model once through the input-required round trip and stores its answer', async () => {
        const sampler = await samplingClient(
          gateway.url,
          acme.token,
          () => `Here is the data:\n\`\`\`json\n${JSON.stringify(GOOD_ANSWER)}\n\`\`\``,
        );
        clients.push(sampler.client);
        const before = await counts();
        const since = new Date();
        const answer = await sampler.ok('extract_data', { sourceText: INVOICE, extractionSchema: INVOICE_SCHEMA });
        expect(answer.data).toMatchObject({
          status: 'completed',
          provider: 'sampling',
          model: 'client-model-7',
          data: GOOD_ANSWER,
        });
        expect(sampler.calls).toHaveLength(1);
        const [call] = sampler.calls;
        // The source is delimited data inside the user message, with the schema, under extract-only rules.
        expect(call!.systemPrompt).toMatch(/untrusted DATA/);
        const user = call!.messages[0]!.content.text!;
        expect(user).toMatch(/<source_document id="[\w-]+">/);
        expect(user).toContain('Invoice number: INV-2024-0042');
        expect(user).toContain('"invoiceNumber"');
        expect(call!.maxTokens).toBeGreaterThan(0);

        expect(await counts()).toEqual({ rows: before.rows + 1, events: before.events + 1 });
        expect(await storedRow(answer.data.extractionId as string)).toMatchObject({
          provider: 'sampling',
          model: 'client-model-7',
        });
        // Two tool calls in the log: the round that asked, and the retry that completed.
        expect((await toolLog('extract_data', since)).map((r) => r.outcome)).toEqual(['input_required', 'ok']);
      });

      it('gives the client’s model one repair round with the validation errors', async () => {
        const sampler = await samplingClient(gateway.url, acme.token, (_call, round) =>
          round === 1
            ? JSON.stringify({ invoiceNumber: 'INV-2024-0042', total: 'one thousand' })
            : JSON.stringify(GOOD_ANSWER),
        );
        clients.push(sampler.client);
        const answer = await sampler.ok('extract_data', { sourceText: INVOICE, extractionSchema: INVOICE_SCHEMA });
        expect(answer.data.data).toEqual(GOOD_ANSWER);
        expect(sampler.calls).toHaveLength(2);
        const repair = sampler.calls[1]!.messages;
        expect(repair.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
        expect(repair[2]!.content.text).toMatch(/does not match the schema[\s\S]*total/);
      });
    });

    describe('the sampling round trip’s state', () => {
      const args = { sourceText: INVOICE, extractionSchema: INVOICE_SCHEMA };
      const modelAnswer = {
        role: 'assistant',
        content: { type: 'text', text: JSON.stringify(GOOD_ANSWER) },
        model: 'manual-model',
        stopReason: 'endTurn',
      };
      let manual: Client;
      let first: {
        resultType?: string;
        inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
        requestState?: string;
      };

      beforeAll(async () => {
        manual = new Client(
          { name: 'manual-mrtr', version: '1.0.0' },
          {
            capabilities: { sampling: {} },
            versionNegotiation: { mode: { pin: '2026-07-28' } },
            inputRequired: { autoFulfill: false },
          },
        );
        await manual.connect(
          new StreamableHTTPClientTransport(new URL(gateway.url), { authProvider: { token: async () => acme.token } }),
        );
        clients.push(manual);
        first = (await manual.callTool(
          { name: 'extract_data', arguments: args },
          { allowInputRequired: true },
        )) as typeof first;
      });

      const retry = (params: Record<string, unknown>) =>
        manual.callTool({ name: 'extract_data', arguments: args, ...params } as never);

      it('asks with one sampling/createMessage request and a signed, opaque requestState', () => {
        expect(first.resultType).toBe('input_required');
        expect(Object.keys(first.inputRequests ?? {})).toEqual(['model_answer']);
        expect(first.inputRequests!.model_answer!.method).toBe('sampling/createMessage');
        expect(first.inputRequests!.model_answer!.params).toMatchObject({
          includeContext: 'none',
          maxTokens: expect.any(Number),
        });
        expect(first.requestState).toMatch(/^v1\./);
      });

      it('refuses a requestState replayed with other arguments, and stores nothing', async () => {
        const before = await counts();
        const result = await manual.callTool({
          name: 'extract_data',
          arguments: { ...args, schemaVersion: 2 },
          inputResponses: { model_answer: modelAnswer },
          requestState: first.requestState,
        } as never);
        expect(result.isError).toBe(true);
        expect(result.structuredContent).toMatchObject({ error: { code: 'SAMPLING_STATE_MISMATCH' } });
        expect(await counts()).toEqual(before);
      });

      it('refuses a tampered requestState as a protocol error', async () => {
        const state = first.requestState!;
        const tampered = `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`;
        await expect(retry({ inputResponses: { model_answer: modelAnswer }, requestState: tampered })).rejects.toThrow(
          /Invalid or expired requestState/,
        );
      });

      it('refuses a retry that carries the state but no answer', async () => {
        const result = await retry({ requestState: first.requestState });
        expect(result.structuredContent).toMatchObject({ error: { code: 'SAMPLING_ANSWER_MISSING' } });
      });

      it('refuses the state under another token (bound to the token that started the call)', async () => {
        const other = await gateway.admin.createToken({ orgSlug: acme.slug, email: acme.email, name: 'second device' });
        const stranger = new Client(
          { name: 'stranger', version: '1.0.0' },
          {
            capabilities: { sampling: {} },
            versionNegotiation: { mode: { pin: '2026-07-28' } },
            inputRequired: { autoFulfill: false },
          },
        );
        await stranger.connect(
          new StreamableHTTPClientTransport(new URL(gateway.url), { authProvider: { token: async () => other.token } }),
        );
        clients.push(stranger);
        await expect(
          stranger.callTool({
            name: 'extract_data',
            arguments: args,
            inputResponses: { model_answer: modelAnswer },
            requestState: first.requestState,
          } as never),
        ).rejects.toThrow(/Invalid or expired requestState/);
      });

      it('completes with the answer and the untouched state', async () => {
        const result = await retry({ inputResponses: { model_answer: modelAnswer }, requestState: first.requestState });
        expect(result.structuredContent).toMatchObject({
          status: 'completed',
          provider: 'sampling',
          model: 'manual-model',
          data: GOOD_ANSWER,
        });
      });
    });
  });
}
