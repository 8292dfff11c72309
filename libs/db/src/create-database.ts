import pg from 'pg';

/** SQLSTATEs: the database does not exist; it already exists; the role may not do this. */
const NO_SUCH_DATABASE = '3D000';
const DUPLICATE_DATABASE = '42P04';
const INSUFFICIENT_PRIVILEGE = '42501';

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, application_name: 'quarry-create-database' });
  try {
    await client.connect();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === NO_SUCH_DATABASE) return false;
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Create the database `adminUrl` names unless it exists, connected with the same credentials to
 * the server's maintenance database (`postgres`, else `template1`). Returns whether it was
 * created. A role that may not create databases gets an error that says what to do instead.
 * The owner is the connecting (admin) role, which then creates the schemas in it.
 */
export async function createDatabaseIfMissing(adminUrl: string): Promise<{ database: string; created: boolean }> {
  const url = new URL(adminUrl);
  const database = decodeURIComponent(url.pathname.slice(1)) || decodeURIComponent(url.username);
  if (await canConnect(adminUrl)) return { database, created: false };
  let lastError: unknown;
  for (const maintenance of ['postgres', 'template1']) {
    url.pathname = `/${maintenance}`;
    const client = new pg.Client({ connectionString: url.toString(), application_name: 'quarry-create-database' });
    try {
      await client.connect();
    } catch (error) {
      lastError = error;
      if ((error as { code?: string }).code === NO_SUCH_DATABASE) continue;
      throw error;
    }
    try {
      await client.query(`create database ${client.escapeIdentifier(database)}`);
      return { database, created: true };
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === DUPLICATE_DATABASE) return { database, created: false };
      if (code === INSUFFICIENT_PRIVILEGE) {
        const role = decodeURIComponent(url.username) || 'the admin role';
        throw new Error(
          `Database "${database}" does not exist, and ${role} may not create databases: create it as a role that may ` +
            `(CREATE DATABASE "${database}" OWNER "${role}"), or grant ${role} CREATEDB, then run the command again.`,
          { cause: error },
        );
      }
      throw error;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  throw lastError;
}

/**
 * Which of the login roles `names` exist on the server `adminUrl` points at (roles are
 * server-wide), asked of the database it names or, when that does not exist yet, of a
 * maintenance database: `quarry migrate` asks before creating anything.
 */
export async function existingRoles(adminUrl: string, names: readonly string[]): Promise<Set<string>> {
  const url = new URL(adminUrl);
  let lastError: unknown;
  for (const database of [undefined, 'postgres', 'template1']) {
    if (database) url.pathname = `/${database}`;
    const client = new pg.Client({ connectionString: url.toString(), application_name: 'quarry-migrate' });
    try {
      await client.connect();
      const { rows } = await client.query<{ rolname: string }>(
        'select rolname from pg_roles where rolname = any($1::text[])',
        [names],
      );
      return new Set(rows.map((r) => r.rolname));
    } catch (error) {
      lastError = error;
      if ((error as { code?: string }).code !== NO_SUCH_DATABASE) throw error;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  throw lastError;
}
