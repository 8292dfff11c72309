import { DEFAULT_PORTS, databaseUrlField, env, identityKeyField, loadConfig, serviceFields, z } from '@quarry/config';
import { readSigningKeysFile } from './oauth/signing-keys-file.js';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
const list = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );

/** Each org's calls per minute by tool class unless the operator set its own (docs/adr/0061); unset: no limit. */
const callQuota = (toolClass: string) =>
  z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      `${toolClass} tool calls per minute each org may make unless the operator set its own (quarry quota set)`,
    );
const callQuotaFields = {
  QUOTA_CALLS_PER_MINUTE_READ: callQuota('read'),
  QUOTA_CALLS_PER_MINUTE_WRITE: callQuota('write'),
  QUOTA_CALLS_PER_MINUTE_SEARCH: callQuota('search'),
  QUOTA_CALLS_PER_MINUTE_MODEL: callQuota('model (extraction)'),
};

/** Every variable the gateway reads; validated once at startup, frozen afterwards. */
const gatewayConfigSchema = z.object({
  ...serviceFields(DEFAULT_PORTS.gateway),
  ...databaseUrlField('the app role'),
  ...identityKeyField,
  QUARRY_ALLOWED_HOSTS: list('').describe(
    'Host header allow-list; defaults to loopback names when HOST is loopback, any otherwise',
  ),
  QUARRY_ALLOWED_ORIGINS: list(LOOPBACK.join(',')),
  QUARRY_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(4 * 1024 * 1024),
  QUARRY_UPLOAD_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(64 * 1024 * 1024)
    .describe(
      "largest source document POST /documents accepts (keep it within the artifact store's DOCUMENT_MAX_BYTES)",
    ),
  QUARRY_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
  ...callQuotaFields,
  QUARRY_TRUST_PROXY: env.bool(false),
  QUARRY_TOKEN_CACHE_TTL: env.duration('60s'),
  QUARRY_STRICT_REVOCATION: env
    .bool(true)
    .describe(
      'a cache hit is confirmed by a revocation barrier (one round trip on the LISTEN connection; read-only tool calls overlap it with their rpc)',
    ),
  QUARRY_MCP_FAST_PATH: env
    .bool(true)
    .describe(
      'answer plain 2026-07-28 tools/calls without the SDK per-request server (ADR 0015); false sends every request through the SDK',
    ),
  QUARRY_MCP_APPS: env
    .bool(true)
    .describe(
      'show the plan and search views inside the chat to 2026-07-28 clients that negotiate MCP Apps (ui:// resources, ADR 0049); false: plain results for every client',
    ),
  QUARRY_PUBLIC_URL: z
    .url()
    .optional()
    .describe(
      "the gateway's public base URL (the OAuth issuer; the MCP resource is <url>/mcp); defaults to http://HOST:PORT, with 127.0.0.1 for a wildcard HOST",
    ),
  QUARRY_OAUTH_ACCESS_TOKEN_TTL: env.duration('1h').describe('lifetime of the OAuth access tokens Quarry issues'),
  QUARRY_SERVICE_TOKEN_TTL: env
    .duration('5m')
    .describe(
      "lifetime of a service account's access token (client_credentials): a revoked account's last token lives this long",
    ),
  QUARRY_OAUTH_ISSUER: z
    .url()
    .optional()
    .describe(
      'an external authorization server (Keycloak, Auth0, Entra ID, Okta…): Quarry is then only the resource server',
    ),
  QUARRY_OAUTH_AUDIENCE: z
    .string()
    .min(1)
    .optional()
    .describe("the external issuer's audience for Quarry (default: the MCP URL)"),
  QUARRY_OAUTH_JWKS_URL: z
    .url()
    .optional()
    .describe("the external issuer's JWKS (default: from its discovery document)"),
  QUARRY_OAUTH_SIGNING_KEYS_FILE: z
    .string()
    .min(1)
    .optional()
    .transform((path, ctx) => {
      if (path === undefined) return undefined;
      try {
        return Object.freeze(readSigningKeysFile(path));
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    })
    .describe(
      "the embedded authorization server's signing keys from a file (a private ES256 JWKS, e.g. from a Secret) instead of PostgreSQL; the first key signs",
    ),
  QUARRY_OAUTH_EMAIL_CLAIM: z.string().min(1).default('email'),
  QUARRY_OAUTH_ORG_CLAIM: z.string().min(1).default('quarry_org').describe('the claim naming the org by slug'),
  QUARRY_OAUTH_DEFAULT_ORG: z.string().min(1).optional().describe('the org of tokens without the org claim'),
  QUARRY_SSO_ISSUER: z
    .url()
    .optional()
    .describe(
      'an upstream OpenID Connect provider (Google, Entra ID, Okta, Keycloak…) users may sign in through, on the embedded authorization server',
    ),
  QUARRY_SSO_CLIENT_ID: z.string().min(1).optional().describe("Quarry's client id at the SSO provider"),
  QUARRY_SSO_CLIENT_SECRET: z.string().min(1).optional().describe("Quarry's client secret at the SSO provider"),
  QUARRY_SSO_NAME: z.string().min(1).default('single sign-on').describe('the name on the "Sign in with" button'),
  QUARRY_OPERATOR_ORG: z
    .string()
    .min(1)
    .optional()
    .describe("the org whose admins see the web app's operations page (default: the first org created)"),
  QUARRY_PROMETHEUS_URL: z
    .url()
    .optional()
    .describe(
      "Prometheus's base URL: the operations page reads every replica's metrics there, not only this process's",
    ),
  QUARRY_GRAFANA_URL: z
    .url()
    .optional()
    .describe("Grafana's base URL, to link the shipped dashboards from the operations page"),
  QUARRY_SMTP_URL: z
    .url()
    .optional()
    .describe(
      'an SMTP server (smtp[s]://user:pass@host:port) to email invitation links; without it the admin sees the link',
    ),
  QUARRY_SMTP_FROM: z.string().min(3).default('Quarry <quarry@localhost>').describe('the From of invitation emails'),
  QUARRY_TOOL_LOG_QUEUE: z.coerce.number().int().min(1).default(10_000),
  QUARRY_GRPC_DEADLINE: env.duration('10s'),
  QUARRY_MODEL_TOOL_DEADLINE: env
    .duration('150s')
    .describe('deadline of tools that run a model (an extraction makes up to two model calls)'),
  QUARRY_MCP_PROGRESS_INTERVAL: env
    .duration('5s')
    .describe(
      'how often a long call (a model at work, a long poll) reports progress to a client that sent a progress token',
    ),
  QUARRY_MCP_CALL_BOUND: env
    .duration('45s')
    .describe(
      'the longest a tool call holds a 2025-era client (no tasks extension): long polls wait less, and a model at work answers with a job to poll',
    ),
  QUARRY_MCP_TASK_TTL: env
    .duration('1h')
    .describe('how long an MCP task (a long call a client runs in the background) and its result are kept'),
  QUARRY_SERVICES: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const services: Record<string, string> = {};
      for (const pair of value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const match = /^([\w.]+)=([\w.-]+:\d+)$/.exec(pair);
        if (!match) {
          ctx.addIssue({ code: 'custom', message: `"${pair}" is not <proto service full name>=<host>:<port>` });
          return z.NEVER;
        }
        services[match[1]!] = match[2]!;
      }
      return services;
    })
    .describe('gRPC addresses of the services that own tools'),
});

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

export function loadGatewayConfig(source: Readonly<Record<string, string | undefined>> = process.env) {
  const config = loadConfig(gatewayConfigSchema, source);
  if (config.QUARRY_MCP_CALL_BOUND < 1000) throw new Error('QUARRY_MCP_CALL_BOUND must be at least 1s');
  if (config.QUARRY_SSO_ISSUER && (!config.QUARRY_SSO_CLIENT_ID || !config.QUARRY_SSO_CLIENT_SECRET))
    throw new Error('QUARRY_SSO_ISSUER needs QUARRY_SSO_CLIENT_ID and QUARRY_SSO_CLIENT_SECRET');
  const loopback = ['127.0.0.1', 'localhost', '::1'].includes(config.HOST);
  const allowedHosts =
    config.QUARRY_ALLOWED_HOSTS.length > 0 ? config.QUARRY_ALLOWED_HOSTS : loopback ? LOOPBACK : ['*'];
  const bindHost = ['0.0.0.0', '::', ''].includes(config.HOST) ? '127.0.0.1' : config.HOST;
  const publicUrl = (config.QUARRY_PUBLIC_URL ?? `http://${bindHost}:${config.PORT}`).replace(/\/+$/, '');
  return Object.freeze({ ...config, allowedHosts: Object.freeze([...allowedHosts]), publicUrl });
}
