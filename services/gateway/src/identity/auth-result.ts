import type { Principal } from './schema.js';

/** Why a bearer token is refused; each reason gets its own message and challenge. */
export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'expired' | 'revoked' | 'audience';

/** What authenticating a bearer token gives: its principal, or why it is refused. */
export type AuthResult = { ok: true; principal: Principal } | { ok: false; reason: AuthFailure };

/**
 * A cached principal whose revocation barrier is still in flight. `confirmed` resolves true once
 * the barrier vouches for it; false means the hit cannot be trusted (revoked meanwhile, or the
 * LISTEN connection lost) and the caller must `authenticate` again, which looks the token up.
 */
export interface UnconfirmedAuth {
  ok: true;
  principal: Principal;
  confirmed: Promise<boolean>;
}
