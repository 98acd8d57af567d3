import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { runDueWork } from '../../src/jobs/index.ts';
import { postEvent, putAgreement, putPartner, SELF_BILLING_PARTNER } from '../commissions/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { SMTP_PASSWORD, SMTP_USER, startSmtpServer, type TestSmtpServer } from '../mail/fixtures.ts';
import { arrivedAt, assertAccessible, chromiumMissing, type InBrowser, openInBrowser, screenshot } from './browser.ts';

// Issue 25 §3 in Chromium: a double click on a statement's "Versenden" mails it once; the
// payout run is chosen (nothing pre-ticked), reviewed on a confirmation page and only then
// carried out; replacing a payout account asks first; a new API key is shown once and a
// reload shows it no more. Each page axe-checked; screenshots statement-sent,
// payout-confirm (and -390), payout-account-replace, api-key-shown-once.

const missing = chromiumMissing();

describe('steps that cannot happen by accident, in Chromium', { skip: missing }, () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let opened: InBrowser;
  let page: Page;
  let base: string;
  const partners: Record<string, string> = {};
  const statementOf = (ref: string) =>
    t.handle.db
      .selectFrom('commission_statements')
      .select(['id', 'status', 'paid_at'])
      .where('partner_id', '=', partners[ref] as string)
      .executeTakeFirstOrThrow();

  before(async () => {
    t = await testApp({ now: '2026-10-20T10:00:00Z' });
    smtp = await startSmtpServer();
    await t.handle.db
      .updateTable('companies')
      .set({
        statements_need_review: true,
        iban: 'DE89370400440532013000',
        bic: 'COBADEFFXXX',
        smtp: JSON.stringify({
          host: '127.0.0.1',
          port: smtp.port,
          secure: false,
          user: SMTP_USER,
          password_sealed: sealer.seal(SMTP_PASSWORD),
          from: SMTP_USER,
        }),
      })
      .where('id', '=', t.company.companyId)
      .execute();
    for (const ref of ['mail', 'pay']) {
      partners[ref] = await putPartner(t, ref, { ...SELF_BILLING_PARTNER, name: `Vertrieb ${ref === 'mail' ? 'Nord' : 'Süd'} GmbH`, email: null });
      await putAgreement(t, `${ref}-ag`, {
        partner_ref: ref,
        start_date: '2026-01-01',
        applies_to: 'all_customers',
        tiers: [{ from_month: 1, to_month: null, percent: 10 }],
      });
    }
    await postEvent(t, { external_ref: 'umsatz-oktober', occurred_at: '2026-10-10T10:00:00Z', net_amount: '800.00' });
    t.clock.set('2026-11-01T12:00:00Z');
    await runDueWork(
      { db: t.handle.db, clock: t.clock, services: { invoicing: t.invoicing } },
      { asOf: '2026-11-01', companyId: t.company.companyId, log: () => {} },
    );
    t.clock.set('2026-11-21T10:00:00Z');
    opened = await openInBrowser(t);
    ({ page, base } = opened);
    page.on('dialog', (dialog) => void dialog.accept());
  });
  after(async () => {
    await opened?.close();
    await smtp?.close();
    await t?.close();
  });

  test('a double click on "Versenden" mails the statement once; then no "Versenden" is offered', async () => {
    const { id } = await statementOf('mail');
    await page.goto(`${base}/app/statements/${id}`);
    await page.getByRole('button', { name: 'Ausstellen' }).dblclick();
    await arrivedAt(page, /done=issued$/);
    assert.equal(await page.getByRole('button', { name: 'Versenden' }).count(), 0, 'no e-mail address yet: nothing to send');
    // The partner's address arrives after issuing: now "Versenden" is the step.
    await t.handle.db
      .updateTable('commission_partners')
      .set({ email: 'nord@partner.example' })
      .where('id', '=', partners.mail as string)
      .execute();
    await page.reload();
    await page.getByRole('button', { name: 'Versenden' }).dblclick();
    await arrivedAt(page, /done=sent$/);
    assert.match((await page.getByRole('status').first().textContent()) ?? '', /an nord@partner\.example versendet/);
    assert.equal(smtp.received.length, 1, 'one mail');
    assert.equal(await page.getByRole('button', { name: 'Versenden' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Erneut senden' }).count(), 0);
    await assertAccessible(page, 'statement sent');
    await screenshot(page, 'statement-sent');
  });

  test('payout run: nothing ticked; the confirmation shows count, total, date and account; only it marks paid', async () => {
    const { id } = await statementOf('pay');
    await page.goto(`${base}/app/statements/${id}`);
    await page.getByRole('button', { name: 'Ausstellen' }).click();
    await arrivedAt(page, /done=issued$/);
    // A payout account first (no question), then replaced (asked, old and new masked).
    await page.goto(`${base}/app/partners/${partners.pay}`);
    await page.getByLabel('IBAN').fill('DE02 1203 0000 0000 2020 51');
    await page.getByRole('button', { name: 'Auszahlungskonto speichern' }).click();
    await arrivedAt(page, /done=1$/);
    await page.getByLabel('IBAN').fill('DE02 1001 0010 0006 8201 01');
    await page.getByRole('button', { name: 'Auszahlungskonto speichern' }).click();
    await page.getByRole('heading', { name: 'Auszahlungskonto ersetzen?' }).waitFor();
    const question = (await page.getByRole('main').textContent()) ?? '';
    assert.match(question, /Bisheriges KontoDE02 •••• 2051/);
    assert.match(question, /Neues KontoDE02 •••• 0101/);
    await assertAccessible(page, 'payout account replace');
    await screenshot(page, 'payout-account-replace');
    await page.getByRole('button', { name: 'Konto ersetzen' }).click();
    await arrivedAt(page, /done=1$/);
    assert.match((await page.getByRole('region', { name: 'Auszahlungskonto' }).textContent()) ?? '', /DE02 •••• 0101/);

    await page.goto(`${base}/app/payouts`);
    assert.equal(await page.locator('input[type="checkbox"]:checked').count(), 0, 'nothing pre-ticked');
    const box = page.getByRole('checkbox', { name: /Vertrieb Süd GmbH/ });
    await box.check();
    await page.getByRole('button', { name: 'Auszahlung prüfen' }).click();
    await page.getByRole('heading', { name: 'Auszahlung bestätigen' }).waitFor();
    const facts = (await page.locator('dl.facts').textContent()) ?? '';
    assert.match(facts, /Überweisungen1/);
    assert.match(facts, /Gesamtbetrag95,20\s€/);
    assert.match(facts, /Ausführungsdatum21\.11\.2026/);
    assert.match(facts, /Von KontoDE89 •••• 3000/);
    assert.equal((await statementOf('pay')).paid_at, null, 'nothing paid before the confirmation');
    await assertAccessible(page, 'payout confirmation');
    await screenshot(page, 'payout-confirm');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'payout-confirm-390');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Auszahlung ausführen und als bezahlt vermerken' }).dblclick();
    await arrivedAt(page, /\/app\/payouts\/prn_/);
    assert.ok((await statementOf('pay')).paid_at);
    const runs = await t.handle.db.selectFrom('payout_runs').select('id').execute();
    assert.equal(runs.length, 1, 'one run');
  });

  test('a new API key is shown once; a reload shows it no more and says so', async () => {
    await page.goto(`${base}/app/api-keys`);
    await page.getByRole('checkbox', { name: /partner:invoices:read/ }).check();
    await page.getByRole('button', { name: 'Schlüssel erstellen' }).click();
    await page.getByRole('heading', { name: 'Ihr neuer API-Schlüssel' }).waitFor();
    const key = ((await page.locator('code.secret').textContent()) ?? '').trim();
    assert.match(key, /^kt_/);
    assert.ok(!page.url().includes(key));
    await page.reload();
    assert.equal(await page.locator('code.secret').count(), 0);
    assert.match((await page.getByRole('alert').textContent()) ?? '', /Nur einmal angezeigt/);
    await assertAccessible(page, 'api key shown once');
    await screenshot(page, 'api-key-shown-once');
  });
});
