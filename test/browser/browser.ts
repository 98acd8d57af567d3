import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, type TestContext } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';

// Browser tests drive Debian's Chromium through playwright-core (Playwright's own browser
// download cannot work here). Without a Chromium they skip, unless KONTOR_TEST_REQUIRE_CHROMIUM
// is set (CI installs it and sets it, so there they always run).

export const CHROMIUM = process.env.KONTOR_CHROMIUM ?? '/usr/bin/chromium';
/**
 * Where the tests' screenshots go: with KONTOR_SCREENSHOTS=docs into docs/screenshots (the
 * pictures the README links; `npm run screenshots`), with any other value into
 * artifacts/screenshots; without it none are taken: a full-page PNG costs Chromium more CPU
 * than the checks on the page, and a plain `npm test` looks at nothing it would write.
 */
export const SCREENSHOTS: string | undefined = !process.env.KONTOR_SCREENSHOTS
  ? undefined
  : path.resolve(import.meta.dirname, process.env.KONTOR_SCREENSHOTS === 'docs' ? '../../docs/screenshots' : '../../artifacts/screenshots');

export function chromiumMissing(): string | false {
  if (existsSync(CHROMIUM)) return false;
  if (process.env.KONTOR_TEST_REQUIRE_CHROMIUM)
    throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium), and KONTOR_TEST_REQUIRE_CHROMIUM is set`);
  return `no Chromium at ${CHROMIUM}: apt-get install -y chromium`;
}

// One Chromium per test process (a group of test files, scripts/test-groups.ts): a launch
// costs ~1 s of CPU; each test file works in contexts of its own (cookies, storage and
// cache apart) and closes them. The browser closes after the process's last test.
let shared: Promise<Browser> | undefined;
after(async () => {
  const browser = await shared?.catch(() => undefined);
  shared = undefined;
  await browser?.close();
});

/** The process's Chromium (launched on first use, again if it went away). */
export function launch(): Promise<Browser> {
  shared ??= chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage', '--lang=de-DE'] }).then((browser) => {
    browser.on('disconnected', () => {
      shared = undefined;
    });
    return browser;
  });
  return shared;
}

/** A screenshot (`name`.png, the full page unless `fullPage: false`) when KONTOR_SCREENSHOTS asks for them (see SCREENSHOTS). */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (!SCREENSHOTS) return;
  const file = path.join(SCREENSHOTS, `${name}.png`);
  mkdirSync(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: options.fullPage ?? true });
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * axe-core from a small HTTP server of this process, cacheable: Chromium then keeps the
 * script compiled across pages (~25 ms per check instead of ~230 ms for the 560 KB inline).
 */
let axeServer: Promise<string> | undefined;
function axeUrl(): Promise<string> {
  axeServer ??= new Promise((resolve) => {
    const body = readFileSync(AXE);
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'public, max-age=86400', 'access-control-allow-origin': '*' });
      res.end(body);
    });
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/axe.min.js`);
    });
  });
  return axeServer;
}

export type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: string[] }[] };

/**
 * axe-core's WCAG 2.1 A/AA checks on the page as it is; returns the serious and critical
 * violations. The page's CSP forbids injected scripts, so the context must be made with
 * bypassCSP (only the axe script uses it).
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ url: await axeUrl() });
  const result = (await page.evaluate(() =>
    (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<unknown> } }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
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

/**
 * Waits for the page to arrive at `url` after a step; when it does not, the failure says
 * where the page is and what it shows (its status or error message, or the start of main),
 * so that a refusal on a loaded CI machine is told apart from a step that never answered.
 */
export async function arrivedAt(page: Page, url: RegExp, timeout = 30_000): Promise<void> {
  try {
    await page.waitForURL(url, { timeout });
  } catch (error) {
    const shown = await page
      .locator('[role="status"], [role="alert"], .error, main')
      .first()
      .textContent({ timeout: 1000 })
      .catch(() => null);
    assert.fail(
      `not at ${url} after ${timeout} ms, but at ${page.url()}, showing: ${(shown ?? '(nothing)').replace(/\s+/g, ' ').trim().slice(0, 400)}\n${String(error)}`,
    );
  }
}

export const NEW_PASSWORD = 'ein gutes neues Passwort';

export type InBrowser = {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The app's address, http://127.0.0.1:<port>. */
  base: string;
  /** Closes the browser contexts made since the open; the test still closes its TestApp. */
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
  const before = new Set(browser.contexts());
  // Closes the contexts made since the open (this one and any the test made itself); the browser stays for the next file.
  const close = async () => {
    for (const context of browser.contexts()) if (!before.has(context)) await context.close();
  };
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
    return { browser, context, page, base, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Skips the test when there is no Chromium (and it is not required). */
export function needsChromium(t: TestContext): boolean {
  const missing = chromiumMissing();
  if (missing) t.skip(missing);
  return !missing;
}
