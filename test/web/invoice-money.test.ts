import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 25, point 1.1: an invoice's page shows its money — amount paid and open, each
// payment with its bank transaction (booking day, payer, remittance, the imported file), the
// money a refund took back as a negative row, the payments in the history, and the bookings
// of the invoice and its payments as Soll/Haben rows with their text.
// Invoices: 85.06 EUR gross (71.48 net + 13.58 VAT).

/** The rows of the table under the heading `id`, as cell texts. */
function table(body: string, id: string): string[][] {
  const section = new RegExp(`aria-labelledby="${id}"[\\s\\S]*?</section>`).exec(body)?.[0] ?? '';
  const tbody = /<tbody>([\s\S]*?)<\/tbody>/.exec(section)?.[1] ?? '';
  return [...tbody.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
    [...(m[1] as string).matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) =>
      (c[1] as string)
        .replace(/<br>/g, ' ')
        .replace(/<[^>]+>/g, '')
        .replace(/[ \n]+/g, ' ')
        .trim(),
    ),
  );
}

/** The facts under the payments heading: label → value. */
function facts(body: string): Record<string, string> {
  const section = /aria-labelledby="payments-heading"[\s\S]*?<\/dl>/.exec(body)?.[0] ?? '';
  return Object.fromEntries([...section.matchAll(/<dt>([^<]*)<\/dt><dd[^>]*>([^<]*)<\/dd>/g)].map((m) => [m[1], m[2]]));
}

/** The history lines, without their time. */
function history(body: string): string[] {
  const list = /<ul class="timeline">([\s\S]*?)<\/ul>/.exec(body)?.[1] ?? '';
  return [...list.matchAll(/<li><time>[^<]*<\/time> ([\s\S]*?)<\/li>/g)].map((m) => (m[1] as string).trim());
}

describe('an invoice page shows its payments and bookings', () => {
  let t: TestApp;
  let web: WebClient;
  let partly: { id: string; number: string };
  let unpaid: { id: string; number: string };
  let draft: { id: string };

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    partly = await issueInvoice(t, 'm-partly');
    unpaid = await issueInvoice(t, 'm-unpaid');
    draft = (await postInvoice(t, invoiceBody('m-draft'))).json() as { id: string };
    await importFile(
      t,
      camt([{ amount: '50.00', text: `Rechnung ${partly.number} Teilzahlung`, name: 'Beispiel & Partner AG', date: '2026-11-20' }], {
        id: 'M-PAY',
        msgId: 'M-PAY',
      }),
      'umsaetze-november.xml',
    );
    await importFile(
      t,
      camt([{ amount: '10.00', indicator: 'DBIT', text: `Erstattung ${partly.number}`, name: 'Beispiel & Partner AG', date: '2026-11-22' }], {
        id: 'M-REF',
        msgId: 'M-REF',
      }),
      'erstattung.xml',
    );
    web = await signedIn(t);
  });
  after(() => t.close());

  test('a partly paid invoice: paid, open, the payment with its bank transaction and the refund as a negative row', async () => {
    const page = await web.get(`/app/invoices/${partly.id}`);
    assert.equal(page.status, 200);
    assert.deepEqual(facts(page.body), { Brutto: '85,06\u00a0€', Bezahlt: '40,00\u00a0€', Offen: '45,06\u00a0€' });
    assert.deepEqual(table(page.body, 'payments-heading'), [
      [
        '20.11.2026',
        'Zahlung',
        'Buchungstag 20.11.2026',
        'Beispiel &amp; Partner AG',
        `Rechnung ${partly.number} Teilzahlung`,
        'umsaetze-november.xml, importiert am 21.11.2026',
        '50,00\u00a0€',
      ],
      [
        '22.11.2026',
        'Erstattung an den Kunden',
        'Buchungstag 22.11.2026',
        'Beispiel &amp; Partner AG',
        `Erstattung ${partly.number}`,
        'erstattung.xml, importiert am 21.11.2026',
        '-10,00\u00a0€',
      ],
    ]);
    assert.match(page.body, /<th scope="row" colspan="6">Summe der Zahlungen<\/th><td class="num strong">40,00\u00a0€<\/td>/);
    assert.deepEqual(history(page.body), [
      `Rechnung ${partly.number} ausgestellt`,
      'Zahlung über 50,00\u00a0€ eingegangen (Buchungstag 20.11.2026, von Beispiel &amp; Partner AG)',
      'Erstattung an den Kunden vom 22.11.2026: 10,00\u00a0€ der Zahlung zurückgebucht',
    ]);
  });

  test('the bookings of the invoice, its payment and its refund: date, document, text, Soll, Haben, amount', async () => {
    const page = await web.get(`/app/invoices/${partly.id}`);
    const n = partly.number;
    assert.deepEqual(
      table(page.body, 'bookings-heading').map((r) => r.slice(0, 6)),
      [
        ['20.11.2026', n, `Zahlungseingang ${n} Beispiel AG`, '1200', '10000', '50,00\u00a0€'],
        ['21.11.2026', n, `Rechnung ${n} Beispiel AG`, '10000', '8400', '49,00\u00a0€'],
        ['21.11.2026', n, `Rechnung ${n} Beispiel AG`, '10000', '8300', '25,00\u00a0€'],
        ['21.11.2026', n, `Rechnung ${n} Beispiel AG`, '10000', '1776', '9,31\u00a0€'],
        ['21.11.2026', n, `Rechnung ${n} Beispiel AG`, '10000', '1771', '1,75\u00a0€'],
        ['22.11.2026', n, `Erstattung ${n} Beispiel AG`, '10000', '1200', '10,00\u00a0€'],
      ],
    );
  });

  test('an unpaid invoice says nothing was paid and shows only its own bookings; a draft has no payments section', async () => {
    const page = await web.get(`/app/invoices/${unpaid.id}`);
    assert.deepEqual(facts(page.body), { Brutto: '85,06\u00a0€', Bezahlt: '0,00\u00a0€', Offen: '85,06\u00a0€' });
    assert.match(page.body, /Noch keine Zahlungen eingegangen\./);
    assert.doesNotMatch(page.body, /Zahlungseingang|Erstattung/);
    assert.deepEqual(
      table(page.body, 'bookings-heading').map((r) => r[2]),
      Array(4).fill(`Rechnung ${unpaid.number} Beispiel AG`),
    );
    const draftPage = await web.get(`/app/invoices/${draft.id}`);
    assert.equal(draftPage.status, 200);
    assert.doesNotMatch(draftPage.body, /payments-heading|Zahlungen<\/h2>/);
  });

  test('in English the payments section is worded in English', async () => {
    await web.get('/app/lang?to=en', { referer: `http://kontor.test/app/invoices/${partly.id}` });
    const page = await web.get(`/app/invoices/${partly.id}`);
    assert.match(page.body, /<h2 id="payments-heading">Payments<\/h2>/);
    assert.match(page.body, /Refund to the customer/);
    // (Amounts and dates in English follow the language's format: pages/money.ts.)
    assert.match(page.body, /Payment of [^<]+ received \(booked [^<]+, from Beispiel &amp; Partner AG\)/);
    assert.doesNotMatch(page.body, /Zahlung über|Bezahlt<\/dt>/);
    await web.get('/app/lang?to=de', { referer: 'http://kontor.test/app/dashboard' });
  });
});
