import type { ServiceRoles } from '@quarry/system';
import { APP_ROLE, INDEXER_ROLE } from './migrations.js';
import type { DataDirectory } from './data-dir.js';

/**
 * The login roles' names and passwords: from QUARRY_APP_ROLE[_PASSWORD] and
 * QUARRY_INDEXER_ROLE[_PASSWORD], else (embedded PostgreSQL, `generate`) random secrets kept in
 * the data directory. Against an external database the passwords must be given.
 */
export function serviceRoles(
  env: Readonly<Record<string, string | undefined>>,
  dir: DataDirectory,
  { generate }: { generate: boolean },
): ServiceRoles {
  const password = (variable: string, secret: string): string => {
    const value = env[variable] || (generate ? dir.secret(secret) : undefined);
    if (!value) throw new Error(`${variable} must be set: migrate (re)creates the roles services connect as.`);
    return value;
  };
  return {
    app: { role: env.QUARRY_APP_ROLE || APP_ROLE, password: password('QUARRY_APP_ROLE_PASSWORD', 'app-role') },
    indexer: {
      role: env.QUARRY_INDEXER_ROLE || INDEXER_ROLE,
      password: password('QUARRY_INDEXER_ROLE_PASSWORD', 'indexer-role'),
    },
  };
}
