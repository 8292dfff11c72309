import type { Metadata } from '@grpc/grpc-js';
import { allows, scopeForRpc } from '@quarry/contracts';
import { grpcErrors } from './errors.js';
import {
  IDENTITY_METADATA_KEY,
  readIdentity,
  requestIdFrom,
  type Identity,
  type IdentityVerifier,
} from './identity.js';
import { bearerFrom, type ServiceTokenVerifier } from './service-token.js';

/**
 * Who is calling `method`, from either credential a service accepts:
 * - the identity the gateway (or a peer service) signed into `x-quarry-identity`, trusted as is
 *   (the gateway has already checked the user's scopes and allowlist);
 * - a service account's access token in `authorization: Bearer …`, when `serviceTokens` is set:
 *   its org becomes the tenant, exactly like a user's, and the rpc must be a tool whose scope
 *   (read-only tools `quarry:read`, others `quarry:write`) the token carries. The services'
 *   internal rpcs are refused to it.
 */
export async function readCaller(
  metadata: Metadata,
  method: string,
  verifier: IdentityVerifier,
  serviceTokens: ServiceTokenVerifier | undefined,
): Promise<Identity> {
  if (metadata.get(IDENTITY_METADATA_KEY).length > 0) return readIdentity(metadata, verifier);
  const token = bearerFrom(metadata);
  if (token === undefined) throw grpcErrors.IDENTITY_MISSING();
  if (!serviceTokens) {
    throw grpcErrors.SERVICE_TOKEN_REFUSED({
      reason: 'this service accepts no service accounts (QUARRY_SERVICE_TOKEN_ISSUER is not set)',
    });
  }
  const principal = await serviceTokens.verify(token);
  const needed = scopeForRpc(method);
  if (needed === undefined) throw grpcErrors.RPC_INTERNAL({ method });
  if (!allows(principal.scopes, needed)) throw grpcErrors.SCOPE_INSUFFICIENT({ method, needed });
  const { kind, orgId, serviceName, tokenId } = principal;
  return { kind, orgId, serviceName, tokenId, requestId: requestIdFrom(metadata) };
}
