import { afterAll, describe, expect, it } from '@jest/globals';
import { appUrlFrom, createDatabaseIfMissing } from '@quarry/db';
import { dropRole, onCluster, uniqueName } from './support.js';

const clusterUrl = () => process.env.QUARRY_TEST_PG_URL!;
const urlOf = (database: string, base = clusterUrl()) =>
  Object.assign(new URL(base), { pathname: `/${database}` }).toString();
const created: string[] = [];
const roles: string[] = [];

afterAll(async () => {
  for (const name of created)
    await onCluster(clusterUrl(), (c) => c.query(`drop database if exists ${name} with (force)`));
  for (const role of roles) await dropRole(role);
});

const exists = (name: string) =>
  onCluster(
    clusterUrl(),
    async (c) => (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1,
  );

describe('createDatabaseIfMissing', () => {
  it('creates the database the admin URL names, once', async () => {
    const name = uniqueName('quarry_created');
    created.push(name);
    expect(await exists(name)).toBe(false);
    expect(await createDatabaseIfMissing(urlOf(name))).toEqual({ database: name, created: true });
    expect(await exists(name)).toBe(true);
    expect(await createDatabaseIfMissing(urlOf(name))).toEqual({ database: name, created: false });
  });

  it('tells a role that may not create databases what to do, and creates nothing', async () => {
    const role = uniqueName('no_createdb');
    roles.push(role);
    await onCluster(clusterUrl(), (c) => c.query(`create role ${role} login password 'pw-0123456789'`));
    const name = uniqueName('quarry_refused');
    const url = urlOf(name, appUrlFrom(clusterUrl(), role, 'pw-0123456789'));
    await expect(createDatabaseIfMissing(url)).rejects.toThrow(
      `Database "${name}" does not exist, and ${role} may not create databases: create it as a role that may (CREATE DATABASE "${name}" OWNER "${role}"), or grant ${role} CREATEDB, then run the command again.`,
    );
    expect(await exists(name)).toBe(false);
  });

  it('passes any other connection failure on as it is', async () => {
    const url = Object.assign(new URL(urlOf('quarry')), { port: '1' }).toString();
    await expect(createDatabaseIfMissing(url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
