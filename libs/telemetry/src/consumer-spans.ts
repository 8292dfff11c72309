import {
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
} from '@opentelemetry/api';
import { telemetryRunning } from './tracing.js';

/** One message of a consumed batch: the trace context its producer stored with it. */
export interface ConsumedMessage {
  traceparent?: string;
  attributes?: Attributes;
}

/** The producer's context, when the message carries a valid one. */
function producerContext(message: ConsumedMessage): Context | undefined {
  if (!message.traceparent) return undefined;
  const ctx = propagation.extract(ROOT_CONTEXT, { traceparent: message.traceparent });
  return trace.getSpanContext(ctx) ? ctx : undefined;
}

/**
 * Runs a consumer's batch `work` so that its traces tell the story: one span for the batch (a
 * root: its own queries and calls nest under it, and it links to every producer's span), and for
 * each message a span in the trace of the call that produced it — so the trace of a
 * `store_research` call shows when its content was indexed. Work that finds no batch makes no
 * trace at all (PostgreSQL is traced only under a span), so an idle consumer sends none. Without
 * telemetry running it only runs `work`.
 */
export async function withConsumerSpans<T>(
  name: string,
  messages: readonly ConsumedMessage[],
  work: () => Promise<T>,
  summary: (result: T) => Attributes = () => ({}),
): Promise<T> {
  if (!telemetryRunning()) return work();
  // Asked for on each batch: a tracer kept across a telemetry restart would keep the old provider.
  const tracer = trace.getTracer('@quarry/telemetry');
  const producers = messages.map(producerContext);
  const links: Link[] = producers.flatMap((ctx) => (ctx ? [{ context: trace.getSpanContext(ctx)! }] : []));
  return tracer.startActiveSpan(
    `${name} batch`,
    { root: true, kind: SpanKind.CONSUMER, links, attributes: { 'messaging.batch.message_count': messages.length } },
    async (batch) => {
      const each = messages.flatMap((message, i) =>
        producers[i]
          ? [
              tracer.startSpan(
                name,
                { kind: SpanKind.CONSUMER, links: [{ context: batch.spanContext() }], attributes: message.attributes },
                producers[i],
              ),
            ]
          : [],
      );
      try {
        const result = await work();
        batch.setAttributes(summary(result));
        return result;
      } catch (error) {
        for (const span of [batch, ...each]) {
          span.recordException(error as Error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        }
        throw error;
      } finally {
        for (const span of each) span.end();
        batch.end();
      }
    },
  );
}
