import { type Kysely, sql } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { IdentityDatabase } from '../identity/schema.js';

/**
 * oidc-provider's storage contract over one PostgreSQL table, so every gateway replica shares
 * the authorization server's clients, sessions, codes and refresh tokens. `onGrantDestroyed`
 * runs in the same call as the provider's grant deletion (a revoked refresh token, a logout),
 * so Quarry's own grant record is revoked before the revocation response goes out.
 */
export function postgresAdapterFactory(
  db: Kysely<IdentityDatabase>,
  onGrantDestroyed: (grantId: string) => Promise<void>,
): (model: string) => Adapter {
  const table = 'identity.oauth_provider_state' as const;
  return (model: string): Adapter => {
    async function findBy(column: 'id' | 'uid' | 'user_code', value: string): Promise<AdapterPayload | undefined> {
      const row = await db
        .selectFrom(table)
        .select(['payload', 'consumed_at'])
        .where('model', '=', model)
        .where(column, '=', value)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
        .executeTakeFirst();
      if (!row) return undefined;
      return { ...(row.payload as AdapterPayload), ...(row.consumed_at ? { consumed: true } : {}) };
    }
    return {
      async upsert(id: string, payload: AdapterPayload, expiresIn: number) {
        const row = {
          model,
          id,
          payload: JSON.stringify(payload),
          grant_id: payload.grantId ?? null,
          uid: payload.uid ?? null,
          user_code: payload.userCode ?? null,
          expires_at: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
        };
        await db
          .insertInto(table)
          .values(row)
          .onConflict((oc) =>
            oc.columns(['model', 'id']).doUpdateSet({
              payload: row.payload,
              grant_id: row.grant_id,
              uid: row.uid,
              user_code: row.user_code,
              expires_at: row.expires_at,
            }),
          )
          .execute();
      },
      find: (id: string) => findBy('id', id),
      findByUid: (uid: string) => findBy('uid', uid),
      findByUserCode: (userCode: string) => findBy('user_code', userCode),
      async consume(id: string) {
        await db
          .updateTable(table)
          .set({ consumed_at: sql`now()` })
          .where('model', '=', model)
          .where('id', '=', id)
          .execute();
      },
      async destroy(id: string) {
        await db.deleteFrom(table).where('model', '=', model).where('id', '=', id).execute();
        if (model === 'Grant') await onGrantDestroyed(id);
      },
      async revokeByGrantId(grantId: string) {
        await db.deleteFrom(table).where('model', '=', model).where('grant_id', '=', grantId).execute();
      },
    };
  };
}
