import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { closeDb, createDb, isConnectionFailure, sql } from '@quarry/db';
import { freshDatabase, sqlState, until, type FreshDatabase } from './support.js';

let database: FreshDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => database.drop());

describe('createDb', () => {
  it('names its connections and caps statements at 30 s by default', async () => {
    const db = createDb({ connectionString: database.url, applicationName: 'plan-engine' });
    try {
      const { rows } = await sql<{ app: string; timeout: string; idle: string }>`
        select current_setting('application_name') as app, current_setting('statement_timeout') as timeout,
               current_setting('idle_in_transaction_session_timeout') as idle`.execute(db);
      expect(rows).toEqual([{ app: 'plan-engine', timeout: '30s', idle: '1min' }]);
    } finally {
      await closeDb(db);
    }
  });

  it('cancels a statement that runs longer than statementTimeoutMs', async () => {
    const db = createDb({ connectionString: database.url, statementTimeoutMs: 50 });
    try {
      expect(await sqlState(sql`select pg_sleep(2)`.execute(db))).toBe('57014'); // query_canceled
      expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
    } finally {
      await closeDb(db);
    }
  });

  it('reports, and survives, the server dropping an idle pooled connection', async () => {
    let dropped: (error: Error) => void = () => undefined;
    const reported = new Promise<Error>((resolve) => (dropped = resolve));
    const db = createDb({
      connectionString: database.url,
      max: 1,
      applicationName: 'victim',
      onError: (e) => dropped(e),
    });
    try {
      await sql`select 1`.execute(db);
      await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'victim'`.execute(
        database.admin,
      );
      expect((await reported).message).toMatch(/terminat/);
      expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
    } finally {
      await closeDb(db);
    }
  });

  // A server restart or failover under load drops connections that are checked out (inside a
  // transaction, between two statements): the pool does not watch those, and pg's client
  // emits 'error' when its socket ends — unheard, that crashes the process.
  it('reports, and survives, the server dropping a connection that is checked out', async () => {
    const reports: Error[] = [];
    const db = createDb({
      connectionString: database.url,
      max: 1,
      applicationName: 'checked-out',
      onError: (e) => reports.push(e),
    });
    const uncaught: Error[] = [];
    const onUncaught = (error: Error) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const failure = await sqlState(
        db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'checked-out'`.execute(
            database.admin,
          );
          // The socket's end arrives while this transaction holds the connection without a statement running.
          await until(() => reports.length > 0);
          await sql`select 1`.execute(trx);
        }),
      );
      expect(failure).not.toBe('no error');
      expect(reports.map((e) => e.message).join('; ')).toMatch(/terminat/i);
      // The dead connection went back to the pool and was discarded: the next statement gets a new one.
      expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await closeDb(db);
    }
  });
});

describe('isConnectionFailure', () => {
  async function failureOf(promise: Promise<unknown>): Promise<unknown> {
    try {
      await promise;
    } catch (error) {
      return error;
    }
    throw new Error('expected a failure');
  }

  it('is true when the server cannot be reached or drops the connection', async () => {
    const unreachable = createDb({ connectionString: 'postgres://nobody:x@127.0.0.1:1/none' });
    try {
      expect(isConnectionFailure(await failureOf(sql`select 1`.execute(unreachable)))).toBe(true);
    } finally {
      await closeDb(unreachable);
    }
    const db = createDb({ connectionString: database.url, max: 1, applicationName: 'dropped' });
    try {
      await sql`select 1`.execute(db);
      const dropped = await failureOf(
        db.transaction().execute(async (trx) => {
          await sql`select pg_terminate_backend(pg_backend_pid())`.execute(trx);
        }),
      );
      expect(isConnectionFailure(dropped)).toBe(true);
      // Wrapped by a caller, it is still recognised.
      expect(isConnectionFailure(new Error('could not load the plan', { cause: dropped }))).toBe(true);
    } finally {
      await closeDb(db);
    }
  });

  it('is false for a statement that is wrong, slow or refused', async () => {
    const db = createDb({ connectionString: database.url, statementTimeoutMs: 50 });
    try {
      expect(isConnectionFailure(await failureOf(sql`selec 1`.execute(db)))).toBe(false); // 42601
      expect(isConnectionFailure(await failureOf(sql`select pg_sleep(2)`.execute(db)))).toBe(false); // 57014
      expect(isConnectionFailure(await failureOf(sql`select 1 / 0`.execute(db)))).toBe(false); // 22012
      expect(isConnectionFailure(new Error('Plan not found'))).toBe(false);
      expect(isConnectionFailure('ECONNREFUSED')).toBe(false);
      expect(isConnectionFailure(undefined)).toBe(false);
    } finally {
      await closeDb(db);
    }
  });
});
