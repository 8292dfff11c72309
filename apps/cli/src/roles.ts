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
  const app = env.QUARRY_APP_ROLE || APP_ROLE;
  const indexer = env.QUARRY_INDEXER_ROLE || INDEXER_ROLE;
  const wanted = [
    { variable: 'QUARRY_APP_ROLE_PASSWORD', secret: 'app-role', role: app, who: 'every request-serving service' },
    { variable: 'QUARRY_INDEXER_ROLE_PASSWORD', secret: 'indexer-role', role: indexer, who: 'the indexer' },
  ];
  const missing = wanted.filter(({ variable }) => !env[variable] && !generate);
  if (missing.length > 0) {
    throw new Error(
      missing
        .map(
          ({ variable, role, who }) => `${variable} must be set: the password of ${role}, the role ${who} connects as`,
        )
        .concat('migrate (re)creates both roles with these passwords; generate each with e.g. `openssl rand -hex 24`.')
        .join('\n'),
    );
  }
  const password = (variable: string, secret: string) => env[variable] || dir.secret(secret);
  return {
    app: { role: app, password: password('QUARRY_APP_ROLE_PASSWORD', 'app-role') },
    indexer: { role: indexer, password: password('QUARRY_INDEXER_ROLE_PASSWORD', 'indexer-role') },
  };
}
