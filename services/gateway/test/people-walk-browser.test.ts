import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chromiumForSuite } from '@quarry/testing';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, SCREENSHOTS, seriousViolations, watchPage } from './browser-checks.js';
import { PASSWORD, type PeopleApp, startPeopleApp } from './people-app.js';

// The people pages the new-installation walk (new-user-walk-browser.test.ts: setup, invitation,
// joining, the connect page) does not open, in headless Chromium: a member creates a personal
// access token (shown once) and revokes it, and opens their preferences and connected apps; the
// owner saves preferences and opens every admin and operations page. axe-core finds no serious or
// critical violation on any page, and nothing fails to load. Screenshots go to
// test-output/screenshots.

const { executablePath, skipped } = chromiumForSuite('people-walk-browser.test.ts');
let app: PeopleApp;
let browser: Browser;

/** Checks the page with axe-core and keeps its screenshot. */
async function check(page: Page, name: string) {
  await page.screenshot({ path: join(SCREENSHOTS, `people-${name}.png`), fullPage: true });
  expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
}

async function newPage() {
  const page = await (await browser.newContext()).newPage();
  return { page, seen: watchPage(page, app.base) };
}

/** Signs in on the app's sign-in page with the seeded password. */
async function signIn(page: Page, email: string) {
  await page.goto(`${app.base}/app/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/app\/plans/);
}

const inChromium = executablePath ? describe : describe.skip;
inChromium(`preferences, admin and operations in Chromium${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    app = await startPeopleApp({ seed: true });
    browser = await launchChromium(executablePath!);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('a member creates a token (shown once), revokes it, and opens their preferences', async () => {
    const { page, seen } = await newPage();
    await signIn(page, 'mia@acme.test');

    await page.goto(`${app.base}/app/preferences/tokens`);
    await check(page, '01-tokens');
    await page.getByLabel('What it is for').fill('laptop');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = await page.getByRole('textbox', { name: 'Token', exact: true }).inputValue();
    expect(token).toMatch(/^qry_[0-9A-Za-z]{43}$/);
    await check(page, '02-token-shown-once');
    await page.goto(`${app.base}/app/preferences/tokens`);
    expect(await page.content()).not.toContain(token);
    await page.getByRole('button', { name: 'Revoke the token laptop' }).click();
    await expect(page.getByRole('cell', { name: /revoked/ }).count()).resolves.toBe(1);
    await check(page, '03-token-revoked');

    await page.goto(`${app.base}/app/preferences`);
    await check(page, '04-preferences-member');
    await page.goto(`${app.base}/app/preferences/apps`);
    await check(page, '05-connected-apps');
    expect(seen).toEqual({ dialogs: [], errors: [], foreign: [] });
  });

  it('the owner’s preferences, admin and operations pages', async () => {
    const { page, seen } = await newPage();
    await signIn(page, 'owner@acme.test');
    await page.goto(`${app.base}/app/preferences`);
    await page.getByLabel('Deliverable format').selectOption('word');
    await page.getByLabel('Default research depth').selectOption('deep');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Saved.');
    await check(page, '06-preferences-admin');
    for (const [path, name] of [
      ['/app/admin', '07-admin'],
      ['/app/admin/members', '08-members'],
      ['/app/admin/service-accounts', '09-service-accounts'],
      ['/app/admin/oauth-clients', '10-oauth-clients'],
      ['/app/admin/audit', '11-audit-log'],
      ['/app/admin/tool-calls', '12-tool-calls'],
      ['/app/admin/usage', '13-usage'],
      ['/app/operations', '14-operations'],
    ] as const) {
      const response = await page.goto(`${app.base}${path}`);
      expect([path, response?.status()]).toEqual([path, 200]);
      await check(page, name);
    }
    expect(seen).toEqual({ dialogs: [], errors: [], foreign: [] });
  });
});
