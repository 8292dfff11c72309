import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The embedded default's data directory; see dataDirectory. */
export interface DataDirectory {
  /** Its absolute path. */
  root: string;
  /** The embedded PostgreSQL cluster. */
  postgres: string;
  /** The first-start token (0600). */
  devTokenFile: string;
  /** Create the directory (0711) if it does not exist. */
  create(): void;
  /** A random secret created once and reused on every later start. */
  secret(name: string, bytes?: number): string;
  /** Write a file only its owner may read (0600). */
  writePrivate(name: string, content: string): void;
  /** The audit checkpoints' Ed25519 key pair, created once: the private key's file (0600). */
  auditSigningKeyFile(): string;
  /** Where its public key is (written with it), for `quarry audit verify`. */
  auditPublicKeyFile: string;
}

/**
 * `.quarry/` (or QUARRY_DATA_DIR) holds everything the embedded default keeps between runs: the
 * PostgreSQL cluster, generated secrets, the first-start token and the embedded search indexes.
 * Naming it touches nothing: the directory is created by the first write into it, so a command
 * against an external database (DATABASE_ADMIN_URL) leaves the working directory alone.
 * Secrets are written 0600 and never printed.
 */
export function dataDirectory(env: Readonly<Record<string, string | undefined>> = process.env): DataDirectory {
  const root = resolve(env.QUARRY_DATA_DIR ?? join(process.cwd(), '.quarry'));
  const path = (name: string) => join(root, name);

  /** Create the directory; 0711: the embedded PostgreSQL server runs as an unprivileged OS user and must traverse it. */
  function create(): void {
    mkdirSync(root, { recursive: true, mode: 0o711 });
  }

  function writePrivate(name: string, content: string) {
    create();
    writeFileSync(path(name), content, { mode: 0o600 });
    chmodSync(path(name), 0o600);
  }

  return {
    root,
    postgres: path('postgres'),
    devTokenFile: path('dev-token'),
    create,
    secret(name: string, bytes = 32): string {
      const file = path(`${name}.secret`);
      if (existsSync(file)) return readFileSync(file, 'utf8').trim();
      const value = randomBytes(bytes).toString('base64url');
      writePrivate(`${name}.secret`, `${value}\n`);
      return value;
    },
    writePrivate,
    auditSigningKeyFile(): string {
      const file = path(AUDIT_SIGNING_KEY);
      if (existsSync(file)) return file;
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      create();
      writeFileSync(path(AUDIT_PUBLIC_KEY), publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644 });
      writePrivate(AUDIT_SIGNING_KEY, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
      return file;
    },
    auditPublicKeyFile: path(AUDIT_PUBLIC_KEY),
  };
}

const AUDIT_SIGNING_KEY = 'audit-signing-key.pem';
const AUDIT_PUBLIC_KEY = 'audit-public-key.pem';
