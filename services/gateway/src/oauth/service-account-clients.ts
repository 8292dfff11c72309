import { timingSafeEqual } from 'node:crypto';
import { ORG_CLAIM, SERVICE_ACCOUNT_CLAIM, SERVICE_TOKEN_AUDIENCE } from '@quarry/grpc';
import { type Kysely, sql } from 'kysely';
import { errors, type AdapterPayload } from 'oidc-provider';
import type { IdentityDatabase } from '../identity/schema.js';
import { hashServiceAccountSecret, SERVICE_ACCOUNT_CLIENT_PREFIX } from '../identity/service-accounts.js';

export function isServiceAccountClient(clientId: string | undefined): boolean {
  return clientId?.startsWith(SERVICE_ACCOUNT_CLIENT_PREFIX) === true;
}

/** The active (not revoked) service account behind an OAuth client id, read through its lookup policy. */
async function findServiceAccount(db: Kysely<IdentityDatabase>, clientId: string) {
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('app.client_id', ${clientId}, true)`.execute(trx);
    return trx
      .selectFrom('identity.service_accounts')
      .select(['org_id', 'name', 'secret_hash', 'scopes'])
      .where('client_id', '=', clientId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
  });
}

/**
 * A service account as oidc-provider reads a client: client_credentials only, authenticated
 * with its secret (HTTP Basic or the form), allowed its own scopes. `client_secret` holds the
 * secret's SHA-256 (hex), which `secretMatches` compares against: the secret itself is never
 * stored. A revoked account is no client at all (`invalid_client`).
 */
export async function serviceAccountClientMetadata(
  db: Kysely<IdentityDatabase>,
  clientId: string,
): Promise<AdapterPayload | undefined> {
  const account = await findServiceAccount(db, clientId);
  if (!account) return undefined;
  return {
    client_id: clientId,
    client_secret: account.secret_hash.toString('hex'),
    client_name: account.name,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: account.scopes.join(' '),
  };
}

/** oidc-provider's secret comparison for a service account: the stored value is the secret's hash. */
export function secretMatches(storedHex: string, presented: string): boolean {
  const stored = Buffer.from(storedHex, 'hex');
  const hash = hashServiceAccountSecret(presented);
  return stored.length === hash.length && timingSafeEqual(stored, hash);
}

/** The org and account a service account's access token names (read again at issuance: revocation wins). */
export async function serviceAccountClaims(
  db: Kysely<IdentityDatabase>,
  clientId: string,
): Promise<Record<string, string>> {
  const account = await findServiceAccount(db, clientId);
  if (!account) throw new errors.InvalidClient('the service account is revoked');
  return { [ORG_CLAIM]: account.org_id, [SERVICE_ACCOUNT_CLAIM]: account.name };
}

/** The resource server a service account's tokens are for: every gRPC service, for `ttlSeconds`. */
export function grpcResourceServer(scope: string, ttlSeconds: number) {
  return {
    scope,
    audience: SERVICE_TOKEN_AUDIENCE,
    accessTokenTTL: ttlSeconds,
    accessTokenFormat: 'jwt' as const,
    jwt: { sign: { alg: 'ES256' as const } },
  };
}
