import { type AnyDb, sql, withTenant } from '@quarry/db';

// The operator's side of per-org quotas (docs/adr/0061-per-org-quotas.md): each quota lives with
// the service that enforces it, so setting one writes that service's table, and showing them reads
// each limit and its current use there. Every statement names the org (an admin connection may
// be a superuser, which row-level security does not hold) and runs under its tenancy too (for an
// owner that is not one: the tables force row-level security on their owner).

/** Every quota, the service that enforces it, and its unit. */
export const QUOTAS = {
  storage_bytes: { service: 'artifact-store', env: 'QUOTA_STORAGE_BYTES', unit: 'bytes' },
  artifacts: { service: 'artifact-store', env: 'QUOTA_ARTIFACTS', unit: 'artifacts and outputs' },
  'calls_per_minute.read': { service: 'gateway', env: 'QUOTA_CALLS_PER_MINUTE_READ', unit: 'calls a minute' },
  'calls_per_minute.write': { service: 'gateway', env: 'QUOTA_CALLS_PER_MINUTE_WRITE', unit: 'calls a minute' },
  'calls_per_minute.search': { service: 'gateway', env: 'QUOTA_CALLS_PER_MINUTE_SEARCH', unit: 'calls a minute' },
  'calls_per_minute.model': { service: 'gateway', env: 'QUOTA_CALLS_PER_MINUTE_MODEL', unit: 'calls a minute' },
  extractions_per_day: { service: 'extraction', env: 'QUOTA_EXTRACTIONS_PER_DAY', unit: 'extractions a UTC day' },
  model_tokens_per_day: { service: 'extraction', env: 'QUOTA_MODEL_TOKENS_PER_DAY', unit: 'tokens a UTC day' },
} as const;

export type QuotaName = keyof typeof QUOTAS;

/** A limit to set: a number, or null for the service's default. */
export type QuotaChanges = Partial<Record<QuotaName, number | null>>;

/** The org's id by its slug; an unknown slug is an error naming it. */
export async function orgIdOf(db: AnyDb, slug: string): Promise<string> {
  const { rows } = await sql<{ id: string }>`select id from identity.organizations where slug = ${slug}`.execute(db);
  if (!rows[0]) throw new Error(`No organization "${slug}".`);
  return rows[0].id;
}

/** Sets (or, with null, clears) the org's own limits, each in its service's table, in one transaction. */
export async function setQuotas(db: AnyDb, orgId: string, changes: QuotaChanges): Promise<void> {
  const has = (name: QuotaName) => Object.hasOwn(changes, name);
  await withTenant(db, { orgId }, async (trx) => {
    if (has('storage_bytes') || has('artifacts')) {
      await sql`insert into artifact.org_quotas (org_id) values (${orgId}) on conflict (org_id) do nothing`.execute(
        trx,
      );
      if (has('storage_bytes'))
        await sql`update artifact.org_quotas set storage_bytes = ${changes.storage_bytes}, updated_at = now() where org_id = ${orgId}`.execute(
          trx,
        );
      if (has('artifacts'))
        await sql`update artifact.org_quotas set artifacts = ${changes.artifacts}, updated_at = now() where org_id = ${orgId}`.execute(
          trx,
        );
    }
    for (const toolClass of ['read', 'write', 'search', 'model'] as const) {
      const name = `calls_per_minute.${toolClass}` as const;
      if (!has(name)) continue;
      const limit = changes[name];
      if (limit === null)
        await sql`delete from gateway.org_call_quotas where org_id = ${orgId} and tool_class = ${toolClass}`.execute(
          trx,
        );
      else
        await sql`insert into gateway.org_call_quotas (org_id, tool_class, calls_per_minute) values (${orgId}, ${toolClass}, ${limit})
                  on conflict (org_id, tool_class) do update set calls_per_minute = excluded.calls_per_minute, updated_at = now()`.execute(
          trx,
        );
    }
    if (has('extractions_per_day') || has('model_tokens_per_day')) {
      await sql`insert into extraction.org_quotas (org_id) values (${orgId}) on conflict (org_id) do nothing`.execute(
        trx,
      );
      if (has('extractions_per_day'))
        await sql`update extraction.org_quotas set extractions_per_day = ${changes.extractions_per_day}, updated_at = now() where org_id = ${orgId}`.execute(
          trx,
        );
      if (has('model_tokens_per_day'))
        await sql`update extraction.org_quotas set model_tokens_per_day = ${changes.model_tokens_per_day}, updated_at = now() where org_id = ${orgId}`.execute(
          trx,
        );
    }
  });
}

/** One quota of an org as `quarry quota show` prints it. */
export interface QuotaRow {
  quota: QuotaName;
  limit: number | undefined;
  /** `org`: set for this org; `default`: the services' default as the environment gives it; `none`: no limit. */
  source: 'org' | 'default' | 'none';
  used: number;
  resets: string;
}

/** Each quota of the org: its limit (the org's own, else the default in `env`), what is used and when it resets. */
export async function showQuotas(
  db: AnyDb,
  orgId: string,
  env: Readonly<Record<string, string | undefined>>,
  now = new Date(),
): Promise<QuotaRow[]> {
  return withTenant(db, { orgId }, async (trx) => {
    const one = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(trx)).rows[0];
    const storage = await one(sql<{ storage_bytes: string | null; artifacts: string | null }>`
      select storage_bytes, artifacts from artifact.org_quotas where org_id = ${orgId}`);
    const stored = await one(sql<{ stored_bytes: string; artifacts: string }>`
      select stored_bytes, artifacts from artifact.org_usage where org_id = ${orgId}`);
    const { rows: calls } = await sql<{ tool_class: string; calls_per_minute: number }>`
      select tool_class, calls_per_minute from gateway.org_call_quotas where org_id = ${orgId}`.execute(trx);
    const day = now.toISOString().slice(0, 10);
    const spend = await one(sql<{ extractions: number; model_tokens: string }>`
      select extractions, model_tokens from extraction.org_daily_usage where org_id = ${orgId} and day = ${day}`);
    const daily = await one(sql<{ extractions_per_day: number | null; model_tokens_per_day: string | null }>`
      select extractions_per_day, model_tokens_per_day from extraction.org_quotas where org_id = ${orgId}`);
    const { rows: windows } = await sql<{ key: string; points: number; expire: string }>`
      select key, points, expire from gateway.call_rates where key like ${`calls:${orgId}:%`} and expire > ${now.getTime()}`.execute(
      trx,
    );
    const midnight = new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString();
    const own: Record<QuotaName, string | number | null | undefined> = {
      storage_bytes: storage?.storage_bytes,
      artifacts: storage?.artifacts,
      'calls_per_minute.read': calls.find((c) => c.tool_class === 'read')?.calls_per_minute,
      'calls_per_minute.write': calls.find((c) => c.tool_class === 'write')?.calls_per_minute,
      'calls_per_minute.search': calls.find((c) => c.tool_class === 'search')?.calls_per_minute,
      'calls_per_minute.model': calls.find((c) => c.tool_class === 'model')?.calls_per_minute,
      extractions_per_day: daily?.extractions_per_day,
      model_tokens_per_day: daily?.model_tokens_per_day,
    };
    const window = (toolClass: string) => windows.find((w) => w.key === `calls:${orgId}:${toolClass}`);
    const usage = (name: QuotaName): { used: number; resets: string } => {
      if (name === 'storage_bytes')
        return { used: Number(stored?.stored_bytes ?? 0), resets: 'when content is deleted' };
      if (name === 'artifacts') return { used: Number(stored?.artifacts ?? 0), resets: 'when content is deleted' };
      if (name === 'extractions_per_day') return { used: spend?.extractions ?? 0, resets: midnight };
      if (name === 'model_tokens_per_day') return { used: Number(spend?.model_tokens ?? 0), resets: midnight };
      const w = window(name.split('.')[1]!);
      return { used: w?.points ?? 0, resets: w ? new Date(Number(w.expire)).toISOString() : 'at its first call' };
    };
    return (Object.keys(QUOTAS) as QuotaName[]).map((quota) => {
      const mine = own[quota];
      const fallback = env[QUOTAS[quota].env];
      const limit = mine !== null && mine !== undefined ? Number(mine) : fallback ? Number(fallback) : undefined;
      const source = mine !== null && mine !== undefined ? 'org' : fallback ? 'default' : 'none';
      return { quota, limit, source, ...usage(quota) };
    });
  });
}
