import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';

// Browser tests drive Debian's Chromium through playwright-core (Playwright's own browser
// download cannot work here). Without a Chromium they skip, unless KONTOR_TEST_REQUIRE_CHROMIUM
// is set (CI installs it and sets it, so there they always run).

export const CHROMIUM = process.env.KONTOR_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../artifacts/screenshots');

export function chromiumMissing(): string | false {
  if (existsSync(CHROMIUM)) return false;
  if (process.env.KONTOR_TEST_REQUIRE_CHROMIUM)
    throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium), and KONTOR_TEST_REQUIRE_CHROMIUM is set`);
  return `no Chromium at ${CHROMIUM}: apt-get install -y chromium`;
}

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage', '--lang=de-DE'] });
}

/** A full-page screenshot of the main pages, kept as an artefact (linked from the README). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: string[] }[] };

/**
 * axe-core's WCAG 2.1 A/AA checks on the page as it is; returns the serious and critical
 * violations. The page's CSP forbids injected scripts, so the context must be made with
 * bypassCSP (only the axe script uses it).
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: AXE });
  const result = (await page.evaluate(() =>
    (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<unknown> } }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    }),
  )) as { violations: AxeViolation[] };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export function describeViolations(violations: AxeViolation[]): string {
  return violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`).join('\n');
}

/** Asserts that axe-core finds no serious or critical violation on the page; `name` says which page in the message. */
export async function assertAccessible(page: Page, name: string): Promise<void> {
  const violations = await seriousViolations(page);
  assert.deepEqual(violations, [], `${name}:\n${describeViolations(violations)}`);
}

export const NEW_PASSWORD = 'ein gutes neues Passwort';

export type InBrowser = {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The app's address, http://127.0.0.1:<port>. */
  base: string;
  /** Closes the browser; the test still closes its TestApp. */
  close(): Promise<void>;
};

export type InBrowserOptions = {
  /** Default 1280 × 800. */
  viewport?: { width: number; height: number };
  acceptDownloads?: boolean;
  /** Every dialog (alert, confirm) is dismissed and its message added here, from before the sign-in on. */
  dismissDialogs?: string[];
  /** false: the page is left blank, nobody signed in. */
  signIn?: boolean;
  /** The first page asked for, which sends to the sign-in (default /app/sign-in itself). */
  from?: string;
};

/**
 * The app served over real HTTP and opened in Chromium: listens on 127.0.0.1 (a free port),
 * launches the browser, and signs the company's admin in with the one-time password and the
 * forced change to NEW_PASSWORD, so that the page is on /app/dashboard.
 */
export async function openInBrowser(t: TestApp, options: InBrowserOptions = {}): Promise<InBrowser> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const browser = await launch();
  try {
    // bypassCSP only so that the axe script can be injected; the app's own pages run under their CSP.
    const context = await browser.newContext({
      locale: 'de-DE',
      bypassCSP: true,
      viewport: options.viewport ?? { width: 1280, height: 800 },
      ...(options.acceptDownloads === undefined ? {} : { acceptDownloads: options.acceptDownloads }),
    });
    const page = await context.newPage();
    const dialogs = options.dismissDialogs;
    if (dialogs)
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
    if (options.signIn !== false) {
      await page.goto(`${base}${options.from ?? '/app/sign-in'}`);
      await page.getByLabel('E-Mail-Adresse').fill(t.company.adminEmail);
      await page.getByLabel('Passwort').fill(t.company.password);
      await page.getByRole('button', { name: 'Anmelden' }).click();
      await page.waitForURL(/\/app\/password$/);
      await page.getByLabel('Aktuelles Passwort').fill(t.company.password);
      await page.getByLabel('Neues Passwort', { exact: true }).fill(NEW_PASSWORD);
      await page.getByLabel('Neues Passwort wiederholen').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Passwort ändern' }).click();
      await page.waitForURL(/\/app\/dashboard$/);
    }
    return { browser, context, page, base, close: () => browser.close() };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** Skips the test when there is no Chromium (and it is not required). */
export function needsChromium(t: TestContext): boolean {
  const missing = chromiumMissing();
  if (missing) t.skip(missing);
  return !missing;
}
