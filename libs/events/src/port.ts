import type { ContentEventV1 } from './content-event.js';

/** One event as a consumer receives it. */
export interface DeliveredEvent {
  /** Position in the log: the outbox id (embedded) or "partition:offset" (Kafka). Opaque, not an order. */
  readonly offset: string;
  readonly topic: string;
  /** The ordering key: the org id. */
  readonly key: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A `content.created` or a `content.deleted` event (tell them apart by `type`). */
  readonly event: ContentEventV1;
}

export interface SubscribeOptions {
  /** Consumer name (embedded: offset row; Kafka: consumer group id). One active instance per name. */
  consumer: string;
  /**
   * Process a batch, in log order. Resolve only when the work is durable: the offset moves past
   * the batch only then. Must be idempotent: delivery is at least once (after a crash or a
   * failed batch, events are delivered again).
   */
  handler(batch: readonly DeliveredEvent[]): Promise<void>;
  /** Most events per handler call. Default 100. */
  batchSize?: number;
  /**
   * Embedded log: about how many bytes of stored payload one batch reads (at least one event),
   * so a batch of long texts stays bounded in memory. Default 16 MiB. Kafka bounds its own fetches.
   */
  maxBatchBytes?: number;
  /**
   * Times one event is handed to the handler alone (after its batch failed) before it goes to
   * the dead letters and the stream moves on. Default 5. `Infinity`: never give up (relay).
   */
  maxAttempts?: number;
  /** First retry delay, doubled per attempt up to 30 s. Default 200 ms. */
  retryDelayMs?: number;
  /**
   * Failures that are not the event's fault (an index or embedding service unreachable): the
   * event is retried with backoff for as long as it takes and never dead-lettered, so an outage
   * delays indexing instead of losing events. Default: none (every failure counts).
   */
  isTransient?: (error: unknown) => boolean;
  /**
   * Told about every event this subscription gives up on, once its dead letter is stored
   * (events.dead_letters row or dead-letter topic message) and before the offset moves past
   * it: the hook for a dead-letter counter or an alerting log line. Synchronous; what it throws
   * goes to the event log's onError and never stops the stream. After a crash between storing
   * the dead letter and the offset, the same event can be reported again (at least once).
   */
  onDeadLetter?: (deadLetter: DeadLetter) => void;
}

/** An event a consumer gave up on, as onDeadLetter reports it. */
export interface DeadLetter {
  readonly consumer: string;
  /** Its position in the log, as DeliveredEvent.offset spells it. */
  readonly offset: string;
  readonly topic: string;
  readonly key: string;
  /** The decoded event; null for a record that was not a valid event (dead-lettered at once). */
  readonly event: ContentEventV1 | null;
  /** Times the handler failed on it alone (1 for an undecodable record). */
  readonly attempts: number;
  /** The failure, as stored with the dead letter. */
  readonly error: string;
}

export interface Subscription {
  /** Stop fetching; waits for the batch in flight to finish (its offset is stored if it succeeded). */
  close(): Promise<void>;
}

/**
 * The port every consumer of content events uses. Guarantees: at least once; in order per org
 * (the key) as far as writes are ordered at all: an event appended by a transaction that began
 * after another committed comes after that one's events (concurrent transactions have no order;
 * consumers order versions by the event's own occurredAt); offsets stored only after the handler
 * succeeds; a poison event is retried a bounded number of times, then dead-lettered, and later
 * events keep flowing.
 */
export interface EventLog {
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Close every subscription and release connections. */
  close(): Promise<void>;
}
