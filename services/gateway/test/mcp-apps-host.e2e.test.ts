import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { chromiumForSuite } from '@quarry/testing';
import { build } from 'esbuild';
import { type Browser, chromium, type Page } from 'playwright-core';
import { startTestGateway } from './harness.js';
import { connectClient } from './official-client.js';

// The ui:// views in a real MCP Apps host: a page built on the ext-apps SDK's host side
// (AppBridge, test/apps-host/host.ts) with the official client, served at the gateway's origin
// in headless Chromium, against the whole system (gateway, plan engine, artifact store, search,
// PostgreSQL). The host lists the tools declaring the extension, reads the tool's view, renders
// it in a sandboxed iframe under the extension's default CSP and hands it the tool result; the
// view then calls Quarry's tools through the host (the user's token) and follows the plan live.
// Stored research with markup in it renders as text and runs nothing. Screenshots go to
// test-output/screenshots. Without a browser the suite is skipped and says so.

const { executablePath, skipped } = chromiumForSuite('mcp-apps-host.e2e.test.ts');
const SHOTS = join(process.cwd(), 'test-output', 'screenshots');
const HOSTILE = {
  name: 'Lithium <script>window.__pwned = 1</script>',
  step: 'Find sources <img src=x onerror="window.__pwned = 1">',
  artifact: '<img src=x onerror="window.__pwned = 1"> Carbonate prices',
  summary: 'Check the <a href="javascript:window.__pwned=1">sources</a>',
};

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let client: Client;
let browser: Browser;
let hostScript: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary tool output
async function call(name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown>;
}

/** The test host page at the gateway's origin (so its MCP requests are same-origin, as a web host's own would be). */
async function hostPage(): Promise<{ page: Page; toolCalls: string[]; dialogs: string[] }> {
  // A context of its own per page: axe-core opens its own page in the page's context.
  const page = await (await browser.newContext({ viewport: { width: 900, height: 900 } })).newPage();
  const toolCalls: string[] = [];
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('request', (request) => {
    const name = request.headers()['mcp-name'];
    if (request.url().endsWith('/mcp') && request.headers()['mcp-method'] === 'tools/call' && name)
      toolCalls.push(name);
  });
  await page.route(`${gateway.base}/__apps-host/**`, (route) =>
    route.request().url().endsWith('.js')
      ? route.fulfill({ contentType: 'text/javascript', body: hostScript })
      : route.fulfill({
          contentType: 'text/html',
          body: '<!doctype html><html lang="en"><head><title>Test host</title></head><body><main id="views"></main><script type="module" src="host.js"></script></body></html>',
        }),
  );
  await page.goto(`${gateway.base}/__apps-host/index.html`);
  await page.waitForFunction(() => 'openView' in globalThis);
  return { page, toolCalls, dialogs };
}

type OpenView = (token: string, tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;
const openView = (page: Page, tool: string, args: Record<string, unknown>) =>
  page.evaluate(
    ([token, tool, args]) => (globalThis as unknown as { openView: OpenView }).openView(token, tool, args),
    [gateway.token, tool, args] as const,
  );

/** axe-core's serious and critical violations in the view's frame (the host page is the test's, not Quarry's). */
async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).include('iframe').analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ rule: v.id, nodes: v.nodes.map((n) => n.html) }));
}

/** Whether anything hostile ran, in the host page or in the view. */
const pwned = (page: Page) =>
  Promise.all(page.frames().map((frame) => frame.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)));

const inChromium = executablePath ? describe : describe.skip;
inChromium(`the ui:// views in an MCP Apps host${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    gateway = await startTestGateway();
    client = await connectClient(gateway.url, gateway.token, 'modern');
    const bundled = await build({
      entryPoints: [join(process.cwd(), 'test', 'apps-host', 'host.ts')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      conditions: ['quarry-source'],
      logLevel: 'silent',
    });
    hostScript = bundled.outputFiles[0]!.text;
    browser = await chromium.launch({
      executablePath,
      args: ['--headless', '--no-sandbox', '--disable-background-networking'],
    });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await client?.close();
    await gateway?.close();
  });

  it('shows a plan through the host, calls Quarry through it, and follows the plan live', async () => {
    const { planId } = await call('create_research_plan', {
      name: HOSTILE.name,
      researchQuestion: 'Where are lithium carbonate prices heading?',
      steps: [
        { stepType: 'search', instructions: HOSTILE.step },
        { stepType: 'checkpoint', instructions: 'Ask the user whether the sources will do' },
        { stepType: 'synthesize', instructions: 'Write it up' },
      ],
    });
    const first = await call('get_next_step', { planId });
    const stepId = first.step.stepId as string;
    await call('store_research', {
      artifactType: 'finding',
      title: HOSTILE.artifact,
      content: { price: 'falling' },
      contentText: 'Lithium carbonate fell 20% in the quarter. <script>window.__pwned = 1</script>',
      confidence: 0.7,
      planId,
      stepId,
    });
    await call('submit_step_result', { planId, stepId, result: { sources: 12 }, confidence: 0.82 });
    const checkpoint = await call('get_next_step', { planId });
    await call('request_user_review', { planId, stepId: checkpoint.step.stepId, summary: HOSTILE.summary });

    const { page, toolCalls, dialogs } = await hostPage();
    const opened = await openView(page, 'get_plan_status', { planId });
    expect(opened).toMatchObject({
      uri: 'ui://quarry/plan-view',
      mimeType: 'text/html;profile=mcp-app',
      resourceMeta: { ui: { prefersBorder: true } },
    });
    const view = page.frameLocator('iframe');
    await expect(view.getByRole('heading', { level: 2 }).textContent({ timeout: 15_000 })).resolves.toBe(HOSTILE.name);
    await view.getByText('Reviews').waitFor({ timeout: 15_000 });
    const text = await view.locator('main').innerText();
    expect(text).toContain('33% of 3 steps done');
    expect(text).toContain(HOSTILE.step);
    expect(text).toContain('confidence 0.82');
    expect(text).toContain(HOSTILE.artifact);
    expect(text).toContain('review requested (step 2)');
    expect(text).toContain(HOSTILE.summary);
    // The details came from Quarry's tools, called by the view through the host.
    expect(toolCalls).toEqual(
      expect.arrayContaining(['get_plan_status', 'get_research_context', 'list_research_outputs']),
    );
    await page.screenshot({ path: join(SHOTS, 'mcp-apps-plan-view.png'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    // Live: the view waits on get_plan_status (waitSeconds) and re-renders when the plan changes.
    await call('submit_user_decision', { planId, stepId: checkpoint.step.stepId, decision: 'approve' });
    const last = await call('get_next_step', { planId });
    await call('submit_step_result', { planId, stepId: last.step.stepId, result: { report: 'Prices fall.' } });
    await view.getByText('100% of 3 steps done').waitFor({ timeout: 20_000 });
    expect(await view.locator('main').innerText()).toContain('decision approve (step 2)');
    await page.screenshot({ path: join(SHOTS, 'mcp-apps-plan-view-live.png'), fullPage: true });

    expect(await view.locator('#view').locator('script, img, svg, [onerror], a[href^="javascript"]').count()).toBe(0);
    expect(await pwned(page)).toEqual(page.frames().map(() => undefined));
    expect(dialogs).toEqual([]);
    await page.context().close();
  }, 120_000);

  it("answers a plan it cannot read (missing, or another org's) with the tool's refusal, and stops asking", async () => {
    const rival = await gateway.admin.createOrg({ slug: 'rival', name: 'Rival' });
    await gateway.admin.addUser({ email: 'eve@rival.test', orgSlug: rival.slug, name: 'Eve' });
    const eve = await connectClient(
      gateway.url,
      (await gateway.admin.createToken({ orgSlug: rival.slug, email: 'eve@rival.test', name: 'rival' })).token,
      'modern',
    );
    const theirs = (
      await eve.callTool({
        name: 'create_research_plan',
        arguments: {
          name: 'Rival plan',
          researchQuestion: 'Secret?',
          steps: [{ stepType: 'search', instructions: 'x' }],
        },
      })
    ).structuredContent as { planId: string };
    await eve.close();

    const messages: string[] = [];
    for (const planId of [theirs.planId, '00000000-0000-4000-8000-000000000000']) {
      const { page, toolCalls } = await hostPage();
      await openView(page, 'get_plan_status', { planId });
      const view = page.frameLocator('iframe');
      await view.getByText('Could not read the plan').waitFor({ timeout: 15_000 });
      messages.push((await view.locator('#view').innerText()).replace(planId, '<id>'));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      // The host's own call and the view's first: no retries after a refusal.
      expect(toolCalls.filter((name) => name === 'get_plan_status').length).toBeLessThanOrEqual(2);
      expect(await view.locator('#view').innerText()).not.toContain('Rival plan');
      await page.context().close();
    }
    expect(messages[0]).toBe(messages[1]);
  }, 120_000);

  it('shows search results with how each leg ranked them', async () => {
    // The indexer makes stored research searchable shortly after it is stored.
    let found: Record<string, unknown> = {};
    for (let i = 0; i < 60 && !(Number(found.resultCount) > 0); i++) {
      found = await call('search_sources', { query: 'carbonate prices' });
      if (!(Number(found.resultCount) > 0)) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(found.resultCount).toBeGreaterThan(0);

    const { page, dialogs } = await hostPage();
    const opened = await openView(page, 'search_sources', { query: 'carbonate prices' });
    expect(opened).toMatchObject({ uri: 'ui://quarry/search-results' });
    const view = page.frameLocator('iframe');
    await view.getByText(HOSTILE.artifact).waitFor({ timeout: 15_000 });
    const text = await view.locator('main').innerText();
    expect(text).toContain('Results for');
    expect(text).toContain('carbonate prices');
    expect(text).toMatch(/keyword #1|semantic #1/);
    expect(text).toContain('fused score');
    expect(text).toContain('artifact');
    await page.screenshot({ path: join(SHOTS, 'mcp-apps-search-results.png'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    expect(await view.locator('#view').locator('script, img, svg, [onerror], a[href^="javascript"]').count()).toBe(0);
    expect(await pwned(page)).toEqual(page.frames().map(() => undefined));
    expect(dialogs).toEqual([]);
    await page.context().close();
  }, 120_000);
});
