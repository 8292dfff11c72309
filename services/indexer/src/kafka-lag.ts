import { CONTENT_CREATED_TOPIC, CONTENT_DELETED_TOPIC } from '@quarry/events';
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
 * The lag of a consumer group read from Kafka: pending = Σ over the topics' partitions of
 * (high watermark − the group's committed offset), for content.created and content.deleted. Kafka's admin API gives no event times, so
 * `oldestPendingAgeMs` is always null here; startIndexConsumer then reports the age of the oldest
 * event of the batch in flight instead (see startIndexConsumer). `admin` must be connected.
 */
export function kafkaLagProbe(options: {
  admin: KafkaAdminLike;
  groupId: string;
  topics?: readonly string[];
}): LagProbe {
  const topics = [...(options.topics ?? [CONTENT_CREATED_TOPIC, CONTENT_DELETED_TOPIC])];
  return async () => {
    const [groups, ...watermarks] = await Promise.all([
      options.admin.fetchOffsets({ groupId: options.groupId, topics }),
      ...topics.map((topic) => options.admin.fetchTopicOffsets(topic)),
    ]);
    let pending = 0;
    topics.forEach((topic, i) => {
      const committed = groups.find((g) => g.topic === topic)?.partitions ?? [];
      pending += kafkaPending(committed, watermarks[i]!);
    });
    return { pending, oldestPendingAgeMs: null };
  };
}
