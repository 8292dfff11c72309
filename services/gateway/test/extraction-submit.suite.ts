import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { sql, type Kysely } from 'kysely';
import { HANDLE_KEY } from './extraction-fixtures.js';
import { connectClient, type Era } from './official-client.js';
import { suiteOrg, type TestSystem } from './shared-system.js';
import { expectToolError, sleep, toolsOf, type CallTool, type ToolAnswer } from './tool-answers.js';

// Extraction by the client's own model, through the whole system with no model on the server, in
// both protocol eras: extract_data answers with a signed handle, the schema, the source and
// instructions; the client's model fills the data and calls submit_extraction; Quarry validates,
// grounds, scores, stores (row + content.created → searchable) once per handle. A handle that is
// not the caller's own live one is refused exactly like a missing one, and nothing is stored.

export function extractionSubmitSuite(system: () => TestSystem): void {
  describe('extraction by the client’s own model, submitted', () => {
    const ABSTRACT = [
      'Nightly melatonin for delirium prevention after hip fracture surgery: the MELIDA trial',
      'Sofia Marchetti, Jonas Lindqvist and Hana Okafor. Published in The Lancet Healthy Longevity, 2023.',
      'We randomly assigned 842 patients aged 70 years or older to melatonin 3 mg or placebo for 14 nights.',
      'Delirium occurred in 18.2% of the melatonin group and 24.7% of the placebo group (P = .03).',
      'Trial registration: NCT04416951. Correspondence: s.marchetti@unibo.example',
    ].join('\n');

    const SCHEMA = {
      type: 'object',
      properties: {
        title: { type: 'string' },
        journal: { type: 'string' },
        year: { type: 'integer' },
        sampleSize: { type: 'integer' },
        doseMg: { type: 'number' },
        pValue: { type: 'number' },
        registration: { type: 'string' },
        contactEmail: { type: 'string' },
      },
      required: ['title', 'sampleSize', 'registration'],
      additionalProperties: false,
    };

    const RIGHT = {
      title: 'Nightly melatonin for delirium prevention after hip fracture surgery: the MELIDA trial',
      journal: 'The Lancet Healthy Longevity',
      year: 2023,
      sampleSize: 842,
      doseMg: 3,
      pValue: 0.03,
      registration: 'NCT04416951',
      contactEmail: 's.marchetti@unibo.example',
    };

    let gateway: TestSystem;
    let admin: Kysely<unknown>;
    const clients: Client[] = [];
    const tools: Record<Era, { call: CallTool; ok: CallTool }> = {} as never;
    let rival: { call: CallTool; ok: CallTool };
    let secondToken: { call: CallTool; ok: CallTool };

    async function counts(): Promise<{ rows: number; events: number }> {
      const { rows } = await sql<{ rows: number; events: number }>`
    select (select count(*)::int from artifact.extraction_results) as rows,
           (select count(*)::int from events.outbox where payload->>'sourceTable' = 'extraction_result') as events
  `.execute(admin);
      return rows[0]!;
    }

    beforeAll(async () => {
      gateway = system();
      admin = gateway.database.admin as Kysely<unknown>;
      const acme = await suiteOrg(gateway, 'submit', 'acme');
      for (const era of ['legacy', 'modern'] as const) {
        const client = await connectClient(gateway.url, acme.token, era);
        clients.push(client);
        tools[era] = toolsOf(client);
      }
      const eve = await suiteOrg(gateway, 'submit', 'rival');
      const second = await gateway.admin.createToken({ orgSlug: acme.slug, email: acme.email, name: 'laptop' });
      const rivalClient = await connectClient(gateway.url, eve.token, 'modern');
      const secondClient = await connectClient(gateway.url, second.token, 'legacy');
      clients.push(rivalClient, secondClient);
      rival = toolsOf(rivalClient);
      secondToken = toolsOf(secondClient);
    }, 60_000);

    afterAll(async () => {
      for (const client of clients) await client.close();
    });

    const askFor = (t: { ok: CallTool }) => t.ok('extract_data', { sourceText: ABSTRACT, extractionSchema: SCHEMA });
    const submitWith = (t: { call: CallTool }, handle: string, data: Record<string, unknown>) =>
      t.call('submit_extraction', { handle, data, extractionSchema: SCHEMA, sourceText: ABSTRACT });

    describe.each(['legacy', 'modern'] as const)(
      'extract_data → submit_extraction (%s client, no server model)',
      (era) => {
        it('hands out a handle, then stores the client model’s correct answer once, high confidence, searchable', async () => {
          const t = tools[era];
          const before = await counts();
          const asked = await askFor(t);
          expect(asked.data).toMatchObject({
            status: 'awaiting_submission',
            handleStatus: 'issued',
            provider: 'client',
            extractionSchema: SCHEMA,
            sourceText: ABSTRACT,
          });
          expect(asked.data.instructions).toMatch(/submit_extraction/);
          expect(await counts()).toEqual(before);

          const answer = await submitWith(t, asked.data.handle as string, RIGHT);
          expect(answer.isError).toBe(false);
          expect(answer.data).toMatchObject({
            status: 'completed',
            handleStatus: 'accepted',
            provider: 'client',
            data: RIGHT,
          });
          expect(answer.data.overallConfidence).toBeGreaterThanOrEqual(0.9);
          for (const value of Object.keys(RIGHT))
            expect(answer.data.fieldConfidences[`/${value}`]).toBeGreaterThanOrEqual(0.85);
          expect(await counts()).toEqual({ rows: before.rows + 1, events: before.events + 1 });

          const again = await submitWith(t, asked.data.handle as string, RIGHT);
          expect(again.data).toMatchObject({
            extractionId: answer.data.extractionId,
            handleStatus: 'already_accepted',
          });
          expect(await counts()).toEqual({ rows: before.rows + 1, events: before.events + 1 });

          let found: ToolAnswer | undefined;
          const hits = (a: ToolAnswer | undefined) => (a?.data.results ?? []) as Array<{ sourceId: string }>;
          for (let i = 0; i < 100 && !hits(found).some((r) => r.sourceId === answer.data.extractionId); i++) {
            if (i > 0) await sleep(100);
            found = await t.ok('search_sources', { query: 'NCT04416951 melatonin', sourceTable: 'extraction_result' });
          }
          expect(hits(found).map((r) => r.sourceId)).toContain(answer.data.extractionId);
        });

        it('scores planted wrong values low, and the right ones high', async () => {
          const t = tools[era];
          const asked = await askFor(t);
          const answer = await submitWith(t, asked.data.handle as string, {
            ...RIGHT,
            sampleSize: 824, // altered digits
            registration: 'NCT04416915', // altered identifier
            contactEmail: 'info@melida.example', // invented
          });
          for (const path of ['/sampleSize', '/registration', '/contactEmail'])
            expect(answer.data.fieldConfidences[path]).toBeLessThanOrEqual(0.1);
          for (const path of ['/title', '/journal', '/pValue'])
            expect(answer.data.fieldConfidences[path]).toBeGreaterThanOrEqual(0.85);
          expect(answer.data.overallConfidence).toBeLessThan(0.5);
        });

        it('refuses a schema-invalid answer with the fields named, and stores nothing', async () => {
          const t = tools[era];
          const asked = await askFor(t);
          const before = await counts();
          expectToolError(
            await submitWith(t, asked.data.handle as string, { title: RIGHT.title, sampleSize: '842 patients' }),
            'EXTRACTION_INVALID',
            /\/sampleSize/,
            /\/registration/,
          );
          expect(await counts()).toEqual(before);
        });

        it('refuses a handle of another org or token, a tampered, expired or made-up one, exactly like a missing one', async () => {
          const t = tools[era];
          const handle = (await askFor(t)).data.handle as string;
          const [prefix, body] = handle.split('.');
          const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
          const sign = (c: Record<string, unknown>) => {
            const signed = `${prefix}.${Buffer.from(JSON.stringify(c)).toString('base64url')}`;
            return `${signed}.${createHmac('sha256', HANDLE_KEY).update(signed).digest('base64url')}`;
          };
          expect(sign(claims)).toBe(handle); // the forgery below is signed exactly as Quarry signs
          const expired = sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 1 });
          const tampered = `${prefix}.${Buffer.from(JSON.stringify({ ...claims, schemaVersion: 9 })).toString('base64url')}.${handle.split('.')[2]}`;
          const missing = await submitWith(t, 'qx1.e30.AAAA', RIGHT);
          expectToolError(missing, 'HANDLE_NOT_FOUND');
          const before = await counts();
          for (const attempt of [
            await submitWith(rival, handle, RIGHT),
            await submitWith(secondToken, handle, RIGHT),
            await submitWith(t, tampered, RIGHT),
            await submitWith(t, expired, RIGHT),
          ]) {
            expect(attempt).toEqual(missing);
          }
          expect(await counts()).toEqual(before);
        });
      },
    );
  });
}
