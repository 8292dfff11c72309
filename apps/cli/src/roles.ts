import type { RoleLogins, ServiceRoles } from '@quarry/system';
import { APP_ROLE, INDEXER_ROLE } from './migrations.js';
import type { DataDirectory } from './data-dir.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The two login roles, the variable that gives each one's password, and who connects as it. */
function wantedRoles(env: Env) {
  return {
    app: {
      role: env.QUARRY_APP_ROLE || APP_ROLE,
      variable: 'QUARRY_APP_ROLE_PASSWORD',
      secret: 'app-role',
      who: 'every request-serving service',
    },
    indexer: {
      role: env.QUARRY_INDEXER_ROLE || INDEXER_ROLE,
      variable: 'QUARRY_INDEXER_ROLE_PASSWORD',
      secret: 'indexer-role',
      who: 'the indexer',
    },
  };
}

function refuseMissing(missing: ReadonlyArray<{ variable: string; role: string; who: string }>, why: string): void {
  if (missing.length === 0) return;
  throw new Error(
    missing
      .map(({ variable, role, who }) => `${variable} must be set: the password of ${role}, the role ${who} connects as`)
      .concat(why)
      .join('\n'),
  );
}

/**
 * The login roles' names and passwords as `quarry start` runs them: QUARRY_APP_ROLE[_PASSWORD]
 * and QUARRY_INDEXER_ROLE[_PASSWORD], else random secrets kept in the data directory.
 */
export function serviceRoles(env: Env, dir: DataDirectory): ServiceRoles {
  const wanted = wantedRoles(env);
  const password = (w: { variable: string; secret: string }) => env[w.variable] || dir.secret(w.secret);
  return {
    app: { role: wanted.app.role, password: password(wanted.app) },
    indexer: { role: wanted.indexer.role, password: password(wanted.indexer) },
  };
}

/**
 * The roles as `quarry migrate` provisions them: a role that exists keeps its password, so its
 * password is needed only to create it, or with `rotate` to change it; embedded PostgreSQL
 * (`generate`) uses the data directory's secrets as `quarry start` does.
 */
export function migrationRoles(
  env: Env,
  dir: DataDirectory,
  { generate, rotate, existing }: { generate: boolean; rotate: boolean; existing: ReadonlySet<string> },
): RoleLogins {
  if (generate) return serviceRoles(env, dir);
  const wanted = wantedRoles(env);
  refuseMissing(
    Object.values(wanted).filter(({ variable, role }) => !env[variable] && (rotate || !existing.has(role))),
    rotate
      ? '--rotate-role-passwords sets these passwords on both roles; generate each with e.g. `openssl rand -hex 24`.'
      : 'migrate creates the roles that do not exist yet with these passwords (a role that exists keeps its own); ' +
          'generate each with e.g. `openssl rand -hex 24`.',
  );
  const password = (variable: string) => env[variable] || undefined;
  return {
    app: { role: wanted.app.role, password: password(wanted.app.variable) },
    indexer: { role: wanted.indexer.role, password: password(wanted.indexer.variable) },
  };
}
