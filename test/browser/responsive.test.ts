import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { invitePerson } from '../../src/modules/access/people.ts';
import { createDatevExport, lockPeriod } from '../../src/modules/bookkeeping/index.ts';
import { setPayoutAccount } from '../../src/modules/commissions/index.ts';
import { createAppDraft } from '../../src/modules/invoicing/index.ts';
import { runPayout } from '../../src/modules/payouts/payout-run.ts';
import { addWebhookEndpoint, webhookDelivery } from '../../src/modules/webhooks/index.ts';
import { partnerWithOctoberGutschrift, putAgreement, putAttribution, putPartner } from '../commissions/helpers.ts';
import { putContract, putProducts, runBilling } from '../contracts/helpers.ts';
import { issueInvoice as issueDunnedInvoice, putCustomerOf, runDay, type Scenario } from '../dunning/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { BUSINESS_CUSTOMER, putCustomer } from '../invoicing/helpers.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';
import { type Receiver, record, startReceiver } from '../webhooks/helpers.ts';
import { assertAccessible, chromiumMissing, type InBrowser, openInBrowser, screenshot } from './browser.ts';

// Issue 25 §5 (a phone and a keyboard): every page of the app, with data on it, at 390 × 844
// (a phone) and at 1366 × 768 (a laptop). The page never scrolls sideways; at 1366 px no
// table is cut (every column in view without scrolling its box); on the phone a table
// scrolls inside its own box, which the keyboard reaches and which has a name; the menu
// button opens the navigation by keyboard (Tab, Enter) and Escape closes it; without script
// the navigation stands below the content. axe-core finds no serious or critical violation
// at either width. Screenshots of every page at both widths (browser.ts, SCREENSHOTS): with
// KONTOR_SCREENSHOTS=docs docs/screenshots/<page>-desktop.png and -phone.png (`npm run
// screenshots`), with another value artifacts/screenshots/responsive/; a plain `npm test`
// takes none.

const missing = chromiumMissing();
const ROOT = path.resolve(import.meta.dirname, '../..');
/** The page's screenshot as `name`.png (docs/screenshots, or artifacts/screenshots/responsive). */
const shoot = (page: Page, name: string) => screenshot(page, process.env.KONTOR_SCREENSHOTS === 'docs' ? name : `responsive/${name}`, { fullPage: false });
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 768 };
const LONG_NAME = 'Müller-Lüdenscheidt Software- und Beratungsgesellschaft mbH & Co. KG';
const { email: _dropped, ...WITHOUT_EMAIL } = BUSINESS_CUSTOMER;

/** GET routes of src/web/pages that answer a file, not a page (downloads, previews; `${kind}` read as :kind); so does every route ending in a file extension (/audit.csv). */
const NOT_PAGES = new Set([
  '/invoices/:id/:kind',
  '/statements/:id/:kind',
  '/statements/:id/partner-invoice-file',
  '/dunning/:id/pdf',
  '/payouts/:id/file',
  '/tax/verfahrensdokumentation.:kind',
]);

type Visit = { name: string; route: string; path: string };

/** Every GET route the app's page modules register (web.get / scope.get). */
function registeredRoutes(): string[] {
  const dir = path.join(ROOT, 'src/web/pages');
  const routes = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    for (const match of readFileSync(path.join(dir, file), 'utf8').matchAll(/\b(?:web|scope)\.get\(\s*['`]([^'`]+)['`]/g))
      routes.add((match[1] as string).replace(/\$\{\w+\}/g, ':kind'));
  }
  return [...routes].filter((r) => !NOT_PAGES.has(r) && !/\.[a-z]+$/.test(r)).sort();
}

describe('every page at 390 px and at 1366 px, by keyboard, in Chromium', { skip: missing }, () => {
  let t: TestApp;
  let opened: InBrowser;
  let browser: Browser;
  let desktop: Page;
  let phone: Page;
  let phoneContext: BrowserContext;
  let receiver: Receiver;
  let base: string;
  let visits: Visit[];

  before(async () => {
    t = await testApp({ now: '2026-10-01T08:00:00Z' });
    const companyId = t.company.companyId;
    const actor = { userId: t.company.userId, organizationId: t.company.organizationId, companyId, email: t.company.adminEmail };
    const db = t.handle.db;
    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'lang', { name: LONG_NAME });
    await putProducts(t);
    await putContract(t, 'saas-1', {
      customer: { source: 'crm', external_ref: 'kunde-1' },
      name: 'SaaS Business',
      status: 'active',
      billing_interval: 'month',
      start_date: '2026-10-01',
      items: [
        { ref: 'hosting', product_number: 'HOST-S' },
        { ref: 'api', product_ref: 'api-calls' },
      ],
    });
    await runBilling(t, '2026-10-01');
    const paidInPart = await issueInvoice(t, 'a-1', { payment_terms_days: 14 });
    await issueInvoice(t, 'lang-1', { customer: { source: 'crm', external_ref: 'lang' } });
    // A Gutschrift for October (clock then 2026-11-21), and an attribution to confirm.
    const partnerId = await partnerWithOctoberGutschrift(t, 'gs', { name: 'Vertriebspartner Nord GmbH', netAmount: '800.00' });
    await db.updateTable('companies').set({ attributions_need_confirmation: true }).where('id', '=', companyId).execute();
    await putPartner(t, 'ada', { name: 'Entwicklerin Ada' });
    await putAgreement(t, 'ada-ag', {
      partner_ref: 'ada',
      name: 'Entwickler 2026',
      start_date: '2026-01-01',
      tiers: [{ from_month: 1, to_month: null, percent: 15 }],
    });
    await putAttribution(t, 'att-1', { agreement_ref: 'ada-ag', customer: { source: 'crm', external_ref: 'lang' } });
    // A bank statement: a part payment and a credit nobody can place.
    await importFile(
      t,
      camt([
        { amount: '50.00', text: `Teilzahlung ${paidInPart.number}`, name: 'Beispiel AG', date: '2026-11-20' },
        { amount: '12.34', text: 'Sammelzahlung ohne Angabe', name: LONG_NAME, date: '2026-11-20' },
      ]),
    );
    // A reminder that could not go out (no e-mail address), on 2026-12-12.
    const s: Scenario = { company: t.company, mailer: t.mailer };
    await putCustomerOf(t, s, 'ohne-mail');
    await issueDunnedInvoice(t, s, 'b-1', 'ohne-mail', '2026-11-21');
    await putCustomerOf(t, s, 'ohne-mail', WITHOUT_EMAIL);
    await runDay(t, s, '2026-12-12');
    // The Gutschrift paid out in a run; an API key; a webhook endpoint with a failed delivery;
    // a person invited; a draft written in the app; a locked period; a DATEV export.
    const deps = { db, clock: t.clock, sealer };
    await setPayoutAccount(deps, companyId, partnerId, { iban: 'DE02 1203 0000 0000 2020 51', bic: null }, actor);
    const statementId = (await db.selectFrom('commission_statements').select('id').where('partner_id', '=', partnerId).executeTakeFirstOrThrow()).id;
    const run = await runPayout(deps, companyId, { statementIds: [statementId], executionDate: '2026-12-14' }, actor);
    await t.newKey();
    receiver = await startReceiver((_request, response) => {
      response.writeHead(503).end();
    });
    const endpointId = (await addWebhookEndpoint(db, t.clock, sealer, { companyId, url: receiver.url(), events: ['invoice.paid'] })).id;
    await record(db, companyId, 'invoice.paid', { id: 'inv_browser' });
    await webhookDelivery({ db, sealer }, { log: () => {}, retryWindowMs: 0 }).drain({ companyId });
    await invitePerson({ db, clock: t.clock }, actor, { email: 'kollegin@example.com', role: 'member', companyIds: [companyId] });
    const customerId = (
      await db.selectFrom('customers').select('id').where('company_id', '=', companyId).where('external_ref', '=', 'lang').executeTakeFirstOrThrow()
    ).id;
    const draft = await createAppDraft(
      { ...t.invoicing, db, clock: t.clock },
      companyId,
      {
        customer: { source: 'crm', external_ref: 'kunde-1' },
        lines: [{ description: 'Wartung Dezember', quantity: '2', unit: 'Stunde', unit_price_net: '100.00', vat_rate: 19 }],
        service_period: { start: '2026-12-01', end: '2026-12-31' },
      },
      actor,
    );
    await lockPeriod(db, t.clock, { companyId, until: '2026-09-30', actor });
    await createDatevExport(db, companyId, { from: '2026-11-01', to: '2026-11-30', now: t.clock.now(), actor });
    const contractId = (await db.selectFrom('contracts').select('id').where('company_id', '=', companyId).executeTakeFirstOrThrow()).id;

    visits = [
      { name: 'dashboard', route: '/dashboard', path: '/app/dashboard' },
      { name: 'invoices', route: '/invoices', path: '/app/invoices' },
      { name: 'invoice', route: '/invoices/:id', path: `/app/invoices/${paidInPart.id}` },
      { name: 'invoice-new', route: '/invoices/new', path: `/app/invoices/new?customer=${customerId}` },
      { name: 'invoice-edit', route: '/invoices/:id/edit', path: `/app/invoices/${draft.id}/edit` },
      { name: 'customers', route: '/customers', path: '/app/customers' },
      { name: 'customer', route: '/customers/:id', path: `/app/customers/${customerId}` },
      { name: 'contracts', route: '/contracts', path: '/app/contracts' },
      { name: 'contract', route: '/contracts/:id', path: `/app/contracts/${contractId}` },
      { name: 'bank', route: '/bank', path: '/app/bank' },
      { name: 'dunning', route: '/dunning', path: '/app/dunning' },
      { name: 'exports', route: '/exports', path: '/app/exports' },
      { name: 'tax', route: '/tax/ustva', path: '/app/tax/ustva?period=2026-Q4' },
      { name: 'gobd', route: '/tax/gobd', path: '/app/tax/gobd' },
      { name: 'partners', route: '/partners', path: '/app/partners' },
      { name: 'partner', route: '/partners/:id', path: `/app/partners/${partnerId}` },
      { name: 'attributions', route: '/attributions', path: '/app/attributions' },
      { name: 'statements', route: '/statements', path: '/app/statements' },
      { name: 'statement', route: '/statements/:id', path: `/app/statements/${statementId}` },
      { name: 'payouts', route: '/payouts', path: '/app/payouts' },
      { name: 'payout', route: '/payouts/:id', path: `/app/payouts/${run.runId}` },
      { name: 'settings', route: '/settings', path: '/app/settings' },
      { name: 'period-locks', route: '/settings/period-locks', path: '/app/settings/period-locks' },
      { name: 'api-keys', route: '/api-keys', path: '/app/api-keys' },
      { name: 'webhooks', route: '/webhooks', path: '/app/webhooks' },
      { name: 'webhook', route: '/webhooks/:id', path: `/app/webhooks/${endpointId}` },
      { name: 'users', route: '/users', path: '/app/users' },
      { name: 'audit', route: '/audit', path: '/app/audit' },
      { name: 'password', route: '/password', path: '/app/password' },
      { name: 'sign-in', route: '/sign-in', path: '/app/sign-in' },
    ];

    opened = await openInBrowser(t, { viewport: DESKTOP });
    ({ browser, base, page: desktop } = opened);
    phoneContext = await browser.newContext({ locale: 'de-DE', bypassCSP: true, viewport: PHONE, storageState: await opened.context.storageState() });
    phone = await phoneContext.newPage();
  });
  after(async () => {
    await opened?.close();
    await receiver?.close();
    await t?.close();
  });

  /** The page opened as the signed-in admin, or signed out for the sign-in page. */
  const open = async (page: Page, visit: Visit) => {
    const target =
      visit.name === 'sign-in'
        ? await page
            .context()
            .browser()
            ?.newContext({ locale: 'de-DE', bypassCSP: true, viewport: page.viewportSize() ?? PHONE })
        : null;
    const on = target ? await target.newPage() : page;
    const response = await on.goto(`${base}${visit.path}`);
    assert.equal(response?.status(), 200, visit.name);
    assert.ok(((await on.getByRole('heading', { level: 1 }).textContent()) ?? '').length > 0, `${visit.name}: a heading`);
    return { on, done: async () => target?.close() };
  };
  const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);
  /** The outermost elements reaching past the window's right edge (for the message). */
  const tooWide = (page: Page) =>
    page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const past = (e: Element) => e.getBoundingClientRect().right > width + 1;
      return [...document.querySelectorAll('body *')]
        .filter((e) => past(e) && !(e.parentElement && past(e.parentElement)))
        .map(
          (e) =>
            `${e.tagName.toLowerCase()}${e.className ? `.${String(e.className).split(' ').join('.')}` : ''} (${Math.round(e.getBoundingClientRect().right)} px)`,
        )
        .slice(0, 5);
    });
  const fits = async (page: Page, width: number, what: string) => {
    const scrollWidth = await pageWidth(page);
    assert.ok(scrollWidth <= width, `${what}: ${scrollWidth} px wide at ${width} px: ${(await tooWide(page)).join(', ')}`);
  };

  test('the pages visited are every page the app registers', () => {
    assert.deepEqual(visits.map((v) => v.route).sort(), registeredRoutes());
  });

  test('at 1366 × 768 every page fits, no table is cut, axe finds nothing serious', async () => {
    for (const visit of visits) {
      const { on, done } = await open(desktop, visit);
      await fits(on, DESKTOP.width, visit.name);
      const cut = await on.$$eval('.table-wrap', (boxes) =>
        boxes
          .filter((b) => b.scrollWidth > b.clientWidth + 1)
          .map((b) => `${b.getAttribute('aria-label') ?? b.getAttribute('aria-labelledby')}: ${b.scrollWidth} > ${b.clientWidth}`),
      );
      assert.deepEqual(cut, [], `${visit.name}: tables cut at 1366 px`);
      assert.equal(await on.locator('.nav-toggle').isVisible(), false, `${visit.name}: no menu button on a wide screen`);
      await assertAccessible(on, `${visit.name} (1366 px)`);
      await shoot(on, `${visit.name}-desktop`);
      await done();
    }
  });

  test('at 390 × 844 every page fits without sideways scrolling, the menu button opens the navigation by keyboard, axe finds nothing serious', async () => {
    for (const visit of visits) {
      const { on, done } = await open(phone, visit);
      await fits(on, PHONE.width, visit.name);
      await assertAccessible(on, `${visit.name} (390 px)`);
      await shoot(on, `${visit.name}-phone`);
      if (visit.name !== 'sign-in') {
        const nav = on.getByRole('navigation', { name: 'Kontor' });
        const button = on.getByRole('button', { name: 'Menü' });
        assert.equal(await nav.isVisible(), false, `${visit.name}: the navigation is folded away`);
        assert.equal(await button.getAttribute('aria-expanded'), 'false');
        // The skip link first, then the menu button.
        await on.keyboard.press('Tab');
        assert.equal(await on.evaluate(() => document.activeElement?.textContent), 'Zum Inhalt springen', visit.name);
        await on.keyboard.press('Tab');
        assert.equal(await on.evaluate(() => document.activeElement?.className), 'nav-toggle', visit.name);
        await on.keyboard.press('Enter');
        assert.equal(await button.getAttribute('aria-expanded'), 'true', visit.name);
        assert.equal(await nav.isVisible(), true, `${visit.name}: the navigation opened`);
        await fits(on, PHONE.width, `${visit.name} with the navigation open`);
        await on.keyboard.press('Tab');
        assert.equal(await on.evaluate(() => document.activeElement?.closest('nav')?.id), 'nav', `${visit.name}: Tab goes on into the navigation`);
        await on.keyboard.press('Escape');
        assert.equal(await nav.isVisible(), false, `${visit.name}: Escape closes the navigation`);
        assert.equal(await on.evaluate(() => document.activeElement?.className), 'nav-toggle', `${visit.name}: back on the button`);
      }
      await done();
    }
  });

  test('on a phone: the open menu, a table scrolling in its own box reached by Tab, focus always visible', async () => {
    await phone.goto(`${base}/app/invoices`);
    const box = phone.locator('.table-wrap').first();
    assert.equal(await box.getAttribute('role'), 'region');
    assert.equal(await box.getAttribute('tabindex'), '0');
    assert.equal(await box.getAttribute('aria-label'), 'Rechnungen');
    const sizes = await box.evaluate((b) => ({ scroll: b.scrollWidth, client: b.clientWidth, overflow: getComputedStyle(b).overflowX }));
    assert.ok(sizes.scroll > sizes.client, 'the invoice table is wider than the phone and scrolls in its box');
    assert.equal(sizes.overflow, 'auto');
    await box.focus();
    await phone.keyboard.press('ArrowRight');
    await phone.waitForFunction(() => (document.querySelector('.table-wrap')?.scrollLeft ?? 0) > 0);
    const outline = () => phone.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle);
    assert.notEqual(await outline(), 'none', 'the focused table box shows its focus');
    await phone.getByRole('button', { name: 'Menü' }).focus();
    assert.notEqual(await outline(), 'none', 'the focused menu button shows its focus');
    await phone.keyboard.press('Enter');
    await phone.getByRole('link', { name: 'Rechnungen', exact: true }).focus();
    assert.notEqual(await outline(), 'none', 'a focused navigation link shows its focus');
    await assertAccessible(phone, 'invoices with the menu open (390 px)');
    await shoot(phone, 'menu-phone');
  });

  test('without script the navigation stands below the content, reached by the "Menü" link', async () => {
    const plain = await browser.newContext({ locale: 'de-DE', viewport: PHONE, javaScriptEnabled: false, storageState: await phoneContext.storageState() });
    try {
      const page = await plain.newPage();
      await page.goto(`${base}/app/dashboard`);
      assert.equal(await page.getByRole('button', { name: 'Menü' }).isVisible(), false);
      const jump = page.getByRole('link', { name: 'Menü' });
      assert.equal(await jump.getAttribute('href'), '#nav');
      const nav = page.getByRole('navigation', { name: 'Kontor' });
      assert.equal(await nav.isVisible(), true);
      const [navTop, mainBottom] = await page.evaluate(() => [
        document.getElementById('nav')?.getBoundingClientRect().top ?? 0,
        document.getElementById('main')?.getBoundingClientRect().bottom ?? 0,
      ]);
      assert.ok(navTop >= mainBottom, `the navigation (${navTop}) below main (${mainBottom})`);
      await fits(page, PHONE.width, 'dashboard without script');
    } finally {
      await plain.close();
    }
  });
});
