import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOAuthAdmin, type IdentityDatabase } from '@quarry/gateway';
import { chromiumForSuite } from '@quarry/testing';
import type { Kysely } from 'kysely';
import { type Browser, chromium, type Page } from 'playwright-core';
import { pkcePair } from './oauth-browser.js';
import { freePort } from './free-port.js';
import { startGatewayOnly } from './gateway-only.js';

// The sign-in and consent pages in a real headless Chromium (Debian's `chromium`, which
// .ci/run installs, or QUARRY_CHROMIUM), driven by Playwright as a person would: labelled fields,
// the error on a wrong password, the org chosen at consent. Without a browser the suite is
// skipped and says so, unless QUARRY_REQUIRE_BROWSER=1 (CI). Screenshots go to test-output/oauth
// (gitignored).

const { executablePath, skipped } = chromiumForSuite('oauth-pages.e2e.test.ts');
const SHOTS = join(process.cwd(), 'test-output', 'oauth');
const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'http://127.0.0.1:9/callback';

type Gateway = Awaited<ReturnType<typeof startGatewayOnly>>;
let gateway: Gateway;
let browser: Browser;

async function startGatewayAndBrowser(executablePath: string) {
  mkdirSync(SHOTS, { recursive: true });
  const port = await freePort();
  gateway = await startGatewayOnly({ PORT: String(port), QUARRY_PUBLIC_URL: `http://127.0.0.1:${port}` });
  await createOAuthAdmin(gateway.database.admin as Kysely<IdentityDatabase>).setPassword('ada@acme.test', PASSWORD);
  await gateway.admin.createOrg({ slug: 'lab', name: 'Lovelace Lab' });
  await gateway.admin.addUser({ email: 'ada@acme.test', orgSlug: 'lab' });
  browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-background-networking'],
  });
}

async function registerClient() {
  const response = await fetch(`${gateway.base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Claude', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  return ((await response.json()) as { client_id: string }).client_id;
}

/** Opens the authorization URL; the client's redirect URI is answered by the test itself. */
async function open(page: Page, clientId: string, challenge: string) {
  const url = new URL(`${gateway.base}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'quarry:read quarry:write',
    resource: gateway.url,
    state: 'xyz',
  }))
    url.searchParams.set(k, v);
  let callback: URL | undefined;
  await page.route(`${REDIRECT}**`, async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<title>done</title>' });
  });
  await page.goto(url.toString());
  return () => callback;
}

// Without a browser both tests are reported as skipped, under a title saying why and what to install.
const inChromium = executablePath ? describe : describe.skip;
inChromium(`the sign-in and consent pages in Chromium${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  beforeAll(() => startGatewayAndBrowser(executablePath!), 120_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it('sign in, show who asks for what, let the user pick the org, and bind the token to it', async () => {
    const page = await browser.newPage();
    const clientId = await registerClient();
    const pkce = pkcePair();
    const callback = await open(page, clientId, pkce.challenge);

    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Sign in to Quarry');
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await page.screenshot({ path: join(SHOTS, '1-sign-in.png'), fullPage: true });

    await page.getByLabel('Email').fill('ada@acme.test');
    await page.getByLabel('Password').fill('wrong password here');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/email or password is not correct/);
    await page.screenshot({ path: join(SHOTS, '2-wrong-password.png'), fullPage: true });

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    const consent = (await page.locator('main').textContent()) ?? '';
    expect(consent).toContain('Allow Claude to use Quarry?');
    expect(consent).toContain('127.0.0.1:9');
    expect(consent).toContain('quarry:read');
    expect(consent).toContain('quarry:write');
    await page.screenshot({ path: join(SHOTS, '3-consent.png'), fullPage: true });

    await page.getByLabel('Lovelace Lab (lab)').check();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${REDIRECT}**`);
    const code = callback()?.searchParams.get('code');
    expect(callback()?.searchParams.get('state')).toBe('xyz');
    expect(code).toBeTruthy();

    const tokens = (await (
      await fetch(`${gateway.base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: code!,
          code_verifier: pkce.verifier,
          redirect_uri: REDIRECT,
          client_id: clientId,
          resource: gateway.url,
        }),
      })
    ).json()) as { access_token: string };
    const ping = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ping', arguments: {} } }),
    });
    const text = await ping.text();
    expect(text).toContain('"orgSlug":"lab"');
    await page.close();
  }, 60_000);

  it('refuses a consent form posted from another site', async () => {
    const page = await browser.newPage();
    await open(page, await registerClient(), pkcePair().challenge);
    await page.getByLabel('Email').fill('ada@acme.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    // The page's own form, with its CSRF token replaced: refused.
    await page.locator('input[name=csrf]').evaluate((input: { value: string }) => {
      input.value = 'forged';
    });
    await page.getByRole('button', { name: 'Allow' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Request refused');
    await page.close();
  }, 60_000);
});
