import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { partnerWithOctoberGutschrift, putAgreement, putAttribution, putPartner } from '../commissions/helpers.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { arrivedAt, assertAccessible, chromiumMissing, type InBrowser, openInBrowser, screenshot } from './browser.ts';

// Issue 15 (revenue share in the app) in Chromium over real HTTP: the statement list, a
// draft issued from its page by keyboard, the issued statement with its PDF, and an
// attribution confirmed — each page without a serious or critical axe-core violation.

const missing = chromiumMissing();

describe('statements and attributions in Chromium', { skip: missing }, () => {
  let t: TestApp;
  let opened: InBrowser;
  let page: Page;
  let base: string;
  let statementId: string;

  before(async () => {
    t = await testApp({ now: '2026-10-20T10:00:00Z' });
    await t.handle.db
      .updateTable('companies')
      .set({ statements_need_review: true, attributions_need_confirmation: true })
      .where('id', '=', t.company.companyId)
      .execute();
    const partnerId = await partnerWithOctoberGutschrift(t, 'gs', { name: 'Vertriebspartner Nord GmbH', netAmount: '800.00' });
    statementId = (await t.handle.db.selectFrom('commission_statements').select('id').where('partner_id', '=', partnerId).executeTakeFirstOrThrow()).id;
    await putPartner(t, 'ada', { name: 'Entwicklerin Ada' });
    await putAgreement(t, 'ada-ag', {
      partner_ref: 'ada',
      name: 'Entwickler 2026',
      start_date: '2026-01-01',
      tiers: [{ from_month: 1, to_month: null, percent: 15 }],
    });
    await putCustomer(t, 'kunde-1');
    await putAttribution(t, 'att-1', { agreement_ref: 'ada-ag', customer: { source: 'crm', external_ref: 'kunde-1' } });
    opened = await openInBrowser(t);
    ({ page, base } = opened);
  });
  after(async () => {
    await opened?.close();
    await t?.close();
  });

  test('the statement list, then a draft issued from its page by keyboard', async () => {
    await page.goto(`${base}/app/statements`);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Abrechnungen');
    await assertAccessible(page, 'statements');
    await screenshot(page, 'statements');
    await page.getByRole('link', { name: 'Entwurf' }).click();
    await arrivedAt(page, new RegExp(`/app/statements/${statementId}$`));
    await assertAccessible(page, 'statement draft');
    await page.getByRole('button', { name: 'Ausstellen' }).focus();
    await page.keyboard.press('Enter');
    await arrivedAt(page, /done=issued$/);
    assert.equal(await page.getByRole('status').textContent(), 'Die Abrechnung wurde als GS-2026-00001 ausgestellt.');
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Gutschrift GS-2026-00001');
    assert.equal(await page.locator('iframe.pdf').getAttribute('title'), 'Vorschau der Abrechnung (PDF)');
    await assertAccessible(page, 'statement detail');
    await screenshot(page, 'statement-detail');
  });

  test('an attribution confirmed with a click', async () => {
    await page.goto(`${base}/app/attributions`);
    await assertAccessible(page, 'attributions');
    await screenshot(page, 'attributions');
    await page.getByRole('button', { name: 'Beispiel AG für Entwicklerin Ada bestätigen' }).click();
    await arrivedAt(page, /done=confirmed$/);
    assert.match((await page.getByRole('status').textContent()) ?? '', /Die Zuordnung ist bestätigt\./);
    assert.equal(await page.getByRole('button', { name: 'Bestätigen' }).count(), 0);
    await assertAccessible(page, 'attributions after the decision');
  });
});
