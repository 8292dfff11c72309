import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { IdentityDatabase } from '@quarry/gateway';
import type { Kysely } from 'kysely';
import { expectInertPage } from './web-inert.js';
import { startLibraryFixture } from './web-library-fixture.js';

// The web app's library pages (/app/plans, a plan, its actions, reviews) on the gateway alone
// over stub services, with inject(): what each page asks the tools with the person's principal,
// that every form needs its token and each destructive action its confirmation, and that another
// org's id is answered exactly like a missing one on every page.

let fixture: Awaited<ReturnType<typeof startLibraryFixture>>;
beforeAll(async () => {
  fixture = await startLibraryFixture();
}, 120_000);
afterAll(async () => {
  await fixture?.gateway.close();
});

describe('the library pages', () => {
  it('lists plans with the filters passed to list_plans, and archived ones only on request', async () => {
    const { ids, get, callsOf, signIn } = fixture;
    const { cookie } = await signIn('ada@acme.test');
    const all = await get('/app/plans', cookie);
    expect(all.statusCode).toBe(200);
    expect(all.body).toContain(`<a href="/app/plans/${ids.plan}">Lithium &lt;b&gt;supply&lt;/b&gt;</a>`);
    expect(all.body).not.toContain('Rival plan');
    const filtered = await get('/app/plans?q=lithium&status=awaiting_review&since=2026-03-01&archived=1', cookie);
    expect(filtered.statusCode).toBe(200);
    expect(callsOf('list_plans').at(-1)?.request).toMatchObject({
      query: 'lithium',
      status: 'PLAN_STATUS_AWAITING_REVIEW',
      updatedSince: '2026-03-01T00:00:00Z',
      includeArchived: true,
    });
    // A filter that is no status or no day is left out, not passed on.
    await get('/app/plans?status=nonsense&since=yesterday', cookie);
    expect(callsOf('list_plans').at(-1)?.request).not.toHaveProperty('status');
    expect(callsOf('list_plans').at(-1)?.request).not.toHaveProperty('updatedSince');
    expect((await get('/app/plans?status=completed', cookie)).body).toContain('No plans match.');
  });

  it("shows a plan's steps, results, confidence, reviews, artifacts, deliverables and timeline, and serves its live part", async () => {
    const { ids, get, callsOf, signIn } = fixture;
    const { cookie } = await signIn('ada@acme.test');
    const page = await get(`/app/plans/${ids.plan}`, cookie);
    expect(page.statusCode).toBe(200);
    for (const shown of [
      'Find the sources.',
      'confidence 0.8',
      '&lt;script&gt;alert(\\&quot;result\\&quot;)&lt;/script&gt;',
      'Twelve sources found; two are &lt;script&gt;paywalled&lt;/script&gt;.',
      'Keep the paywalled ones?',
      `href="/app/artifacts/${ids.artifact}"`,
      `href="/app/outputs/${ids.docx}"`,
      'Timeline',
      'user reviewed',
      'action review requested',
    ])
      expect(page.body).toContain(shown);
    expect(page.body).toContain('<script type="module" src="/app/assets/plan-live.js"></script>');
    expectInertPage(page.body);

    const version = /data-version="([^"]+)"/.exec(page.body)![1]!;
    const same = await get(`/app/plans/${ids.plan}/live?v=${version}`, cookie);
    expect(same.statusCode).toBe(204);
    // The live read waits for a change with get_plan_status' waitSeconds.
    expect(callsOf('get_plan_status').at(-1)?.request).toMatchObject({ waitSeconds: 25 });
    const stale = await get(`/app/plans/${ids.plan}/live?v=old`, cookie);
    expect(stale.statusCode).toBe(200);
    expect(stale.headers['x-plan-version']).toBe(version);
    expect(page.body).toContain(stale.body);
  });

  it('refuses every action without its form token or confirmation, and acts through the tools with one', async () => {
    const { ids, library, get, post, callsOf, signIn } = fixture;
    const { cookie, csrf } = await signIn('ada@acme.test');
    const archive = `/app/plans/${ids.plan}/archive`;
    expect((await post(archive, cookie, { confirmed: '1' })).statusCode).toBe(403);
    expect((await post(archive, cookie, { confirmed: '1', csrf: 'forged' })).statusCode).toBe(403);
    expect((await post(archive, cookie, { confirmed: '1', csrf }, { origin: 'https://evil.example' })).statusCode).toBe(
      403,
    );
    expect(callsOf('archive_plan')).toHaveLength(0);
    // Without the confirmation page's field, the POST leads to that page.
    const unconfirmed = await post(archive, cookie, { csrf });
    expect([unconfirmed.statusCode, unconfirmed.headers.location]).toEqual([
      303,
      `/app/plans/${ids.plan}/confirm/archive`,
    ]);
    const confirm = await get(unconfirmed.headers.location!, cookie);
    expect(confirm.body).toContain('Archive this plan?');
    expect(confirm.body).toContain(`action="/app/plans/${ids.plan}/archive"`);
    const done = await post(archive, cookie, { csrf, confirmed: '1' });
    expect([done.statusCode, done.headers.location]).toEqual([303, `/app/plans/${ids.plan}?done=archived`]);
    expect(library.isArchived(ids.plan)).toBe(true);
    expect(callsOf('archive_plan').at(-1)?.principal.orgId).toBe(ids.acme);
    expect((await get('/app/plans', cookie)).body).not.toContain(`/app/plans/${ids.plan}"`);
    expect((await get('/app/plans?archived=1', cookie)).body).toContain(`/app/plans/${ids.plan}"`);
    expect((await post(`/app/plans/${ids.plan}/unarchive`, cookie, { csrf })).statusCode).toBe(303);
    expect(library.isArchived(ids.plan)).toBe(false);
    expect(
      (await post('/app/reviews/decide', cookie, { planId: ids.plan, stepId: randomUUID(), decision: 'approve' }))
        .statusCode,
    ).toBe(403);
    expect(callsOf('submit_user_decision')).toHaveLength(0);
  });

  it('answers another org’s id on every page exactly like a missing one', async () => {
    const { ids, records, get, post, signIn } = fixture;
    const { cookie, csrf } = await signIn('ada@acme.test');
    const missing = await get(`/app/artifacts/${randomUUID()}`, cookie);
    expect(missing.statusCode).toBe(404);
    const gets = [
      `/app/plans/${ids.rivalPlan}`,
      `/app/plans/${ids.rivalPlan}/live?v=x`,
      `/app/plans/${ids.rivalPlan}/confirm/delete`,
      `/app/artifacts/${ids.rivalArtifact}`,
      `/app/outputs/${ids.rivalOutput}`,
      `/app/outputs/${ids.rivalOutput}/download`,
      `/app/extractions/${ids.extraction}`,
      `/app/plans/${randomUUID()}`,
      '/app/plans/not-an-id',
      `/app/outputs/${randomUUID()}/download`,
    ];
    for (const url of gets) {
      const answer = await get(url, cookie);
      expect([url, answer.statusCode, answer.body]).toEqual([url, 404, missing.body]);
    }
    const posts: [string, Record<string, string>][] = [
      [`/app/plans/${ids.rivalPlan}/delete`, { csrf, confirmed: '1' }],
      [`/app/plans/${ids.rivalPlan}/cancel`, { csrf, confirmed: '1', reason: 'x' }],
      [`/app/artifacts/${ids.rivalArtifact}/tags`, { csrf, add: 'mine' }],
      ['/app/reviews/decide', { csrf, planId: ids.rivalPlan, stepId: randomUUID(), decision: 'approve' }],
    ];
    for (const [url, form] of posts) {
      const answer = await post(url, cookie, form);
      expect([url, answer.statusCode, answer.body]).toEqual([url, 404, missing.body]);
    }
    expect(records.plans.some((p) => p.planId === ids.rivalPlan)).toBe(true);
  });

  it('takes review decisions with submit_user_decision, its refusals said on the page', async () => {
    const { ids, records, get, post, callsOf, signIn, gateway } = fixture;
    const { cookie, csrf } = await signIn('ada@acme.test');
    const queue = await get('/app/reviews', cookie);
    expect(queue.statusCode).toBe(200);
    expect(queue.body).toContain('Keep the paywalled ones?');
    expectInertPage(queue.body);
    const step = records.plans.find((p) => p.planId === ids.plan)!.steps[1]!;
    const decide = (form: Record<string, string>) =>
      post('/app/reviews/decide', cookie, { csrf, planId: ids.plan, stepId: step.stepId, ...form });
    const refused = await decide({ decision: 'modify', feedback: '  ' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('feedback: say what to change');
    expect(step.status).toBe('awaiting_input');
    const approved = await decide({ decision: 'approve', feedback: 'Keep them.', back: 'plan' });
    expect([approved.statusCode, approved.headers.location]).toEqual([303, `/app/plans/${ids.plan}?decided=1`]);
    expect(step.status).toBe('completed');
    expect(callsOf('submit_user_decision').at(-1)).toMatchObject({
      request: { planId: ids.plan, stepId: step.stepId, decision: 'REVIEW_DECISION_APPROVE', feedback: 'Keep them.' },
      principal: { orgId: ids.acme, email: 'ada@acme.test' },
    });
    expect((await get('/app/reviews', cookie)).body).toContain('Nothing is waiting for your review.');
    // Recorded as a tool call of the person, under the browser session, like a client's.
    await gateway.runtime.flushToolCallLog();
    const row = await (gateway.database.admin as Kysely<IdentityDatabase>)
      .selectFrom('gateway.mcp_tool_call_log')
      .select(['tool', 'outcome', 'token_id'])
      .where('tool', '=', 'submit_user_decision')
      .where('outcome', '=', 'ok')
      .executeTakeFirstOrThrow();
    expect(row.token_id).toBe(callsOf('submit_user_decision').at(-1)!.principal.tokenId);
  });

  it('cancels and deletes a plan only after its confirmation page', async () => {
    const { ids, records, get, post, callsOf, signIn } = fixture;
    const { cookie, csrf } = await signIn('ada@acme.test');
    const plan = records.addPlan(ids.acme, { name: 'Short-lived' });
    const confirm = await get(`/app/plans/${plan.planId}/confirm/cancel`, cookie);
    expect(confirm.body).toContain('<textarea id="reason" name="reason" required');
    expect(
      (await post(`/app/plans/${plan.planId}/cancel`, cookie, { csrf, confirmed: '1', reason: 'Not needed.' }))
        .statusCode,
    ).toBe(303);
    expect(plan.status).toBe('cancelled');
    expect(callsOf('cancel_plan').at(-1)?.request).toMatchObject({ reason: 'Not needed.' });
    const deleted = await post(`/app/plans/${plan.planId}/delete`, cookie, { csrf, confirmed: '1' });
    expect([deleted.statusCode, deleted.headers.location]).toEqual([303, '/app/plans?deleted=1']);
    expect((await get(`/app/plans/${plan.planId}`, cookie)).statusCode).toBe(404);
  });

  it("changes an artifact's tags with update_artifact_tags, and searches by tag", async () => {
    const { ids, records, get, post, callsOf, signIn } = fixture;
    const { cookie, csrf } = await signIn('ada@acme.test');
    const changed = await post(`/app/artifacts/${ids.artifact}/tags`, cookie, {
      csrf,
      add: 'battery, supply chain',
      remove: 'lithium',
    });
    expect([changed.statusCode, changed.headers.location]).toEqual([303, `/app/artifacts/${ids.artifact}`]);
    expect(callsOf('update_artifact_tags').at(-1)?.request).toEqual({
      id: ids.artifact,
      add: ['battery', 'supply chain'],
      remove: ['lithium'],
    });
    expect(records.artifacts.find((a) => a.id === ids.artifact)?.tags).toEqual(['battery', 'supply chain']);
    const page = await get(`/app/artifacts/${ids.artifact}`, cookie);
    expect(page.body).toContain('<span class="badge">supply chain</span>');
    const search = await get('/app/search?q=carbonate&tag=battery&source=research_artifact&since=2026-01-01', cookie);
    expect(search.body).toContain('<option value="battery" selected>battery</option>');
    expect(callsOf('search_sources').at(-1)?.request).toMatchObject({
      query: 'carbonate',
      tags: ['battery'],
      sourceTable: 'SOURCE_TABLE_RESEARCH_ARTIFACT',
      createdSince: '2026-01-01T00:00:00Z',
    });
  });
});
