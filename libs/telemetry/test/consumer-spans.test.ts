import { afterEach, describe, expect, it } from '@jest/globals';
import { context, propagation, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, startTelemetry, withConsumerSpans, type Telemetry } from '@quarry/telemetry';

// A consumer's batch under one root span linking its producers, each message's span in its
// producer's trace; failures marked on all of them; without telemetry only the work runs.

let telemetry: Telemetry | undefined;
afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
});

function producer(sampled = true) {
  const span = trace.getTracer('test').startSpan('producer');
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  span.end();
  const traceparent = sampled ? carrier.traceparent! : carrier.traceparent!.replace(/-01$/, '-00');
  return { ...span.spanContext(), traceparent };
}

describe('withConsumerSpans', () => {
  it('only runs the work when telemetry is not running', async () => {
    await expect(withConsumerSpans('consume', [{ traceparent: 'garbage' }], async () => 7)).resolves.toBe(7);
  });

  it('ignores a missing or malformed traceparent, and follows the producer not sampling', async () => {
    const exporter = new InMemorySpanExporter();
    telemetry = startTelemetry({ service: 'consumer', spanExporter: exporter, instrument: false });
    const unsampled = producer(false);
    await telemetry.flush();
    exporter.reset();
    await withConsumerSpans(
      'consume',
      [{}, { traceparent: 'not-a-trace' }, { traceparent: unsampled.traceparent }],
      () => Promise.resolve(),
    );
    await telemetry.flush();
    // The batch root is recorded; the unsampled producer's trace stays unrecorded downstream too.
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['consume batch']);
    expect(exporter.getFinishedSpans()[0]!.links).toHaveLength(1);
  });

  it('marks the batch and each message span failed when the work throws, and rethrows', async () => {
    const exporter = new InMemorySpanExporter();
    telemetry = startTelemetry({ service: 'consumer', spanExporter: exporter, instrument: false });
    const call = producer();
    await telemetry.flush();
    exporter.reset();
    await expect(
      withConsumerSpans('consume', [{ traceparent: call.traceparent, attributes: { 'quarry.source.id': 's1' } }], () =>
        Promise.reject(new Error('engine down')),
      ),
    ).rejects.toThrow('engine down');
    await telemetry.flush();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => [s.name, s.status.code, s.status.message])).toEqual([
      ['consume', SpanStatusCode.ERROR, 'engine down'],
      ['consume batch', SpanStatusCode.ERROR, 'engine down'],
    ]);
    expect(spans[0]!.spanContext().traceId).toBe(call.traceId);
    expect(spans[0]!.parentSpanContext?.spanId).toBe(call.spanId);
    expect(spans[0]!.attributes).toEqual({ 'quarry.source.id': 's1' });
  });
});
