import { randomUUID } from 'node:crypto';
import { createDb, sql } from '@quarry/db';
import { createOAuthAdmin, type IdentityDatabase } from '@quarry/gateway';
import type { McpCaller } from './mcp.js';
import { createPlans, sequentialPairs } from './plan-workload.js';

// The library the pages phase reads: one org's plan of many steps, half of them done through
// MCP (results, audit events), and its artifacts written in bulk.

/** create_research_plan and modify_plan's add_steps take at most this many steps a call. */
const STEPS_PER_CALL = 100;
/** Rows per insert of the artifact load. */
const ARTIFACT_BATCH = 1_000;

const TEXT = [
  '## Finding',
  'Three peer-reviewed sources agree on the effect; the fourth measured a smaller sample.',
  '- Source one: a randomised trial of 1,200 people.',
  '- Source two: a cohort study over ten years.',
].join('\n');

/**
 * A plan of `steps` steps through MCP (created with the first hundred, the rest added with
 * modify_plan's add_steps), then its first half worked through with get_next_step and
 * submit_step_result, as an agent would. Returns the plan's id and its steps' ids in order.
 */
export async function loadBigPlan(caller: McpCaller, steps: number): Promise<{ planId: string; stepIds: string[] }> {
  const [planId] = await createPlans(caller, 1, Math.min(steps, STEPS_PER_CALL));
  for (let added = STEPS_PER_CALL; added < steps; added += STEPS_PER_CALL)
    await caller.call('modify_plan', {
      planId,
      action: 'add_steps',
      steps: Array.from({ length: Math.min(STEPS_PER_CALL, steps - added) }, (_, i) => ({
        stepType: 'analyze',
        instructions: `Step ${added + i + 1}: compare what the earlier steps found.`,
      })),
    });
  const advance = sequentialPairs(caller, [planId!], steps);
  for (let i = 0; i < Math.floor(steps / 2); i++) await advance();
  const context = await caller.call('get_research_context', { planId });
  return { planId: planId!, stepIds: (context.steps as { stepId: string }[]).map((step) => step.stepId) };
}

/**
 * `count` artifacts of the org written straight into the artifact store's table, a thousand
 * per insert (storing them through MCP would time the indexer, which the content phase does):
 * one per step of the plan for its steps (the plan page lists them), the rest in no plan.
 * Returns the id of the plan's first one. The tables loaded are analysed after.
 */
export async function loadArtifacts(
  adminUrl: string,
  orgId: string,
  count: number,
  plan: { planId: string; stepIds: readonly string[] },
): Promise<string> {
  const admin = createDb<unknown>({ connectionString: adminUrl, applicationName: 'quarry-bench-pages', max: 1 });
  const first = randomUUID();
  try {
    for (let done = 0; done < count; done += ARTIFACT_BATCH) {
      const rows = Array.from({ length: Math.min(ARTIFACT_BATCH, count - done) }, (_, i) => {
        const n = done + i;
        const stepId = plan.stepIds[n];
        return sql`(${n === 0 ? first : randomUUID()}::uuid, ${orgId}::uuid, ${stepId ? plan.planId : null}::uuid,
          ${stepId ?? null}::uuid, 'finding', 'client', ${`Finding ${n + 1}`}, '{}'::jsonb, ${TEXT}, 0.8,
          ${`{bench,batch-${Math.floor(n / ARTIFACT_BATCH)}}`}::text[], now() - make_interval(secs => ${count - n}))`;
      });
      await sql`
        insert into artifact.research_artifacts
          (id, org_id, plan_id, step_id, artifact_type, source, title, content, content_text, confidence, tags, created_at)
        values ${sql.join(rows)}
      `.execute(admin);
    }
    // Fresh planner statistics for what was loaded (the whole database's VACUUM is not needed).
    await sql`analyze artifact.research_artifacts, plan.plan_steps, plan.plan_audit_log`.execute(admin);
    return first;
  } finally {
    await admin.destroy();
  }
}

/** Gives the member a password for the app's own sign-in. */
export async function setPassword(adminUrl: string, email: string, password: string): Promise<void> {
  const db = createDb<IdentityDatabase>({ connectionString: adminUrl, applicationName: 'quarry-bench-pages', max: 1 });
  try {
    await createOAuthAdmin(db).setPassword(email, password);
  } finally {
    await db.destroy();
  }
}

/**
 * Signs in on the app's page as a person does (the form, its CSRF token and nonce cookie, the
 * POST); returns the session cookie (name=value) the pages are then read with.
 */
export async function signIn(origin: string, email: string, password: string): Promise<string> {
  const form = await fetch(`${origin}/app/sign-in`);
  const nonce = form.headers.getSetCookie()[0]?.split(';')[0];
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!nonce || !csrf) throw new Error('the sign-in page gave no form');
  const answer = await fetch(`${origin}/app/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: nonce, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, next: '', email, password }).toString(),
  });
  const session = answer.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith('quarry_session='))
    ?.split(';')[0];
  if (!session) throw new Error(`sign-in answered ${answer.status} without a session`);
  return session;
}
