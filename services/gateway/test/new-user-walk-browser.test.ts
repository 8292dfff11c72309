import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { chromiumForSuite } from '@quarry/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, SCREENSHOTS, seriousViolations, watchPage } from './browser-checks.js';
import { freePort } from './free-port.js';
import { startEmptySystem } from './harness.js';
import { memoryProvider } from './oauth-memory-provider.js';
import { speaking } from './official-client.js';

// One new installation walked in headless Chromium as its first people would, against the whole
// system (gateway, plan engine, artifact store, search, PostgreSQL): the first visitor is led from
// the sign-in to the first-run setup and creates the organization; the owner invites a colleague
// with a one-time link; the colleague joins and reads the live MCP URL off the connect page; an
// official MCP client connects to that URL, is authorised as the colleague through the real OAuth
// flow (sign-in and consent in the browser), creates a research plan and works it to a review,
// while the plan's page follows it without a reload; the owner answers the review in the browser;
// the client, waiting on the plan, sees the decision, goes on and stores a deliverable, which the
// colleague downloads byte for byte. Every page is checked with axe-core (no serious or critical
// violation) and kept as a screenshot (test-output/screenshots/walk-*.png). What each page does
// beyond this walk is tested in people-walk-browser.test.ts and web-library-browser.test.ts.

const { executablePath, skipped } = chromiumForSuite('new-user-walk-browser.test.ts');
const REDIRECT = 'http://127.0.0.1:9/callback';
const OWNER = { email: 'olive@acme.test', password: 'olive has a long password' };
const MEMBER = { email: 'mia@acme.test', password: 'mia has a long password' };
const REVIEW = {
  summary: 'Refined cobalt goes mostly to batteries; the data covers 2019 to 2025.',
  questions: ['Include recycling flows?'],
};

let system: Awaited<ReturnType<typeof startEmptySystem>>;
let browser: Browser;
const opened: Client[] = [];

/** Keeps the page's screenshot and finds no serious or critical axe-core violation on it. */
async function check(page: Page, name: string) {
  await page.screenshot({ path: join(SCREENSHOTS, `walk-${name}.png`), fullPage: true });
  expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
}

const h1 = (page: Page) => page.getByRole('heading', { level: 1 }).first().textContent();

/** A person's own browser: a context of its own (its cookies, its clipboard) with one page, watched. */
async function person() {
  const context = await browser.newContext({ acceptDownloads: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: system.base });
  const page = await context.newPage();
  return { context, page, seen: watchPage(page, system.base) };
}

/**
 * The official MCP client given only the URL, authorised as the person signed in to `context`
 * would be by their AI client: refused at first, it registers and asks for the authorization URL,
 * which opens in a new tab of the person's browser (sign-in and consent); the code the redirect
 * brings back is exchanged for tokens and the client connects.
 */
async function authorisedClient(context: BrowserContext, mcpUrl: string, who: typeof MEMBER) {
  const { provider, state } = memoryProvider('Walk client', REDIRECT);
  const options = speaking('modern');
  const first = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
  await expect(new Client({ name: 'walk', version: '1.0.0' }, options).connect(first)).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  const tab = await context.newPage();
  const seen = watchPage(tab, system.base);
  let callback: URL | undefined;
  await tab.route(`${REDIRECT}**`, async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Done</title>' });
  });
  await tab.goto(state.authorizationUrl!.toString());
  await expect(h1(tab)).resolves.toBe('Sign in to Quarry');
  await check(tab, '06-oauth-sign-in');
  await tab.getByLabel('Email').fill(who.email);
  await tab.getByLabel('Password').fill(who.password);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  await tab.getByRole('button', { name: 'Allow' }).waitFor();
  await expect(tab.locator('main').textContent()).resolves.toContain('Allow Walk client to use Quarry?');
  await check(tab, '07-oauth-consent');
  await tab.getByRole('button', { name: 'Allow' }).click();
  await tab.waitForURL(`${REDIRECT}**`);
  await first.finishAuth(callback!.searchParams);
  await tab.close();
  expect({ ...seen, foreign: seen.foreign.filter((url) => !url.startsWith(REDIRECT)) }).toEqual({
    dialogs: [],
    errors: [],
    foreign: [],
  });
  const client = new Client({ name: 'walk', version: '1.0.0' }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
  opened.push(client);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the walk reads arbitrary tool output
  return async (name: string, args: Record<string, unknown>): Promise<Record<string, any>> => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent)}`);
    return result.structuredContent as Record<string, unknown>;
  };
}

const inChromium = executablePath ? describe : describe.skip;
inChromium(
  `a new installation's first people, from setup to a deliverable${skipped ? ` (SKIPPED: ${skipped})` : ''}`,
  () => {
    beforeAll(async () => {
      mkdirSync(SCREENSHOTS, { recursive: true });
      const port = await freePort();
      system = await startEmptySystem({ PORT: String(port), QUARRY_PUBLIC_URL: `http://127.0.0.1:${port}` });
      browser = await launchChromium(executablePath!);
    }, 180_000);
    afterAll(async () => {
      for (const client of opened) await client.close();
      await browser?.close();
      await system?.close();
    });

    it('sets up, invites, connects a client through OAuth, follows the plan live, reviews and downloads', async () => {
      // First run: the app's address leads to the sign-in, and from there to the setup.
      const owner = await person();
      await owner.page.goto(`${system.base}/app`);
      expect(owner.page.url()).toBe(`${system.base}/app/setup`);
      await check(owner.page, '01-setup');
      await owner.page.getByLabel('Organization name').fill('Acme Research');
      await owner.page.getByLabel('Short name (used in links)').fill('acme');
      await owner.page.getByLabel('Your name').fill('Olive Owner');
      await owner.page.getByLabel('Your email').fill(OWNER.email);
      await owner.page.getByLabel('Password').fill(OWNER.password);
      await owner.page.getByRole('button', { name: 'Create the organization' }).click();
      await owner.page.waitForURL(`${system.base}/app/connect`);

      // The owner invites a colleague: the one-time link is shown once.
      await owner.page.goto(`${system.base}/app/admin/invitations`);
      await check(owner.page, '02-invitations');
      await owner.page.getByLabel('Email').fill(MEMBER.email);
      await owner.page.getByRole('button', { name: 'Invite' }).click();
      const inviteLink = await owner.page.getByRole('textbox', { name: 'Invitation link' }).inputValue();
      expect(inviteLink).toMatch(new RegExp(`^${system.base}/app/invite/qin_`));
      await check(owner.page, '03-invitation-link');

      // The colleague joins and lands on the connect page, which shows this Quarry's MCP URL.
      const member = await person();
      await member.page.goto(inviteLink);
      await check(member.page, '04-join');
      await member.page.getByLabel('Your name').fill('Mia Member');
      await member.page.getByLabel('Password').fill(MEMBER.password);
      await member.page.getByRole('button', { name: 'Join' }).click();
      await member.page.waitForURL(`${system.base}/app/connect`);
      await expect(h1(member.page)).resolves.toBe('Connect your client');
      // Its copy button (a module under the strict CSP) copies the URL for the client's settings.
      await member.page.locator('button[data-copy="mcp-url"]').click();
      await member.page.locator('button[data-copy="mcp-url"]', { hasText: 'Copied' }).waitFor({ timeout: 1500 });
      const mcpUrl = String(await member.page.evaluate('navigator.clipboard.readText()'));
      expect(mcpUrl).toBe(system.url);
      await check(member.page, '05-connect');

      // Their AI client connects to that URL and is authorised as them, then starts a plan.
      const call = await authorisedClient(member.context, mcpUrl, MEMBER);
      expect(await call('ping', {})).toMatchObject({ orgSlug: 'acme', userEmail: MEMBER.email });
      const { planId } = await call('create_research_plan', {
        name: 'Cobalt routes',
        researchQuestion: 'Where does refined cobalt go?',
        steps: [
          { stepType: 'search', instructions: 'Find trade statistics on refined cobalt.' },
          { stepType: 'checkpoint', instructions: 'Check the scope with the user.' },
          { stepType: 'synthesize', instructions: 'Write the brief.' },
        ],
      });

      // The plan shows in the colleague's library; its page follows the client's work live.
      await member.page.getByRole('link', { name: 'Plans', exact: true }).click();
      await member.page.getByRole('link', { name: 'Cobalt routes' }).click();
      await member.page.waitForURL(`${system.base}/app/plans/${planId}`);
      await check(member.page, '08-plan');
      await member.page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
      const stepBadge = (stepId: string, status: string) =>
        member.page.locator(`#plan-live li[data-step-id="${stepId}"] .q-badge`, { hasText: status }).waitFor();

      const search = (await call('get_next_step', { planId })).step;
      await call('submit_step_result', {
        planId,
        stepId: search.stepId,
        result: { sources: 14, note: 'UN Comtrade and the USGS yearbook.' },
        confidence: 0.85,
      });
      const checkpoint = (await call('get_next_step', { planId })).step;
      expect(checkpoint).toMatchObject({ stepOrder: 2, stepType: 'checkpoint' });
      await call('request_user_review', {
        planId,
        stepId: checkpoint.stepId,
        ...REVIEW,
      });
      await stepBadge(search.stepId, 'completed');
      await stepBadge(checkpoint.stepId, 'awaiting input');
      await expect(member.page.locator('#live-status').textContent()).resolves.toMatch(/^Updated /);
      // The review can be answered right there: its form arrived with the update.
      await member.page.locator('#plan-live #reviews-heading').waitFor();
      await expect(
        member.page.locator('#plan-live').getByRole('button', { name: 'Submit decision' }).count(),
      ).resolves.toBe(1);
      await check(member.page, '09-plan-live-review');

      // The client waits on the plan while the owner answers the review from the browser.
      const waiting = call('get_plan_status', { planId, waitSeconds: 30 });
      await owner.page.getByRole('link', { name: 'Reviews', exact: true }).click();
      await expect(owner.page.getByText(REVIEW.summary).count()).resolves.toBe(1);
      await expect(owner.page.getByText(REVIEW.questions[0]!).count()).resolves.toBe(1);
      await check(owner.page, '10-reviews');
      await owner.page.getByLabel('Approve: the step is done').check();
      await owner.page.getByRole('textbox', { name: 'Feedback' }).fill('Yes, add recycling.');
      await owner.page.getByRole('button', { name: 'Submit decision' }).click();
      await expect(owner.page.getByRole('status').first().textContent()).resolves.toBe('Your decision is recorded.');
      expect(await waiting).toMatchObject({
        status: 'executing',
        completedSteps: expect.arrayContaining([
          expect.objectContaining({ stepId: checkpoint.stepId, status: 'completed' }),
        ]),
      });

      // The client goes on: it writes the brief, stores it as a Word document and finishes.
      const synthesize = (await call('get_next_step', { planId })).step;
      expect(synthesize).toMatchObject({ stepOrder: 3, stepType: 'synthesize' });
      const document = randomBytes(60_000);
      const stored = await call('store_research_output', {
        planId,
        mediaType: 'word',
        title: 'Cobalt brief',
        content: document.toString('base64'),
      });
      await call('submit_step_result', { planId, stepId: synthesize.stepId, result: { outputId: stored.outputId } });
      await stepBadge(synthesize.stepId, 'completed');
      await member.page.locator('#plan-live .q-items a', { hasText: 'Cobalt brief' }).waitFor();
      // The decision shows in the plan's reviews and its timeline (the audit log); the page never reloaded.
      const live = await member.page.locator('#plan-live').textContent();
      expect(live).toContain('decision approve (step 2)');
      expect(live).toContain('Yes, add recycling.');
      await expect(member.page.evaluate(() => (globalThis as { sameDocument?: boolean }).sameDocument)).resolves.toBe(
        true,
      );
      // A finished plan no longer offers to be cancelled, nor its answered review a form.
      await member.page.locator('#plan-live #reviews-heading').waitFor({ state: 'detached' });
      await member.page.locator('#plan-live').getByText('Cancel plan…').waitFor({ state: 'detached' });
      await check(member.page, '11-plan-complete');

      // The colleague downloads the deliverable: the bytes the client stored.
      await member.page.locator('#plan-live .q-items a', { hasText: 'Cobalt brief' }).click();
      await member.page.waitForURL(`${system.base}/app/outputs/${stored.outputId}`);
      await check(member.page, '12-deliverable');
      const [download] = await Promise.all([
        member.page.waitForEvent('download'),
        member.page.getByRole('link', { name: 'Download' }).click(),
      ]);
      // A download fires no response event: its headers are read with the browser's own cookies.
      const headers = (await member.page.request.get(download.url())).headers();
      expect(headers).toMatchObject({
        'content-type': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        'content-disposition': 'attachment; filename="Cobalt brief.docx"',
      });
      expect(download.suggestedFilename()).toBe('Cobalt brief.docx');
      const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
      expect(sha256(readFileSync((await download.path())!))).toBe(sha256(document));

      for (const { seen } of [owner, member]) expect(seen).toEqual({ dialogs: [], errors: [], foreign: [] });
    }, 180_000);
  },
);
