import { randomUUID } from 'node:crypto';
import { toolCatalogue } from '@quarry/contracts';
import {
  type AuthFailure,
  type AuthResult,
  buildServer,
  createTools,
  type GatewayDeps,
  type GatewayHttpOptions,
  type Principal,
  type TokenAuthenticator,
  type Tools,
} from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import { type StubBackends, stubBackends } from './stub-backend.js';

// The gateway's HTTP face over stub dependencies: a TokenAuthenticator that answers from a
// table, and the real tools over stub services. No PostgreSQL, no gRPC: what these tests can fail
// on is the gateway itself (its hooks, guards, error mapping, both MCP paths, the MCP shapes).

const orgIds = new Map<string, string>();

/** A member of an org (by slug), holding a token of their own. */
export function member(
  name: string,
  org = 'acme',
  scopes = ['quarry:read', 'quarry:write'],
  tools: string[] | null = null,
): Principal {
  if (!orgIds.has(org)) orgIds.set(org, randomUUID());
  return Object.freeze({
    tokenId: randomUUID(),
    orgId: orgIds.get(org)!,
    orgSlug: org,
    userId: randomUUID(),
    email: `${name}@${org}.test`,
    name,
    expiresAt: null,
    scopes,
    tools,
  });
}

export const ADA = member('ada');
/** ADA's bearer token in the stub authenticator's default table. */
export const ADA_TOKEN = `qry_${'a'.repeat(43)}`;

/** What a token resolves to: a principal, a refusal, or an error the lookup throws. */
export type StubAnswer = Principal | AuthFailure | Error;

interface StubAuthenticator extends TokenAuthenticator {
  /** Token → answer; a token not in it is `unknown`. Change it at will between requests. */
  readonly table: Map<string, StubAnswer>;
  /** Every bearer value asked about, in order (undefined: the request had no Authorization). */
  readonly seen: Array<string | undefined>;
}

export function stubAuthenticator(entries: Record<string, StubAnswer> = { [ADA_TOKEN]: ADA }): StubAuthenticator {
  const table = new Map(Object.entries(entries));
  const seen: Array<string | undefined> = [];
  const authenticate = async (token: string | undefined): Promise<AuthResult> => {
    seen.push(token);
    if (!token) return { ok: false, reason: 'missing' };
    const answer = table.get(token) ?? 'unknown';
    if (answer instanceof Error) throw answer;
    return typeof answer === 'string' ? { ok: false, reason: answer } : { ok: true, principal: answer };
  };
  return {
    table,
    seen,
    start: async () => {},
    authenticate,
    authenticateUnconfirmed: authenticate,
    flushLastUsed: async () => {},
    isListening: () => true,
    close: async () => {},
  };
}

/**
 * The real tools over stub services (stub-backend.ts); `stub` sets their replies and records their
 * rpcs. `options` are createTools' own (e.g. permalinks).
 */
export function stubTools(
  stub: StubBackends = stubBackends(),
  options: Pick<Parameters<typeof createTools>[0], 'permalinks'> = {},
): Tools & { stub: StubBackends } {
  const tools = createTools({
    catalogue: toolCatalogue,
    backends: stub.backends,
    logger: createLogger({ service: 'gateway-test', level: 'silent' }),
    ...options,
  });
  return { ...tools, stub };
}

/** Who served each MCP request: the tools/call fast path or the SDK. */
export interface ServedBy {
  fast: number;
  sdk: number;
}

/**
 * buildServer over stub deps (`stubTools()` unless `tools` is given): loopback Host and Origin
 * allow-lists, 4 MiB bodies, 1000 requests a minute; `overrides` replace any of it.
 */
export async function buildStubServer(
  overrides: Omit<Partial<GatewayDeps>, 'http'> & { http?: Partial<GatewayHttpOptions> } = {},
) {
  const served: ServedBy = { fast: 0, sdk: 0 };
  const loopback = ['localhost', '127.0.0.1', '[::1]'];
  const { http, ...rest } = overrides;
  const app = await buildServer({
    authenticator: stubAuthenticator(),
    tools: stubTools(),
    logger: createLogger({ service: 'gateway-test', level: 'silent' }),
    version: '0.0.0-test',
    requestStateKey: new Uint8Array(32).fill(7),
    metricsText: async () => ({ contentType: 'text/plain; version=0.0.4', body: 'quarry_test_metric 1\n' }),
    readiness: {},
    onMcpRequest: (path) => void served[path]++,
    ...rest,
    http: {
      allowedHosts: loopback,
      allowedOrigins: loopback,
      bodyLimitBytes: 4 * 1024 * 1024,
      rateLimitPerMinute: 1000,
      trustProxy: false,
      ...http,
    },
  });
  return { app, served };
}

/** `Authorization` for a token. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
