/**
 * Chromium for the browser tests of the web pages (docs/web.md "Proof"): Debian's chromium through
 * playwright-core, headless with a fresh profile; axe-core injected into each page checked (through
 * the DevTools protocol, so the pages' CSP stays as strict as served); the time to interactive and
 * the compressed bytes of script a page loaded; screenshots when SCREENSHOTS names a folder
 * (`npm run screenshots`). Without a Chromium the suites skip with a warning, or fail under
 * REQUIRE_BROWSER=1 (scripts/ensure-chromium.mjs installs one where it can).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium', process.env.CHROMIUM_PATH].find(
  (path): path is string => typeof path === 'string' && path !== '' && existsSync(path),
);
export const REQUIRE_BROWSER = process.env.REQUIRE_BROWSER === '1';
export const MISSING_BROWSER = `no Chromium at /usr/lib/chromium/chromium, /usr/bin/chromium or CHROMIUM_PATH (${process.env.CHROMIUM_PATH ?? 'unset'}); run scripts/ensure-chromium.mjs or set CHROMIUM_PATH`;

/** The flags every run uses (stack.md §8): no sandbox in a container, no GPU, nothing fetched in the background. */
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface BrowserSession {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(options: { viewport?: { width: number; height: number }; isMobile?: boolean; javaScriptEnabled?: boolean } = {}): Promise<BrowserSession> {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM as string,
    headless: true,
    args: FLAGS,
    viewport: options.viewport ?? { width: 1280, height: 900 },
    ...(options.isMobile ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
    ...(options.javaScriptEnabled === false ? { javaScriptEnabled: false } : {}),
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The pages' scripts are TypeScript built by `npm run build:web`; built here once so a test never runs an old one. */
let built = false;
export function buildPageScripts(): void {
  if (built) return;
  execFileSync(process.execPath, [resolve('node_modules/typescript/bin/tsc'), '-p', 'packages/inbox/tsconfig.client.json'], { stdio: 'inherit' });
  execFileSync(process.execPath, [resolve('node_modules/typescript/bin/tsc'), '-p', 'packages/directory/tsconfig.client.json'], { stdio: 'inherit' });
  built = true;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe-core on the page as it stands; no serious or critical violation is allowed. */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  )) as AxeViolation[];
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), `axe on ${label}`).toEqual([]);
}

export interface LoadFigures {
  /** Navigation start to DOM interactive (ms): the page can be used. */
  interactiveMs: number;
  /** Navigation start to the load event's end (ms). */
  loadedMs: number;
  /** Bytes of script the page loaded, as they came over the wire (compressed). */
  scriptBytes: number;
}

export async function loadFigures(page: Page): Promise<LoadFigures> {
  return (await page.evaluate(`(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const scripts = performance.getEntriesByType('resource').filter((r) => r.initiatorType === 'script' || r.name.endsWith('.js'));
    return { interactiveMs: nav.domInteractive, loadedMs: nav.loadEventEnd, scriptBytes: scripts.reduce((sum, r) => sum + (r.encodedBodySize || r.transferSize || 0), 0) };
  })()`)) as LoadFigures;
}

/** The budgets of docs/web.md: usable within a second, under 200 KB of compressed script. */
export async function expectWithinBudget(page: Page, label: string): Promise<LoadFigures> {
  await page.waitForLoadState('load');
  const figures = await loadFigures(page);
  expect(figures.interactiveMs, `${label}: time to interactive`).toBeLessThan(1_000);
  expect(figures.scriptBytes, `${label}: compressed script`).toBeLessThan(200 * 1024);
  return figures;
}

/** With SCREENSHOTS=<folder>, keeps a picture of the page for the README. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const folder = process.env.SCREENSHOTS;
  if (!folder) return;
  mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: join(folder, `${name}.png`), fullPage: false });
}
