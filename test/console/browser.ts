import { existsSync, mkdirSync, readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { Test } from 'tap';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = new URL('../../docs/console/', import.meta.url).pathname;

/**
 * Whether Debian's Chromium is there to drive. When it is not, the file fails under CI (a green CI
 * must have run the browser) and is planned as skipped elsewhere.
 */
export function chromiumPresent(t: Test): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true') t.fail(`Chromium is required when CI=true but was not found at ${CHROMIUM} (apt-get install chromium)`);
  else t.plan(0, `Chromium not found at ${CHROMIUM}`);
  return false;
}

/**
 * With OSR_CONSOLE_LATENCY_MS=n, each API request of the browser waits a random 0 to n ms before
 * it is sent, so that answers arrive in another order than usual: a test that reads the page before
 * the state it asserts is there fails at once rather than now and then on a loaded machine.
 */
const LATENCY_MS = Number(process.env.OSR_CONSOLE_LATENCY_MS ?? 0);

/** One headless Chromium for the whole file, closed at its end. */
export async function launch(t: Test): Promise<BrowserContext> {
  const profile = mkdtempSync(join(tmpdir(), 'osr-console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    acceptDownloads: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  if (LATENCY_MS > 0) {
    await context.route((url) => url.pathname.includes('/api/'), async (route) => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * LATENCY_MS));
      await route.fallback();
    });
  }
  t.teardown(async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  });
  return context;
}

/** A page recording console errors (CSP violations among them) and requests to other origins. */
export async function openPage(context: BrowserContext): Promise<{ page: Page; errors: string[]; foreign: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  const foreign: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error' && !/status of (4\d\d|409)/.test(m.text())) errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => { if (!/^(http:\/\/(127\.0\.0\.1|localhost)[:/]|blob:|data:)/.test(r.url())) foreign.push(r.url()); });
  return { page, errors, foreign };
}

/** axe-core over the page as it is: the serious and critical violations, as `rule: targets`. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP (rightly) refuses injected script tags.
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const page = globalThis as unknown as { document: unknown; axe: { run(context: unknown, options: object): Promise<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }> }> } };
    const result = await page.axe.run(page.document, { resultTypes: ['violations'] });
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
  });
}

/** A screenshot for docs/console.md (taken on one driver only). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}
