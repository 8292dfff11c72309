import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chromiumForSuite } from '@quarry/testing';
import type { Browser } from 'playwright-core';
import { launchChromium, SCREENSHOTS, seriousViolations } from './browser-checks.js';
import { startLibraryFixture } from './web-library-fixture.js';

// The web app's library pages in a real headless Chromium (Debian's `chromium` or
// QUARRY_CHROMIUM, else a loud skip unless QUARRY_REQUIRE_BROWSER=1), walked as a person would,
// over stored research that tries to run: a plan link leads through the sign-in to the plan; the
// plan list filters; changes are requested in a review; the hostile artifact, the deliverable
// and its download under a hostile file name, search, a confirmation and the 404. No page runs
// anything stored, loads anything from elsewhere, or has a serious or critical axe-core
// violation. A plan's live updates, an approval the client waits on and a byte-identical download
// over the whole system are in new-user-walk-browser.test.ts. Screenshots go to
// test-output/screenshots.

const { executablePath, skipped } = chromiumForSuite('web-library-browser.test.ts');

let fixture: Awaited<ReturnType<typeof startLibraryFixture>>;
let browser: Browser;

const inChromium = executablePath ? describe : describe.skip;
inChromium(`the library pages in Chromium${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    fixture = await startLibraryFixture();
    browser = await launchChromium(executablePath!);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await fixture?.gateway.close();
  });

  it('walks the plan, the review, the content, the download and search, accessibly and inertly', async () => {
    const { gateway, ids, records, bytes, password } = fixture;
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    const dialogs: string[] = [];
    const foreign: string[] = [];
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    page.on('request', (request) => {
      if (!request.url().startsWith(gateway.base)) foreign.push(request.url());
    });
    const visit = async (name: string) => {
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
      expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
    };
    const h1 = () => page.getByRole('heading', { level: 1 }).first().textContent();

    const planUrl = `${gateway.base}/app/plans/${ids.plan}`;
    await page.goto(planUrl);
    await expect(h1()).resolves.toBe('Sign in to Quarry');
    await visit('01-sign-in');
    await page.getByLabel('Email').fill('ada@acme.test');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(planUrl);
    await expect(h1()).resolves.toBe('Lithium <b>supply</b>');
    await visit('02-plan');

    const plan = records.plans.find((p) => p.planId === ids.plan)!;
    await page.getByRole('link', { name: 'Plans', exact: true }).click();
    await page.getByLabel('Status').selectOption('awaiting_review');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page.getByRole('link', { name: 'Lithium <b>supply</b>' }).count()).resolves.toBe(1);
    await visit('03-plans');

    await page.getByRole('link', { name: 'Reviews', exact: true }).click();
    await expect(page.getByText('Keep the paywalled ones?').count()).resolves.toBe(1);
    await visit('04-reviews');
    await page.getByLabel('Request changes: the step is redone with your feedback').check();
    await page.getByRole('textbox', { name: 'Feedback' }).fill('Drop the paywalled sources.');
    await page.getByRole('button', { name: 'Submit decision' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toBe('Your decision is recorded.');
    expect(plan.steps[1]!.status).toBe('in_progress');
    expect(fixture.callsOf('submit_user_decision').at(-1)?.request).toMatchObject({
      decision: 'REVIEW_DECISION_MODIFY',
      feedback: 'Drop the paywalled sources.',
    });

    await page.goto(`${gateway.base}/app/artifacts`);
    await expect(page.locator('main img, main iframe, main script').count()).resolves.toBe(0);
    await visit('05-artifacts');
    await page.goto(`${gateway.base}/app/artifacts/${ids.artifact}`);
    await expect(page.locator('main img, main iframe, main script').count()).resolves.toBe(0);
    await page
      .getByRole('link', { name: 'click me' })
      .count()
      .then((n) => expect(n).toBe(0));
    await visit('05-artifact');

    await page.goto(`${gateway.base}/app/outputs/${ids.hostileOutput}`);
    await visit('06-deliverable');
    await page.goto(`${gateway.base}/app/outputs/${ids.docx}`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download' }).click(),
    ]);
    expect(readFileSync((await download.path())!).equals(bytes.docx)).toBe(true);
    expect(download.suggestedFilename()).toBe('evil_X-Injected_ 1 _script_.docx');

    await page.goto(`${gateway.base}/app/search`);
    await page.getByLabel('Search for').fill('carbonate');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect(page.getByText(/keyword #1/).count()).resolves.toBeGreaterThan(0);
    await visit('07-search');

    await page.goto(`${planUrl}/confirm/delete`);
    await visit('08-confirm-delete');
    await page.getByRole('link', { name: 'Keep it as it is' }).click();
    await page.waitForURL(planUrl);

    const missing = await page.goto(`${gateway.base}/app/plans/${ids.rivalPlan}`);
    expect(missing?.status()).toBe(404);
    await visit('09-not-found');

    expect(dialogs).toEqual([]);
    expect(foreign).toEqual([]);
    await context.close();
  }, 120_000);
});
