import { DEFAULT_PORTS, databaseUrlField, grpcServiceFields, loadConfig, z } from '@quarry/config';

/** Every org's storage limits unless the operator set its own (docs/adr/0061); also read by `quarry start`. */
export const storageQuotaFields = {
  QUOTA_STORAGE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe('bytes each org may store unless the operator set its own (quarry quota set); unset: no limit'),
  QUOTA_ARTIFACTS: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe('artifacts and research outputs each org may keep unless the operator set its own; unset: no limit'),
};

/** Every variable the artifact store reads; validated once at startup, frozen afterwards. */
const artifactStoreConfigSchema = z.object({
  ...grpcServiceFields(DEFAULT_PORTS['artifact-store']),
  ...databaseUrlField('the app role'),
  PLAN_ENGINE_ADDRESS: z.string().min(1).describe('host:port of the plan engine (checks plan and step references)'),
  READ_BUDGET_BYTES: z.coerce
    .number()
    .int()
    .min(4096)
    .max(1048576)
    .default(262144)
    .describe('bytes of text a read tool returns per call unless the caller asks for less or more (ADR 0024)'),
  DOCUMENT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(64 * 1024 * 1024)
    .describe('largest source document import_document accepts, in bytes (its gRPC messages may be this large)'),
  ...storageQuotaFields,
});

export function loadArtifactStoreConfig(source: Readonly<Record<string, string | undefined>> = process.env) {
  return loadConfig(artifactStoreConfigSchema, source);
}
