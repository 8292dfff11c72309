import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { closeDb, createDb, sql } from '@quarry/db';
import { freshDatabase, sqlState, type FreshDatabase } from './support.js';

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
    const db = createDb({ connectionString: database.url, max: 1, applicationName: 'victim', onError: (e) => dropped(e) });
    try {
      await sql`select 1`.execute(db);
      await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'victim'`.execute(database.admin);
      expect((await reported).message).toMatch(/terminat/);
      expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
    } finally {
      await closeDb(db);
    }
  });
});
