import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import { queryAuditLog } from '../src/records/audit-log.js';
import { toCsv } from '../src/records/csv.js';
import { orgUsage } from '../src/records/org-usage.js';
import { queryToolCalls } from '../src/records/tool-call-query.js';
import { type PeopleFixture, peopleFixture } from './people-fixtures.js';

// The admin pages' logs: filters, keyset pages, CSV export, per-org usage; admins only, and
// another organization's rows never appear.

let f: PeopleFixture;
beforeAll(async () => {
  f = await peopleFixture();
  const acme = await f.member('mia@acme.test', 'acme');
  const globex = await f.member('gus@globex.test', 'globex');
  // 120 calls in acme (every tenth an error, with a formula-looking code), 5 in globex.
  await sql`insert into gateway.mcp_tool_call_log (occurred_at, org_id, user_id, request_id, tool, duration_ms, outcome, error_code, argument_bytes, input_tokens, output_tokens)
    select now() - make_interval(secs => 121 - g), ${acme.orgId}, ${acme.userId}, 'r' || g, case when g % 2 = 0 then 'search' else 'fetch' end,
      g, case when g % 10 = 0 then 'tool_error' else 'ok' end, case when g % 10 = 0 then '=HYPERLINK("x")' end, 5, 10, 20
    from generate_series(1, 120) g`.execute(f.admin);
  await sql`insert into gateway.mcp_tool_call_log (occurred_at, org_id, user_id, request_id, tool, duration_ms, outcome, argument_bytes)
    select now(), ${globex.orgId}, ${globex.userId}, 'g' || g, 'search', 1, 'ok', 5 from generate_series(1, 5) g`.execute(
    f.admin,
  );
  for (const [event, email, org] of [
    ['sign_in', 'mia@acme.test', 'acme'],
    ['sign_in_failed', '@SUM(1+1)', 'acme'],
    ['sign_in', 'gus@globex.test', 'globex'],
  ] as const)
    await sql`insert into identity.auth_events (event, email, org_slug) values (${event}, ${email}, ${org})`.execute(
      f.admin,
    );
});
afterAll(async () => {
  await f?.close();
});

describe('tool-call log', () => {
  it('pages by keyset, newest first, without gaps or repeats, only in the org', async () => {
    const adam = await f.member('admin@acme.test', 'acme');
    const seen: string[] = [];
    let before: string | undefined;
    do {
      const page = await queryToolCalls(f.app, adam, { before, limit: 50 });
      seen.push(...page.rows.map((r) => r.requestId));
      before = page.before;
    } while (before);
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
    expect(seen[0]).toBe('r120');
    expect(seen.every((r) => r.startsWith('r'))).toBe(true);
  });

  it('filters by tool, outcome, email and time', async () => {
    const adam = await f.member('admin@acme.test', 'acme');
    const errors = await queryToolCalls(f.app, adam, { outcome: 'tool_error', tool: 'search', limit: 100 });
    expect(errors.rows).toHaveLength(12);
    expect(errors.rows.every((r) => r.tool === 'search' && r.email === 'mia@acme.test')).toBe(true);
    const recent = await queryToolCalls(f.app, adam, { from: new Date(Date.now() - 30_500), limit: 100 });
    expect(recent.rows.length).toBeGreaterThanOrEqual(29);
    expect(recent.rows.length).toBeLessThanOrEqual(31);
    expect((await queryToolCalls(f.app, adam, { email: 'gus@globex.test' })).rows).toEqual([]);
  });

  it('is for admins only', async () => {
    await expect(queryToolCalls(f.app, await f.member('mia@acme.test', 'acme'), {})).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
  });
});

describe('audit log', () => {
  it("lists the org's events, filtered, and never another org's", async () => {
    const adam = await f.member('admin@acme.test', 'acme');
    const all = await queryAuditLog(f.app, adam, {});
    expect(all.rows.map((r) => r.email)).toEqual(['@SUM(1+1)', 'mia@acme.test']);
    expect((await queryAuditLog(f.app, adam, { event: 'sign_in' })).rows.map((r) => r.email)).toEqual([
      'mia@acme.test',
    ]);
    const first = await queryAuditLog(f.app, adam, { limit: 1 });
    expect(first.before).toBeDefined();
    expect((await queryAuditLog(f.app, adam, { limit: 1, before: first.before })).rows[0]!.email).toBe('mia@acme.test');
    await expect(queryAuditLog(f.app, await f.member('mia@acme.test', 'acme'), {})).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
  });
});

describe('CSV export', () => {
  it('prefixes cells a spreadsheet would run as a formula', async () => {
    const adam = await f.member('admin@acme.test', 'acme');
    const audit = await queryAuditLog(f.app, adam, {});
    const csv = toCsv(audit.rows, ['id', 'event', 'email']);
    expect(csv.split('\n')[0]).toBe('id,event,email');
    expect(csv).toContain(`,sign_in_failed,'@SUM(1+1)`);
    const calls = await queryToolCalls(f.app, adam, { outcome: 'tool_error', limit: 1 });
    expect(toCsv(calls.rows, ['tool', 'errorCode'])).toContain(`"'=HYPERLINK(""x"")"`);
    expect(toCsv([{ a: '-1+2', b: '+x', c: 'plain', d: null }], ['a', 'b', 'c', 'd'])).toBe(
      "a,b,c,d\n'-1+2,'+x,plain,\n",
    );
  });
});

describe('usage', () => {
  it("counts the org's calls per tool and what it holds", async () => {
    const usage = await orgUsage(f.app, await f.member('owner@acme.test', 'acme'));
    expect(usage.members).toBe(3);
    const search = usage.byTool.find((t) => t.tool === 'search')!;
    expect(search).toMatchObject({ calls: 60, errors: 12, inputTokens: 600, outputTokens: 1200 });
    expect(usage.byTool.map((t) => t.tool).sort()).toEqual(['fetch', 'search']);
    expect((await orgUsage(f.app, await f.member('gus@globex.test', 'globex'))).byTool).toEqual([
      expect.objectContaining({ tool: 'search', calls: 5 }),
    ]);
  });
});
