import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { formatIn, typedDecimal } from '../../src/web/pages/money.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { issueInvoice } from '../payments/helpers.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 25, §2 (English): dates and amounts follow the page's language — German
// "21.11.2026" and "1.234,56 €", English "21 Nov 2026" and "€1,234.56" — on every page that
// formats them through money.ts, without each page passing the language.

const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|\u00a0/g, ' ')
    .replace(/\s+/g, ' ');

describe('dates and amounts in the page language', () => {
  let t: TestApp;
  let web: WebClient;
  let invoice: { id: string; number: string };

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    // 1,234.56 net at 19 %: 1,469.13 gross.
    invoice = await issueInvoice(t, 'big-1', { lines: [{ description: 'Beratung', quantity: '1', unit: 'Stunde', unit_price_net: '1234.56', vat_rate: 19 }] });
    web = await signedIn(t);
  });
  after(() => t.close());

  test('German: 21.11.2026 and 1.469,13 €', async () => {
    const list = text((await web.get('/app/invoices')).body);
    assert.match(list, new RegExp(`${invoice.number} Beispiel AG 21\\.11\\.2026 05\\.12\\.2026 1\\.469,13 € Ausgestellt`));
    const detail = await web.get(`/app/invoices/${invoice.id}`);
    assert.match(text(detail.body), /1\.469,13 €/);
    assert.match(text(detail.body), /21\.11\.2026/);
  });

  test('English: 21 Nov 2026 and €1,469.13 on the list, the invoice, the dashboard and the audit trail; German again after switching back', async () => {
    await web.get('/app/lang?to=en');
    const list = await web.get('/app/invoices');
    assert.match(list.body, /<html lang="en">/);
    assert.match(text(list.body), new RegExp(`${invoice.number} Beispiel AG 21 Nov 2026 5 Dec 2026 €1,469\\.13 Issued`));
    const detail = text((await web.get(`/app/invoices/${invoice.id}`)).body);
    assert.match(detail, /€1,469\.13/);
    assert.match(detail, /21 Nov 2026/);
    assert.doesNotMatch(detail, /1\.469,13|21\.11\.2026/);
    const dashboard = await web.get('/app/dashboard');
    assert.match(dashboard.body, /<span class="tile-amount">€1,469\.13<\/span>/);
    assert.match(dashboard.body, /<th scope="row">Nov 2026<\/th><td class="num">€1,234\.56<\/td>/);
    // Instants (the audit trail, the sign-in above) read "27 Nov 2026, 10:00" in English.
    const audit = text((await web.get('/app/audit')).body);
    assert.doesNotMatch(audit, /\d\d\.\d\d\.\d{4}/);
    await web.get('/app/lang?to=de');
    assert.match(text((await web.get('/app/invoices')).body), /21\.11\.2026 05\.12\.2026 1\.469,13 €/);
  });

  test('typed amounts: German notation in German, English in English, and 1234.56 in both', () => {
    const read = (lang: 'de' | 'en', typed: string[]) => formatIn(lang, () => typed.map(typedDecimal));
    assert.deepEqual(read('de', ['1.234,56', '1234,56', '1234.56', '12.5', '1.234', '-0,5', '12', '1,234.56', 'zwölf']), [
      '1234.56',
      '1234.56',
      '1234.56',
      '12.5',
      '1234',
      '-0.5',
      '12',
      null,
      null,
    ]);
    assert.deepEqual(read('en', ['1,234.56', '1234.56', '1234,56', '1,234', '0.005', '1.234,56']), ['1234.56', '1234.56', '1234.56', '1234', '0.005', null]);
  });
});
