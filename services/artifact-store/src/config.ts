import { DEFAULT_PORTS, databaseUrlField, env, grpcServiceFields, loadConfig, z } from '@quarry/config';
import { allowEntry } from './core/url-targets.js';

/**
 * import_url's settings (docs/adr/0057-import-url-ssrf-guard.md): which targets besides public
 * addresses it may fetch, and how much and how long. `quarry start` reads them too.
 */
export const importUrlFields = {
  QUARRY_IMPORT_URL_ALLOW_PRIVATE: env
    .bool(false)
    .describe(
      'import_url may also fetch private, loopback, link-local, unique-local and other non-public addresses (never a cloud metadata endpoint unless QUARRY_IMPORT_URL_ALLOW names it)',
    ),
  QUARRY_IMPORT_URL_ALLOW: z
    .string()
    .default('')
    .transform((text) => text.split(/[\s,]+/).filter(Boolean))
    .refine((entries) => entries.every((e) => allowEntry(e) !== undefined), {
      message: 'every entry must be a host name, an IP address or a CIDR (comma-separated)',
    })
    .describe(
      'host names, addresses and CIDRs import_url may fetch whatever kind of address they are, comma-separated',
    ),
  QUARRY_IMPORT_URL_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(32 * 1024 * 1024)
    .describe('the most import_url downloads, in bytes (decoded); larger responses are aborted'),
  QUARRY_IMPORT_URL_TIMEOUT: env
    .duration('30s')
    .describe('the longest one import_url fetch may take, redirects included'),
  QUARRY_IMPORT_URL_MAX_REDIRECTS: z.coerce
    .number()
    .int()
    .min(0)
    .max(20)
    .default(5)
    .describe('the most redirects import_url follows (each one checked like the first URL)'),
};

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
  ...importUrlFields,
  ...storageQuotaFields,
});

/** The runtime's import_url options from the loaded settings (ours or `quarry start`'s). */
export function urlImportOptionsFrom(config: {
  QUARRY_IMPORT_URL_ALLOW_PRIVATE: boolean;
  QUARRY_IMPORT_URL_ALLOW: readonly string[];
  QUARRY_IMPORT_URL_MAX_BYTES: number;
  QUARRY_IMPORT_URL_TIMEOUT: number;
  QUARRY_IMPORT_URL_MAX_REDIRECTS: number;
}): UrlImportOptions {
  return {
    allowPrivate: config.QUARRY_IMPORT_URL_ALLOW_PRIVATE,
    allow: config.QUARRY_IMPORT_URL_ALLOW,
    maxBytes: config.QUARRY_IMPORT_URL_MAX_BYTES,
    timeoutMs: config.QUARRY_IMPORT_URL_TIMEOUT,
    maxRedirects: config.QUARRY_IMPORT_URL_MAX_REDIRECTS,
  };
}

/** What an operator sets for import_url (the runtime turns it into the fetcher's settings). */
export interface UrlImportOptions {
  allowPrivate: boolean;
  allow: readonly string[];
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
}

export function loadArtifactStoreConfig(source: Readonly<Record<string, string | undefined>> = process.env) {
  return loadConfig(artifactStoreConfigSchema, source);
}
