import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

// A checkpoint pins an org's chain: "after `entries` entries its head was `headHash`", signed
// with Ed25519 by the plan engine, whose private key the database never holds. Anyone with the
// public key can check it; without the private key nobody can make a new one.

export interface CheckpointClaim {
  readonly orgId: string;
  /** Entries covered: the chain_seq of the head (purged entries included). */
  readonly entries: number;
  readonly headHash: string;
  /** ISO 8601 with milliseconds, UTC (`Date#toISOString`). */
  readonly signedAt: string;
}

export interface SignedCheckpoint extends CheckpointClaim {
  /** SHA-256 (hex) of the signer's public key (SPKI DER). */
  readonly keyId: string;
  /** Ed25519 signature of `checkpointPayload`, base64url. */
  readonly signature: string;
}

/** The bytes that are signed. */
function checkpointPayload(claim: CheckpointClaim): Buffer {
  return Buffer.from(
    ['quarry.audit.checkpoint.v1', claim.orgId, String(claim.entries), claim.headHash, claim.signedAt].join('\n'),
    'utf8',
  );
}

/** The key id of an Ed25519 key (from its private or public half). */
export function auditKeyId(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

/** Throws unless `key` is an Ed25519 key of the expected type. */
export function assertEd25519(key: KeyObject, type: 'private' | 'public'): void {
  if (key.asymmetricKeyType !== 'ed25519' || key.type !== type)
    throw new TypeError(
      `the audit ${type} key must be an Ed25519 ${type} key, got ${key.asymmetricKeyType ?? key.type}`,
    );
}

export function signCheckpoint(privateKey: KeyObject, claim: CheckpointClaim): SignedCheckpoint {
  assertEd25519(privateKey, 'private');
  return {
    ...claim,
    keyId: auditKeyId(privateKey),
    signature: sign(null, checkpointPayload(claim), privateKey).toString('base64url'),
  };
}

/** Why `checkpoint` does not check out against `publicKey`, or undefined when it does. */
export function checkpointSignatureProblem(publicKey: KeyObject, checkpoint: SignedCheckpoint): string | undefined {
  if (checkpoint.keyId !== auditKeyId(publicKey)) return `signed by another key (${checkpoint.keyId.slice(0, 16)}…)`;
  const signature = Buffer.from(checkpoint.signature, 'base64url');
  return verify(null, checkpointPayload(checkpoint), publicKey, signature) ? undefined : 'signature does not verify';
}
