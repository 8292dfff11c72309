import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Page } from 'playwright-core';

/** Where the browser suites keep their screenshots (.ci/run names the folder for CI to keep). */
export const SCREENSHOTS = join(process.cwd(), 'test-output', 'screenshots');

/** Headless Chromium at `executablePath`, as every browser suite drives it. */
export function launchChromium(executablePath: string) {
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-background-networking'],
  });
}

/** axe-core's serious and critical violations on the page, by rule, with the nodes each names. */
export async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ rule: v.id, nodes: v.nodes.map((n) => n.html) }));
}

/**
 * What went wrong on a page, as the test reads it at the end: dialogs opened, errors logged to
 * the console, app requests answered 400 or more (the browser's own favicon request aside), and
 * requests to anywhere but `base`, the app's origin.
 */
export function watchPage(page: Page, base: string) {
  const seen = { dialogs: [] as string[], errors: [] as string[], foreign: [] as string[] };
  page.on('dialog', async (dialog) => {
    seen.dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      seen.errors.push(message.text());
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && !response.url().endsWith('/favicon.ico'))
      seen.errors.push(`${response.status()} ${response.url()}`);
  });
  page.on('request', (request) => {
    if (!request.url().startsWith(base)) seen.foreign.push(request.url());
  });
  return seen;
}
