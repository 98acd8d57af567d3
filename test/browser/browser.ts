import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';

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

/** Skips the test when there is no Chromium (and it is not required). */
export function needsChromium(t: TestContext): boolean {
  const missing = chromiumMissing();
  if (missing) t.skip(missing);
  return !missing;
}
