import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AxeBuilder } from '@axe-core/playwright';
import { chromiumForSuite } from '@quarry/testing';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type PeopleApp, startPeopleApp } from './people-app.js';

// A new installation walked in headless Chromium as its first people would: first-run setup,
// the owner invites a colleague, the colleague accepts the link and lands on the connect page
// (its copy button copies the MCP URL), creates a personal access token (shown once) and revokes
// it; then every preferences, admin and operations page. axe-core finds no serious or critical
// violation on any page. Screenshots go to test-output/screenshots (CI keeps test-output).

const { executablePath, skipped } = chromiumForSuite('people-walk-browser.test.ts');
const SHOTS = join(process.cwd(), 'test-output', 'screenshots');
let app: PeopleApp;
let browser: Browser;

/** axe-core's serious and critical violations on the page, by rule, with the nodes each names. */
async function violations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ rule: v.id, nodes: v.nodes.map((n) => n.html) }));
}

/** Checks the page with axe-core and keeps its screenshot. */
async function check(page: Page, name: string) {
  await page.screenshot({ path: join(SHOTS, `people-${name}.png`), fullPage: true });
  expect({ page: name, violations: await violations(page) }).toEqual({ page: name, violations: [] });
}

async function newPage() {
  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.base });
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      errors.push(message.text());
  });
  // Every load of the app's own pages and assets succeeds (the browser's own favicon request aside).
  page.on('response', (response) => {
    if (response.status() >= 400 && !response.url().endsWith('/favicon.ico'))
      errors.push(`${response.status()} ${response.url()}`);
  });
  return { page, dialogs, errors };
}

const inChromium = executablePath ? describe : describe.skip;
inChromium(`onboarding, preferences and admin in Chromium${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    app = await startPeopleApp();
    browser = await chromium.launch({
      executablePath: executablePath!,
      args: ['--headless', '--no-sandbox', '--disable-background-networking'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  let inviteLink = '';

  it('first run: the owner creates the organization and lands on the connect page', async () => {
    const { page, errors } = await newPage();
    await page.goto(`${app.base}/app/setup`);
    await check(page, '01-setup');
    await page.getByLabel('Organization name').fill('Acme Research');
    await page.getByLabel('Short name (used in links)').fill('acme');
    await page.getByLabel('Your name').fill('Olive Owner');
    await page.getByLabel('Your email').fill('olive@acme.test');
    await page.getByLabel('Password').fill('olive has a long password');
    await page.getByRole('button', { name: 'Create the organization' }).click();
    await page.waitForURL(`${app.base}/app/connect`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Connect your client');
    await check(page, '02-connect');
    // The copy button (a module under the strict CSP) copies the live MCP URL.
    await page.locator('button[data-copy="mcp-url"]').click();
    await page.locator('button[data-copy="mcp-url"]', { hasText: 'Copied' }).waitFor({ timeout: 1500 });
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(`${app.base}/mcp`);
    expect(errors).toEqual([]);

    await page.goto(`${app.base}/app/admin/invitations`);
    await check(page, '03-invitations');
    await page.getByLabel('Email').fill('mia@acme.test');
    await page.getByRole('button', { name: 'Invite' }).click();
    inviteLink = await page.getByRole('textbox', { name: 'Invitation link' }).inputValue();
    expect(inviteLink).toMatch(new RegExp(`^${app.base}/app/invite/qin_`));
    await check(page, '04-invitation-link');
  });

  it('the invitee accepts, connects, creates a token (shown once) and revokes it', async () => {
    const { page, dialogs } = await newPage();
    await page.goto(inviteLink);
    await check(page, '05-accept-invitation');
    await page.getByLabel('Your name').fill('Mia Member');
    await page.getByLabel('Password').fill('mia has a long password');
    await page.getByRole('button', { name: 'Join' }).click();
    await page.waitForURL(`${app.base}/app/connect`);

    await page.goto(`${app.base}/app/preferences/tokens`);
    await check(page, '06-tokens');
    await page.getByLabel('What it is for').fill('laptop');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = await page.getByRole('textbox', { name: 'Token', exact: true }).inputValue();
    expect(token).toMatch(/^qry_[0-9A-Za-z]{43}$/);
    await check(page, '07-token-shown-once');
    await page.goto(`${app.base}/app/preferences/tokens`);
    expect(await page.content()).not.toContain(token);
    await page.getByRole('button', { name: 'Revoke the token laptop' }).click();
    await expect(page.getByRole('cell', { name: /revoked/ }).count()).resolves.toBe(1);
    await check(page, '08-token-revoked');

    await page.goto(`${app.base}/app/preferences`);
    await check(page, '09-preferences-member');
    await page.goto(`${app.base}/app/preferences/apps`);
    await check(page, '10-connected-apps');
    expect(dialogs).toEqual([]);
  });

  it('the owner’s preferences, admin and operations pages', async () => {
    const { page } = await newPage();
    await page.goto(`${app.base}/app/sign-in`);
    await page.getByLabel('Email').fill('olive@acme.test');
    await page.getByLabel('Password').fill('olive has a long password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/app\/plans/);
    await page.goto(`${app.base}/app/preferences`);
    await page.getByLabel('Deliverable format').selectOption('word');
    await page.getByLabel('Default research depth').selectOption('deep');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Saved.');
    await check(page, '11-preferences-admin');
    for (const [path, name] of [
      ['/app/admin', '12-admin'],
      ['/app/admin/members', '13-members'],
      ['/app/admin/service-accounts', '14-service-accounts'],
      ['/app/admin/oauth-clients', '15-oauth-clients'],
      ['/app/admin/audit', '16-audit-log'],
      ['/app/admin/tool-calls', '17-tool-calls'],
      ['/app/admin/usage', '18-usage'],
      ['/app/operations', '19-operations'],
    ] as const) {
      const response = await page.goto(`${app.base}${path}`);
      expect([path, response?.status()]).toEqual([path, 200]);
      await check(page, name);
    }
  });
});
