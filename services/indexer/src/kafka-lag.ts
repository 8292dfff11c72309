import { CONTENT_CREATED_TOPIC } from '@quarry/events';
import { kafkaPending, type CommittedOffset, type PartitionWatermarks } from './core/kafka-lag.js';
import type { LagProbe } from './consumer.js';

/** The two kafkajs admin calls the probe makes (a connected `kafka.admin()` satisfies it). */
export interface KafkaAdminLike {
  fetchOffsets(options: {
    groupId: string;
    topics: string[];
  }): Promise<Array<{ topic: string; partitions: CommittedOffset[] }>>;
  fetchTopicOffsets(topic: string): Promise<PartitionWatermarks[]>;
}

/**
 * The lag of a consumer group read from Kafka: pending = Σ over the topic's partitions of
 * (high watermark − the group's committed offset). Kafka's admin API gives no event times, so
 * `oldestPendingAgeMs` is always null here; startIndexConsumer then reports the age of the oldest
 * event of the batch in flight instead (see startIndexConsumer). `admin` must be connected.
 */
export function kafkaLagProbe(options: { admin: KafkaAdminLike; groupId: string; topic?: string }): LagProbe {
  const topic = options.topic ?? CONTENT_CREATED_TOPIC;
  return async () => {
    const [groups, watermarks] = await Promise.all([
      options.admin.fetchOffsets({ groupId: options.groupId, topics: [topic] }),
      options.admin.fetchTopicOffsets(topic),
    ]);
    const committed = groups.find((g) => g.topic === topic)?.partitions ?? [];
    return { pending: kafkaPending(committed, watermarks), oldestPendingAgeMs: null };
  };
}
