import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { assertEd25519 } from './core/audit-checkpoint.js';

/** The checkpoint signing key from a PKCS#8 PEM file; throws, naming the file, unless it holds an Ed25519 private key. */
export function readAuditSigningKey(path: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read an audit signing key from ${path} (${(error as Error).message})`, { cause: error });
  }
  assertEd25519(key, 'private');
  return key;
}
