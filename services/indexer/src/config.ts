import { readFileSync } from 'node:fs';
import { DEFAULT_PORTS, databaseUrlField, env, loadConfig, processFields, z } from '@quarry/config';
import type { KafkaSecurity } from '@quarry/events';
import { embeddedIndexesDirRule, searchBackendsConfigRule, searchBackendsConfigShape } from '@quarry/search-index';

/**
 * How long consumed events stay in the outbox before the indexer's background task deletes
 * them; shared with `quarry start`, which runs the indexer in its own process.
 */
export const outboxRetentionField = {
  QUARRY_OUTBOX_RETENTION: env
    .duration('7d')
    .describe('How long the outbox keeps events every consumer has passed before deleting them (e.g. 7d, 12h)'),
  QUARRY_OUTBOX_COMPACTION_INTERVAL: env
    .duration('10m')
    .refine((ms) => ms >= 1000, 'must be at least 1s')
    .describe('Time between two compactions of the outbox (the first runs when the process starts)'),
};

const indexerConfigShape = z.object({
  ...processFields(DEFAULT_PORTS.indexer),
  ...databaseUrlField('the indexer role (a member of quarry_event_consumer)'),
  KAFKA_BROKERS: z
    .string()
    .regex(/^\s*[^,\s]+(\s*,\s*[^,\s]+)*\s*$/, 'must be a comma-separated list of host:port')
    .optional()
    .describe('Kafka brokers (default: consume the outbox table itself)'),
  QUARRY_OUTBOX_RELAY: env.bool(true).describe('With KAFKA_BROKERS: also relay outbox rows to Kafka from this process'),
  KAFKA_TLS: env.bool(false).describe('TLS to the Kafka brokers, trusting the system CAs (or KAFKA_TLS_CA_FILE)'),
  KAFKA_TLS_CA_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('PEM file of the CA(s) that signed the brokers’ certificates (needs KAFKA_TLS)'),
  KAFKA_SASL_MECHANISM: z
    .enum(['plain', 'scram-sha-256', 'scram-sha-512'])
    .optional()
    .describe('SASL authentication to the brokers'),
  KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
  ...searchBackendsConfigShape,
  INDEXER_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(500),
  ...outboxRetentionField,
});

/** Every variable the indexer reads; validated once at startup, frozen afterwards. */
const indexerConfigSchema = indexerConfigShape.superRefine((config, ctx) => {
  searchBackendsConfigRule(config, ctx);
  embeddedIndexesDirRule(config, ctx);
  kafkaSecurityRule(config, ctx);
});

/** SASL needs all three settings; PLAIN sends the password as is, so only over TLS. */
function kafkaSecurityRule(config: z.output<typeof indexerConfigShape>, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  const security = ['KAFKA_TLS_CA_FILE', 'KAFKA_SASL_MECHANISM', 'KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'] as const;
  for (const name of security)
    if (config[name] !== undefined && !config.KAFKA_BROKERS)
      issue(name, 'is only used with KAFKA_BROKERS, which is not set');
  if (config.KAFKA_TLS_CA_FILE && !config.KAFKA_TLS) issue('KAFKA_TLS_CA_FILE', 'needs KAFKA_TLS=true');
  const sasl = [config.KAFKA_SASL_MECHANISM, config.KAFKA_SASL_USERNAME, config.KAFKA_SASL_PASSWORD];
  if (sasl.some((v) => v !== undefined) && !sasl.every((v) => v !== undefined)) {
    issue(
      'KAFKA_SASL_MECHANISM',
      'KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD go together: set all three or none',
    );
  }
  if (config.KAFKA_SASL_MECHANISM === 'plain' && !config.KAFKA_TLS) {
    issue(
      'KAFKA_SASL_MECHANISM',
      'plain sends the password as is: set KAFKA_TLS=true (or use scram-sha-256 / scram-sha-512)',
    );
  }
}

export type IndexerConfig = ReturnType<typeof loadIndexerConfig>;

export function loadIndexerConfig(source: Readonly<Record<string, string | undefined>> = process.env) {
  return loadConfig(indexerConfigSchema, source);
}

/** The Kafka client's TLS and SASL settings; reads KAFKA_TLS_CA_FILE now, so a bad path fails at startup. */
export function kafkaSecurity(config: IndexerConfig): KafkaSecurity {
  let tls: KafkaSecurity['tls'] = config.KAFKA_TLS;
  if (config.KAFKA_TLS_CA_FILE) {
    try {
      tls = { ca: readFileSync(config.KAFKA_TLS_CA_FILE, 'utf8') };
    } catch (error) {
      throw new Error(`KAFKA_TLS_CA_FILE: cannot read ${config.KAFKA_TLS_CA_FILE} (${(error as Error).message})`, {
        cause: error,
      });
    }
    if (!tls.ca.includes('-----BEGIN CERTIFICATE-----'))
      throw new Error(`KAFKA_TLS_CA_FILE: ${config.KAFKA_TLS_CA_FILE} holds no PEM certificate`);
  }
  const { KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: password } = config;
  return { tls, ...(mechanism && username && password ? { sasl: { mechanism, username, password } } : {}) };
}
