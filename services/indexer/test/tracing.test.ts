import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { withTenant } from '@quarry/db';
import { appendContentEvent, eventsSchemas, grantEventConsumer } from '@quarry/events';
import { createLogger, InMemorySpanExporter, startTelemetry, type Telemetry } from '@quarry/telemetry';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { indexerSchemas, startIndexer } from '../src/index.js';
import { openTestBackends, prose, waitUntil, type TestBackends } from './helpers.js';

// The trace of a call that stored content goes on into the indexer: the outbox keeps the call's
// traceparent with the event, and the indexer's span for that event joins the same trace. A
// batch is one root span linking every producer; an idle indexer makes none.

const logger = createLogger({ service: 'indexer-tracing-test', level: 'silent' });
const exporter = new InMemorySpanExporter();
let telemetry: Telemetry;
let database: TestDatabase;
let backends: TestBackends;

beforeAll(async () => {
  // In process, without module instrumentation (Jest cannot load hooks): spans and propagation only.
  telemetry = startTelemetry({ service: 'indexer', spanExporter: exporter, instrument: false });
  database = await createTestDatabase({ schemas: [...eventsSchemas, ...indexerSchemas] });
  await grantEventConsumer(database.admin, database.appRole);
  backends = await openTestBackends();
});
afterAll(async () => {
  await backends?.close();
  if (backends) rmSync(backends.dir, { recursive: true, force: true });
  await database?.drop();
  await telemetry?.shutdown();
});

/** A store call's span: what the artifact store's rpc would be, and the traceparent it would write. */
function producerCall(): { traceId: string; spanId: string; traceparent: string } {
  const span = trace.getTracer('test').startSpan('ArtifactService/StoreResearch', { kind: SpanKind.SERVER });
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  span.end();
  return { ...span.spanContext(), traceparent: carrier.traceparent! };
}

describe('the indexer in the trace of the call that stored the content', () => {
  it('gives each event a span in its producer trace, under one batch root that links them; idle, nothing', async () => {
    const indexer = await startIndexer({
      databaseUrl: database.appUrl,
      backends,
      logger,
      host: '127.0.0.1',
      consumer: 'tracing',
      batchSize: 10,
    });
    try {
      const org = randomUUID();
      const calls = [producerCall(), producerCall()];
      const sources: string[] = [];
      await withTenant(database.app, { orgId: org }, async (trx) => {
        for (const [i, call] of [...calls, undefined].entries()) {
          const sourceId = randomUUID();
          sources.push(sourceId);
          await appendContentEvent(
            trx,
            {
              orgId: org,
              sourceTable: 'research_artifact',
              sourceId,
              title: `Fjord ${i}`,
              text: prose(`fjord ${i}`, 5),
            },
            call ? { traceparent: call.traceparent } : {},
          );
        }
      });
      await waitUntil(async () => (await indexer.lag()).pending === 0, 30_000, 'indexed');
      await telemetry.flush();

      const spans = exporter.getFinishedSpans();
      const batch = spans.filter((s) => s.name === 'index content batch');
      const perEvent = spans.filter((s) => s.name === 'index content');
      expect(batch).toHaveLength(1);
      expect(batch[0]!.parentSpanContext).toBeUndefined();
      expect(batch[0]!.kind).toBe(SpanKind.CONSUMER);
      expect(batch[0]!.attributes).toMatchObject({ 'messaging.batch.message_count': 3, 'quarry.indexer.indexed': 3 });
      expect(batch[0]!.links.map((l) => l.context.spanId).sort()).toEqual(calls.map((c) => c.spanId).sort());
      // Two events carried a trace: their spans are in it, children of the storing call.
      expect(perEvent.map((s) => [s.spanContext().traceId, s.parentSpanContext?.spanId]).sort()).toEqual(
        calls.map((c) => [c.traceId, c.spanId]).sort(),
      );
      expect(perEvent.map((s) => s.attributes['quarry.source.id']).sort()).toEqual(sources.slice(0, 2).sort());
      // The event's text never goes into a trace.
      expect(JSON.stringify(perEvent.map((s) => s.attributes))).not.toContain('fjord 0');

      // Idle: the indexer keeps polling the outbox, but no batch means no span.
      exporter.reset();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await telemetry.flush();
      expect(exporter.getFinishedSpans()).toEqual([]);
    } finally {
      await indexer.close();
    }
  }, 120_000);
});
