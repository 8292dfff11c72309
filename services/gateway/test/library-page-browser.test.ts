import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOAuthAdmin, type IdentityDatabase } from '@quarry/gateway';
import { chromiumForSuite } from '@quarry/testing';
import type { Kysely } from 'kysely';
import { type Browser, chromium } from 'playwright-core';
import { freePort } from './free-port.js';
import { startGatewayOnly } from './gateway-only.js';
import { answerLibraryReads } from './library-replies.js';
import { researchRecords } from './research-records.js';

// A stored item's permalink page in a real headless Chromium (Debian's `chromium`, which
// .ci/run installs, or QUARRY_CHROMIUM), driven by Playwright as a person following a citation
// would: the link leads to the sign-in, the sign-in back to the item, stored markup shows as
// text and runs nothing, another org's item is not found. Without a browser the suite is
// skipped and says so, unless QUARRY_REQUIRE_BROWSER=1 (CI). Screenshots go to test-output/library
// (gitignored).

const { executablePath, skipped } = chromiumForSuite('library-page-browser.test.ts');
const SHOTS = join(process.cwd(), 'test-output', 'library');
const PASSWORD = 'correct horse battery staple';
const TITLE = '<script>alert("stored")</script> Lithium <b>fell</b>';
const TEXT = 'Carbonate fell 20%. <img src=x onerror=alert(1)><iframe src="https://evil.example"></iframe>';

type Gateway = Awaited<ReturnType<typeof startGatewayOnly>>;
let gateway: Gateway;
let browser: Browser;
const ids = { item: '', rivalItem: '' };

async function startGatewayAndBrowser(executablePath: string) {
  mkdirSync(SHOTS, { recursive: true });
  const port = await freePort();
  gateway = await startGatewayOnly({ PORT: String(port), QUARRY_PUBLIC_URL: `http://127.0.0.1:${port}` });
  await createOAuthAdmin(gateway.database.admin as Kysely<IdentityDatabase>).setPassword('ada@acme.test', PASSWORD);
  const rival = await gateway.admin.createOrg({ slug: 'rival', name: 'Rival' });
  const acme = await (gateway.database.admin as Kysely<IdentityDatabase>)
    .selectFrom('identity.organizations')
    .select('id')
    .where('slug', '=', 'acme')
    .executeTakeFirstOrThrow();
  const records = researchRecords();
  const add = (orgId: string, title: string, contentText: string) =>
    records.addArtifact(orgId, { artifactType: 'finding', title, content: {}, contentText, planId: randomUUID() }).id;
  ids.item = add(acme.id, TITLE, TEXT);
  ids.rivalItem = add(rival.id, 'Rival secret', 'Not for acme.');
  answerLibraryReads(gateway.stub, records);
  browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-background-networking'],
  });
}

// Without a browser the test is reported as skipped, under a title saying why and what to install.
const inChromium = executablePath ? describe : describe.skip;
inChromium(`the permalink page in Chromium${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  beforeAll(() => startGatewayAndBrowser(executablePath!), 120_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it('leads from the link through the sign-in back to the item, showing stored markup as text', async () => {
    const page = await browser.newPage();
    const dialogs: string[] = [];
    const requests: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('request', (request) => requests.push(request.url()));
    const permalink = `${gateway.base}/app/artifacts/${ids.item}`;

    await page.goto(permalink);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Sign in to Quarry');
    await page.screenshot({ path: join(SHOTS, '1-sign-in.png'), fullPage: true });
    await page.getByLabel('Email').fill('ada@acme.test');
    await page.getByLabel('Password').fill('wrong password here');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/email or password is not correct/);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(permalink);

    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(TITLE);
    await expect(page.locator('pre').textContent()).resolves.toBe(TEXT);
    await expect(page.locator('main img, main iframe, main b, body script').count()).resolves.toBe(0);
    await page.screenshot({ path: join(SHOTS, '2-item.png'), fullPage: true });
    expect(dialogs).toEqual([]);
    expect(requests.filter((url) => !url.startsWith(gateway.base))).toEqual([]);
    await page.close();
  }, 60_000);

  it("shows another org's item as not found, with the session kept", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${gateway.base}/app/artifacts/${ids.rivalItem}`);
    await page.getByLabel('Email').fill('ada@acme.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Not found');
    const response = await page.goto(`${gateway.base}/app/artifacts/${ids.item}`);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(TITLE);
    await context.close();
  }, 60_000);
});
