import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AxeBuilder } from '@axe-core/playwright';
import { chromiumForSuite } from '@quarry/testing';
import { type Browser, chromium, type Page } from 'playwright-core';
import { pkcePair } from './oauth-browser.js';
import { oauthRequests, PASSWORD, startOAuthGateway } from './oauth-requests.js';

// Quarry's OAuth error pages, and a desktop client's sign-in without `scope`, in a real headless
// Chromium (the rule of oauth-pages.test.ts: Debian's `chromium` or QUARRY_CHROMIUM, else a loud
// skip unless QUARRY_REQUIRE_BROWSER=1): each page says what is wrong and what to do, runs none
// of what a request carried, and has no axe-core violation. Screenshots go to test-output/oauth.

const { executablePath, skipped } = chromiumForSuite('oauth-error-pages.test.ts');
const SHOTS = join(process.cwd(), 'test-output', 'oauth');
const REGISTERED = 'http://127.0.0.1:33418/';
const PROBE = '"><script>alert(1)</script><img src=x onerror=alert(2)>';

let gateway: Awaited<ReturnType<typeof startOAuthGateway>>;
let oauth: ReturnType<typeof oauthRequests>;
let browser: Browser;

/** A page in a context of its own (axe-core opens a second page there), recording every dialog. */
async function newPage() {
  const page = await (await browser.newContext()).newPage();
  const dialogs: string[] = [];
  page.on('dialog', async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  return { page, dialogs };
}

/** axe-core's violations on the page, by rule, with the nodes each one names. */
async function violations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.map((v) => ({ rule: v.id, nodes: v.nodes.map((n) => n.html) }));
}

const inChromium = executablePath ? describe : describe.skip;
inChromium(`Quarry's OAuth pages in Chromium${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    gateway = await startOAuthGateway();
    oauth = oauthRequests(gateway);
    browser = await chromium.launch({
      executablePath: executablePath!,
      args: ['--headless', '--no-sandbox', '--disable-background-networking'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it.each([
    [
      'a javascript: redirect',
      { redirect_uri: 'javascript:alert(3)' },
      'This app asked to send you somewhere it did not register',
    ],
    [
      'markup in state',
      { state: PROBE, redirect_uri: `https://evil.example/cb` },
      'This app asked to send you somewhere it did not register',
    ],
    [
      'markup in redirect_uri',
      { redirect_uri: `https://evil.example/${PROBE}` },
      'This app asked to send you somewhere it did not register',
    ],
    ['markup in client_id', { client_id: PROBE }, 'Quarry does not know this app'],
  ])(
    'explain %s, run none of it, and pass axe',
    async (name, params, heading) => {
      const clientId = await oauth.registered([REGISTERED]);
      const { page, dialogs } = await newPage();
      const response = await page.goto(
        oauth.authorizeUrl({ client_id: clientId, redirect_uri: REGISTERED, ...params }),
      );
      expect(response?.status()).toBe(400);
      expect(new URL(page.url()).origin).toBe(gateway.base);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(heading);
      await expect(page.getByRole('alert').textContent()).resolves.toBeTruthy();
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
      expect(await page.locator('script, img').count()).toBe(0);
      expect(dialogs).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `error-${name.replace(/\W+/g, '-')}.png`), fullPage: true });
      await page.context().close();
    },
    60_000,
  );

  it('explain an expired sign-in, and pass axe', async () => {
    const { page } = await newPage();
    await page.goto(`${gateway.base}/oauth/authorize/expired-interaction`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('This sign-in has expired');
    expect(await violations(page)).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('take a desktop client without scope through sign-in and consent to a read + write token at another loopback port', async () => {
    const clientId = await oauth.registered([REGISTERED, 'https://vscode.dev/redirect']);
    const perRun = 'http://127.0.0.1:54321/';
    const pkce = pkcePair();
    const { page } = await newPage();
    let callback: URL | undefined;
    await page.route(`${perRun}**`, async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<title>done</title>' });
    });
    await page.goto(oauth.authorizeUrl({ client_id: clientId, redirect_uri: perRun }, pkce.challenge));
    expect(await violations(page)).toEqual([]);
    await page.getByLabel('Email').fill('ada@acme.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    const consent = (await page.locator('main').textContent()) ?? '';
    expect(consent).toContain('127.0.0.1:54321');
    expect(consent).toContain('quarry:read');
    expect(consent).toContain('quarry:write');
    expect(await violations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'consent-without-scope.png'), fullPage: true });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${perRun}**`);
    const tokens = await oauth.token({
      grant_type: 'authorization_code',
      code: callback!.searchParams.get('code')!,
      code_verifier: pkce.verifier,
      redirect_uri: perRun,
      client_id: clientId,
      resource: gateway.url,
    });
    expect(tokens.body.scope).toBe('quarry:read quarry:write');
    await page.context().close();
  }, 60_000);
});
