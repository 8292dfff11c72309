import { hash, verify } from '@node-rs/argon2';

/** Argon2id with OWASP's minimum memory-hard parameters (19 MiB, 2 passes, 1 lane). */
const PARAMS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** The PHC string stored for a password; argon2id is the library's default algorithm. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

/**
 * Whether `password` matches the stored hash. Without a stored hash, a dummy hash is still
 * checked, so an unknown email takes as long as a wrong password.
 */
export async function verifyPassword(stored: string | undefined, password: string): Promise<boolean> {
  const ok = await verify(stored ?? (await dummyHash()), password).catch(() => false);
  return stored !== undefined && ok;
}

let dummy: Promise<string> | undefined;
const dummyHash = () => (dummy ??= hashPassword('quarry-no-such-user'));

/** The shortest password `quarry user passwd` accepts. */
export const MIN_PASSWORD_LENGTH = 12;
