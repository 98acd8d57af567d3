import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dunningMail, noticeFileName } from '../../src/modules/dunning/notice-mail.ts';
import { renderNoticePdf } from '../../src/modules/dunning/render/notice-pdf.ts';
import { extractPages, fontsReport } from '../invoicing/render/pdf-reader.ts';
import { reminder, secondNotice } from './fixtures.ts';

const text = async (doc: Parameters<typeof renderNoticePdf>[0]) => extractPages(await renderNoticePdf(doc)).join('\n');

describe('dunning notice PDF', () => {
  test('the 2. Mahnung shows invoice, payments, open amount, fees, interest per period, lump sum, total and deadline', async () => {
    const page = await text(secondNotice());
    for (const expected of [
      '2. Mahnung',
      'Rechnung RE-2025-00042 vom 20.05.2025',
      'Fällig seit',
      '03.06.2025',
      'Zahlbar bis',
      '18.07.2025',
      '1.000,00\u00a0€',
      'abzüglich bereits gezahlt',
      '-400,00\u00a0€',
      'Offener Rechnungsbetrag',
      '600,00\u00a0€',
      'Mahngebühren früherer Mahnungen',
      '2,50\u00a0€',
      'Mahngebühr 2. Mahnung',
      '5,00\u00a0€',
      '3,71\u00a0€',
      '1,35\u00a0€',
      'Verzugspauschale (§\u00a0288 Abs. 5 BGB)',
      '40,00\u00a0€',
      'Zu zahlender Gesamtbetrag',
      '652,56\u00a0€',
      'Beispiel AG',
      'z. Hd. Max Muster',
    ]) {
      assert.ok(page.includes(expected), `missing ${JSON.stringify(expected)} in\n${page}`);
    }
    const flat = page.replace(/\s+/g, ' ');
    assert.match(flat, /Verzugszinsen 11,27 % p\. a\. \(Basiszinssatz 2,27 % \+ 9 Prozentpunkte\) vom 11\.06\.2025 bis 30\.06\.2025, 20 Tage/);
    assert.match(flat, /Verzugszinsen 10,27 % p\. a\. \(Basiszinssatz 1,27 % \+ 9 Prozentpunkte\) vom 01\.07\.2025 bis 08\.07\.2025, 8 Tage/);
    assert.match(flat, /DE89 3704 0044 0532 0130 00/);
    assert.match(flat, /Verwendungszweck: RE-2025-00042/);
    assert.match(flat, /seit dem 10\.06\.2025 in Zahlungsverzug/);
    assert.match(flat, /Seite 1 von 1/);
  });

  test('the payment reminder is polite and claims the open amount only', async () => {
    const page = await text(reminder());
    const flat = page.replace(/\s+/g, ' ');
    assert.ok(page.includes('Zahlungserinnerung'));
    assert.match(flat, /sicher ist es Ihrer Aufmerksamkeit entgangen/);
    assert.match(flat, /Wir bitten Sie freundlich/);
    assert.ok(!/Mahngebühr|Verzugszinsen|Verzugspauschale|Zahlungsverzug/.test(flat), flat);
    assert.ok(page.includes('1.000,00\u00a0€'));
  });

  test('a consumer gets § 288 Abs. 1 (base rate + 5 points) and no lump sum', async () => {
    const doc = secondNotice({
      consumer: true,
      lumpSum: '0.00',
      interest: {
        defaultSince: '2025-06-10',
        periods: [{ from: '2025-06-11', to: '2025-06-30', days: 20, baseRate: '2.27', rate: '7.27', amount: '2.39' }],
        amount: '2.39',
      },
      total: '609.89',
    });
    const flat = (await text(doc)).replace(/\s+/g, ' ');
    assert.match(flat, /Verzugszinsen 7,27 % p\. a\. \(Basiszinssatz 2,27 % \+ 5 Prozentpunkte\)/);
    assert.match(flat, /fünf Prozentpunkte über dem jeweiligen Basiszinssatz \(§ 288 Abs\. 1/);
    assert.ok(!flat.includes('Verzugspauschale'));
  });

  test('titles by level: Zahlungserinnerung, 1. Mahnung, 2. Mahnung, Letzte Mahnung', async () => {
    for (const [level, title] of [
      [0, 'Zahlungserinnerung'],
      [1, '1. Mahnung'],
      [2, '2. Mahnung'],
      [3, 'Letzte Mahnung'],
    ] as const) {
      const page = await text(secondNotice({ level }));
      assert.equal(page.split('\n').filter((line) => line === title).length, 1, `${title} as the title`);
    }
    assert.match((await text(secondNotice({ level: 3 }))).replace(/\s+/g, ' '), /gerichtliche Mahnverfahren/);
  });

  test('same snapshot, same bytes; fonts embedded', async () => {
    const first = await renderNoticePdf(secondNotice());
    const second = await renderNoticePdf(secondNotice());
    assert.ok(first.equals(second));
    assert.ok(first.toString('latin1').includes('(D:20250708000000Z)'), 'creation date from the notice date');
    assert.equal(fontsReport(first).allEmbedded, true);
  });
});

describe('dunning mail', () => {
  test('subject, recipient, claim summary and the PDF attached', async () => {
    const doc = secondNotice();
    const pdf = await renderNoticePdf(doc);
    const mail = dunningMail(doc, pdf);
    assert.equal(mail.to, 'buchhaltung@beispiel.example');
    assert.equal(mail.subject, '2. Mahnung zu Rechnung RE-2025-00042 von Muster Software');
    assert.match(mail.text, /^Guten Tag Max Muster,/);
    assert.match(mail.text, /Zu zahlender Gesamtbetrag: 652,56 €/);
    assert.match(mail.text, /Verzugspauschale \(§\s288 Abs\. 5 BGB\): 40,00 €/);
    assert.match(mail.text, /bis zum 18\.07\.2025 auf das Konto IBAN DE89 3704 0044 0532 0130 00/);
    assert.deepEqual(
      mail.attachments.map((a) => [a.filename, a.contentType, a.content.equals(pdf)]),
      [['2-Mahnung-RE-2025-00042.pdf', 'application/pdf', true]],
    );
    assert.equal(noticeFileName(reminder()), 'Zahlungserinnerung-RE-2025-00042.pdf');
    assert.equal(noticeFileName(secondNotice({ level: 3 })), 'Letzte-Mahnung-RE-2025-00042.pdf');
    assert.ok(mail.html?.includes('652,56 €'));
  });
});
