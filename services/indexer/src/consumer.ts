import type { AnyDb } from '@quarry/db';
import { consumerLag, type DeliveredEvent, type EventLog } from '@quarry/events';
import { EmbeddingHttpError, type ChunkOptions, type SearchBackends } from '@quarry/search-index';
import { withConsumerSpans, type ConsumedMessage, type Logger, type Metrics } from '@quarry/telemetry';
import { assertEmbedderMatches, createIndexHandler, type IndexReport } from './handler.js';

/** How far the indexer is behind: events not yet indexed, and the age of the oldest (null when unknown or caught up). */
export interface Lag {
  pending: number;
  oldestPendingAgeMs: number | null;
}

export type LagProbe = () => Promise<Lag>;

/** Events per indexer batch unless configured (INDEXER_BATCH_SIZE). */
const INDEXER_BATCH_SIZE = 500;

/** The indexer's consumer name (embedded offset row, Kafka consumer group); `quarry reindex` rewinds it. */
export const INDEXER_CONSUMER = 'indexer';

/**
 * Whether a failed batch says nothing about its events: everything except an embedding
 * provider refusing the input itself (HTTP 4xx other than 408/429). An engine or provider that
 * is down or overloaded only delays indexing (retried with backoff, lag grows, failures are
 * counted) and never sends valid events to the dead letters.
 */
export function isTransientIndexError(error: unknown): boolean {
  if (error instanceof EmbeddingHttpError)
    return !(error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429);
  return true;
}

export interface IndexConsumerOptions {
  /** See IndexHandlerDeps.db; with the default lag probe it also reads events.consumer_lag. */
  db: AnyDb;
  eventLog: EventLog;
  backends: Pick<SearchBackends, 'bm25' | 'vectors' | 'embedder'>;
  logger: Logger;
  /** Register the quarry_indexer_* metrics here (nothing is registered without it). */
  metrics?: Metrics;
  /** Consumer name: the embedded offset row or the Kafka consumer group. Default `indexer`. */
  consumer?: string;
  /**
   * Most events per batch (and per embed call's source set). Default 500: each batch costs one
   * commit per index whatever its size, so a bulk load indexes ~1.6× faster than with 100; a
   * single new event is still a batch of its own (freshness does not wait for a batch to fill).
   */
  batchSize?: number;
  /** Default: the outbox's own view (consumerLag), exact. Kafka: kafkaLagProbe. */
  lagProbe?: LagProbe;
  /** How often the lag gauges are refreshed. Default 5000 ms. */
  lagIntervalMs?: number;
  chunkOptions?: Partial<ChunkOptions>;
}

export interface IndexConsumer {
  lag(): Promise<Lag>;
  /** Stop consuming (the batch in flight finishes and its offset is stored), stop the lag gauges. Backends and db stay open. */
  close(): Promise<void>;
}

/**
 * Consume content.created from `eventLog` into the search indexes (createIndexHandler) and
 * report lag. The embedder must match the one the vector index was built with, checked before
 * the first event is taken (a mismatch would otherwise fail every event into the dead letters).
 * An event that keeps failing for its own sake (isTransientIndexError false) goes to the dead
 * letters after the event log's bounded retries: `quarry_indexer_dead_letters_total` counts
 * them (either event log) and each is logged at error level, so a nonzero rate can alert.
 *
 * Lag gauge (`quarry_indexer_lag_seconds`): the age of the oldest event not yet indexed, 0 when
 * caught up. The embedded outbox knows it exactly. Kafka's admin API gives only counts, so
 * there the gauge is the age of the oldest event of the batch in flight (or of the last batch
 * while events are pending and none is in flight), 0 before the first batch: it can
 * under-state the lag by up to one batch's spread, and stays at 0 if the indexer never gets a
 * batch. `quarry_indexer_pending_events` is exact in both modes.
 */
export async function startIndexConsumer(options: IndexConsumerOptions): Promise<IndexConsumer> {
  const { db, logger } = options;
  const consumer = options.consumer ?? INDEXER_CONSUMER;
  await assertEmbedderMatches(options.backends);
  const handle = createIndexHandler({ db, backends: options.backends, logger, chunkOptions: options.chunkOptions });
  const probe: LagProbe = options.lagProbe ?? (() => consumerLag(db, consumer));
  const m = options.metrics ? registerMetrics(options.metrics) : undefined;

  // Oldest occurredAt of the latest batch taken: the Kafka age fallback.
  let lastBatchOldestMs: number | undefined;

  const subscription = await options.eventLog.subscribe({
    consumer,
    batchSize: options.batchSize ?? INDEXER_BATCH_SIZE,
    isTransient: isTransientIndexError,
    // An event given up on is never indexed: counted for the alert, logged without its text.
    onDeadLetter: ({ offset, event, attempts, error }) => {
      m?.deadLetters.inc();
      logger.error(
        { offset, eventId: event?.eventId, orgId: event?.orgId, sourceId: event?.sourceId, attempts, error },
        'content event dead-lettered; it will not be indexed',
      );
    },
    handler: async (batch) => {
      const stop = m?.batchSeconds.startTimer();
      lastBatchOldestMs = oldestOccurredMs(batch);
      try {
        const report = await withConsumerSpans('index content', batch.map(traced), () => handle(batch), summary);
        if (m) count(m, report);
        logger.debug({ report }, 'indexed batch');
      } catch (err) {
        m?.failures.inc({ stage: 'batch' });
        logger.warn({ err, events: batch.length }, 'index batch failed; it will be retried');
        throw err;
      } finally {
        stop?.();
      }
    },
  });

  let refreshing: Promise<void> | undefined;
  const refresh = () =>
    (refreshing ??= (async () => {
      try {
        const lag = await probe();
        const age =
          lag.pending === 0
            ? 0
            : (lag.oldestPendingAgeMs ??
              (lastBatchOldestMs === undefined ? 0 : Math.max(0, Date.now() - lastBatchOldestMs)));
        m?.pending.set(lag.pending);
        m?.lagSeconds.set(age / 1000);
      } catch (err) {
        m?.failures.inc({ stage: 'lag' });
        logger.warn({ err }, 'lag probe failed');
      } finally {
        refreshing = undefined;
      }
    })());
  const timer = m ? setInterval(refresh, options.lagIntervalMs ?? 5_000) : undefined;
  timer?.unref();
  if (m) void refresh();

  return {
    lag: probe,
    async close() {
      clearInterval(timer);
      await subscription.close();
      await refreshing;
    },
  };
}

function registerMetrics(metrics: Metrics) {
  return {
    lagSeconds: metrics.gauge(
      'quarry_indexer_lag_seconds',
      'Age of the oldest content event not yet indexed (0 when caught up)',
    ),
    pending: metrics.gauge('quarry_indexer_pending_events', 'Content events not yet indexed'),
    events: metrics.counter(
      'quarry_indexer_events_total',
      'Content events handled, by outcome (indexed | deleted | unchanged | stale)',
      ['outcome'],
    ),
    chunksWritten: metrics.counter(
      'quarry_indexer_chunks_written_total',
      'Chunks inserted or replaced in the search indexes',
    ),
    chunksDeleted: metrics.counter('quarry_indexer_chunks_deleted_total', 'Chunks removed from the search indexes'),
    chunksEmbedded: metrics.counter('quarry_indexer_chunks_embedded_total', 'Chunk texts sent to the embedder'),
    batchSeconds: metrics.histogram(
      'quarry_indexer_batch_duration_seconds',
      'Time to index one batch (including failed attempts)',
    ),
    failures: metrics.counter(
      'quarry_indexer_failures_total',
      'Failed batch attempts (stage=batch) and lag probes (stage=lag)',
      ['stage'],
    ),
    deadLetters: metrics.counter(
      'quarry_indexer_dead_letters_total',
      'Content events given up on and moved to the dead letters (events.dead_letters or the .dlt topic); they are not indexed',
    ),
  };
}

function count(m: ReturnType<typeof registerMetrics>, report: IndexReport): void {
  m.events.inc({ outcome: 'indexed' }, report.indexed);
  m.events.inc({ outcome: 'deleted' }, report.deleted);
  m.events.inc({ outcome: 'unchanged' }, report.unchanged);
  m.events.inc({ outcome: 'stale' }, report.stale);
  m.chunksWritten.inc(report.chunksWritten);
  m.chunksDeleted.inc(report.chunksDeleted);
  m.chunksEmbedded.inc(report.chunksEmbedded);
}

function oldestOccurredMs(batch: readonly DeliveredEvent[]): number | undefined {
  let oldest: number | undefined;
  for (const { event } of batch) {
    const at = Date.parse(event.occurredAt);
    if (oldest === undefined || at < oldest) oldest = at;
  }
  return oldest;
}

/** An event as its trace sees it: where it came from, never its text. */
function traced({ event, headers }: DeliveredEvent): ConsumedMessage {
  return {
    ...(headers.traceparent ? { traceparent: headers.traceparent } : {}),
    attributes: {
      'quarry.event.id': event.eventId,
      'quarry.event.type': event.type,
      'quarry.org.id': event.orgId,
      'quarry.source.table': event.sourceTable,
      'quarry.source.id': event.sourceId,
    },
  };
}

function summary(report: IndexReport) {
  return {
    'quarry.indexer.indexed': report.indexed,
    'quarry.indexer.deleted': report.deleted,
    'quarry.indexer.unchanged': report.unchanged,
    'quarry.indexer.stale': report.stale,
    'quarry.indexer.chunks_written': report.chunksWritten,
  };
}
