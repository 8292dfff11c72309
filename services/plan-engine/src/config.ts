import { DEFAULT_PORTS, databaseUrlField, env, grpcServiceFields, loadConfig, z } from '@quarry/config';
import { readAuditSigningKey } from './audit-signing-key.js';

/** The audit checkpoints' signing key and interval (also read by `quarry start`, which runs the plan engine in process). */
export const auditCheckpointFields = {
  QUARRY_AUDIT_SIGNING_KEY_FILE: z
    .string()
    .min(1)
    .optional()
    .transform((path, ctx) => {
      if (path === undefined) return undefined;
      try {
        return readAuditSigningKey(path);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    })
    .describe(
      'Ed25519 private key (PKCS#8 PEM, e.g. from a Secret) that signs the audit checkpoints; unset: the chain is kept but not checkpointed',
    ),
  QUARRY_AUDIT_CHECKPOINT_INTERVAL: env.duration('5m'),
};

/** Every variable the plan engine reads; validated once at startup, frozen afterwards. */
const planEngineConfigSchema = z.object({
  ...grpcServiceFields(DEFAULT_PORTS['plan-engine']),
  ...databaseUrlField('the app role'),
  QUARRY_STALL_THRESHOLD: env.duration('30m'),
  QUARRY_STALL_SWEEP_INTERVAL: env.duration('1m'),
  ...auditCheckpointFields,
  ARTIFACT_STORE_ADDRESS: z
    .string()
    .min(1)
    .optional()
    .describe('host:port of the artifact store (artifacts in the context tools)'),
});

export function loadPlanEngineConfig(source: Readonly<Record<string, string | undefined>> = process.env) {
  return loadConfig(planEngineConfigSchema, source);
}
