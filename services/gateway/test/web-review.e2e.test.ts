import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { createOAuthAdmin, type IdentityDatabase } from '@quarry/gateway';
import type { Kysely } from 'kysely';
import { freePort } from './free-port.js';
import { startTestGateway } from './harness.js';
import { connectClient } from './official-client.js';

// The web app over the whole system (gateway, plan engine, artifact store, PostgreSQL): a client
// runs a plan to a review and waits on it; the person answers the review in the browser; the
// waiting client sees the decision and goes on; the deliverable the client stored downloads from
// the app byte for byte. The browser's side is plain HTTP as a browser sends it (cookie, form
// token); the Chromium walk is web-library-browser.test.ts.

const PASSWORD = 'correct horse battery staple';
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let client: Client;

beforeAll(async () => {
  const port = await freePort();
  gateway = await startTestGateway({ PORT: String(port), QUARRY_PUBLIC_URL: `http://127.0.0.1:${port}` });
  await createOAuthAdmin(gateway.database.admin as Kysely<IdentityDatabase>).setPassword('ada@acme.test', PASSWORD);
  client = await connectClient(gateway.url, gateway.token, 'modern');
}, 180_000);
afterAll(async () => {
  await client?.close();
  await gateway?.close();
});

async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBeFalsy();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test reads arbitrary tool output
  return result.structuredContent as Record<string, any>;
}

/** A browser session: its cookie and its pages' form token, after the app's sign-in. */
async function signIn() {
  const form = await fetch(`${gateway.base}/app/sign-in`);
  const nonce = form.headers.getSetCookie()[0]!.split(';')[0]!;
  const csrf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  const answer = await fetch(`${gateway.base}/app/sign-in`, {
    method: 'POST',
    headers: { cookie: nonce, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrf(await form.text()), email: 'ada@acme.test', password: PASSWORD }),
    redirect: 'manual',
  });
  const cookie = answer.headers.getSetCookie()[0]!.split(';')[0]!;
  const page = await fetch(`${gateway.base}/app/plans`, { headers: { cookie } });
  return { cookie, csrf: csrf(await page.text()) };
}

describe('the web app over the whole system', () => {
  it('answers a review the client waits on, and hands out the deliverable byte for byte', async () => {
    const plan = await call('create_research_plan', {
      name: 'Cobalt routes',
      researchQuestion: 'Where does cobalt go?',
      steps: [
        { stepType: 'checkpoint', instructions: 'Check the scope with the user.' },
        { stepType: 'synthesize', instructions: 'Write the brief.' },
      ],
    });
    const planId = plan.planId as string;
    const step = (await call('get_next_step', { planId })).step;
    await call('request_user_review', {
      planId,
      stepId: step.stepId,
      summary: 'Scope: refining in three countries.',
      questions: ['Add recycling?'],
    });
    const document = randomBytes(50_000);
    const stored = await call('store_research_output', {
      planId,
      mediaType: 'word',
      title: 'Cobalt brief',
      content: document.toString('base64'),
    });

    const browser = await signIn();
    const queue = await (await fetch(`${gateway.base}/app/reviews`, { headers: { cookie: browser.cookie } })).text();
    expect(queue).toContain('Scope: refining in three countries.');
    expect(queue).toContain('Add recycling?');

    // The client waits for the plan to change while the person decides in the browser.
    const waiting = client.callTool({ name: 'get_plan_status', arguments: { planId, waitSeconds: 20 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const decided = await fetch(`${gateway.base}/app/reviews/decide`, {
      method: 'POST',
      headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        csrf: browser.csrf,
        planId,
        stepId: step.stepId,
        decision: 'approve',
        feedback: 'Yes, add recycling.',
      }),
      redirect: 'manual',
    });
    expect([decided.status, decided.headers.get('location')]).toEqual([303, '/app/reviews?decided=1']);
    expect((await waiting).structuredContent).toMatchObject({
      status: 'executing',
      completedSteps: [{ stepId: step.stepId, status: 'completed' }],
    });
    expect((await call('get_next_step', { planId })).step).toMatchObject({ stepOrder: 2 });

    // The plan's page shows the decision in its timeline, from the audit log.
    const page = await (
      await fetch(`${gateway.base}/app/plans/${planId}`, { headers: { cookie: browser.cookie } })
    ).text();
    expect(page).toContain('decision approve');
    expect(page).toContain('Yes, add recycling.');

    const download = await fetch(`${gateway.base}/app/outputs/${stored.outputId}/download`, {
      headers: { cookie: browser.cookie },
    });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(document)).toBe(true);
    expect(download.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="Cobalt brief.docx"');
  }, 120_000);
});
