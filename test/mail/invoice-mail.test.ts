import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDate, formatEuro, formatIban, invoiceMail, invoiceMessageId } from '../../src/modules/mail/index.ts';
import { invoiceDocument, pdfBytes, stornoDocument, xmlBytes } from './fixtures.ts';

describe('German formatting', () => {
  const amounts: [string, string][] = [
    ['1234.56', '1.234,56 €'],
    ['0.00', '0,00 €'],
    ['5', '5,00 €'],
    ['999.9', '999,90 €'],
    ['1234567.89', '1.234.567,89 €'],
    ['-80.00', '-80,00 €'],
    ['-1234.55', '-1.234,55 €'],
  ];
  for (const [amount, expected] of amounts) test(`writes ${amount} as ${expected}`, () => assert.equal(formatEuro(amount), expected));

  test('writes dates as DD.MM.YYYY', () => assert.equal(formatDate('2026-02-14'), '14.02.2026'));
  test('groups an IBAN in fours', () => assert.equal(formatIban('DE89370400440532013000'), 'DE89 3704 0044 0532 0130 00'));
});

describe('invoiceMail', () => {
  test('names the invoice and the seller in the subject', () => {
    assert.equal(invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null }).subject, 'Rechnung RE-2026-00001 von Muster Software GmbH');
  });

  test('greets the contact person by name', () => {
    assert.match(invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null }).text, /^Guten Tag Erika Musterfrau,\n/);
  });

  test('greets formally without a contact person', () => {
    const doc = invoiceDocument();
    const mail = invoiceMail({ ...doc, buyer: { ...doc.buyer, contactName: null } }, { pdf: pdfBytes, xml: null });
    assert.match(mail.text, /^Sehr geehrte Damen und Herren,\n/);
  });

  test('states number, date, gross amount, due date and the payment details', () => {
    const { text, to } = invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null });
    assert.equal(to, 'rechnungen@beispiel.de');
    for (const part of [
      'Rechnungsnummer: RE-2026-00001',
      'Rechnungsdatum: 15.01.2026',
      'Ihre Kundennummer: 10001',
      'Rechnungsbetrag: 1.234,55 €',
      'Fällig am: 14.02.2026',
      'Bitte überweisen Sie den Betrag von 1.234,55 € bis zum 14.02.2026',
      'IBAN: DE89 3704 0044 0532 0130 00',
      'BIC: COBADEFFXXX',
      'Verwendungszweck: RE-2026-00001',
    ]) {
      assert.ok(text.includes(part), `missing "${part}" in:\n${text}`);
    }
  });

  test('signs with the contact and a footer of the seller details', () => {
    const { text } = invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null });
    assert.match(text, /Mit freundlichen Grüßen\nMax Mustermann\nMuster Software GmbH\n/);
    const footer = text.slice(text.indexOf('\n-- \n'));
    for (const part of ['Hauptstraße 5, 10115 Berlin', 'USt-IdNr.: DE123456789', 'Steuernummer: 30/123/45678', 'Telefon: +49 30 1234567']) {
      assert.ok(footer.includes(part), `missing "${part}" in footer:\n${footer}`);
    }
    assert.ok(!footer.includes('Rechtsform'), 'the legal form is already part of the name');
  });

  test('attaches the PDF only for ZUGFeRD (its XML is inside the PDF)', () => {
    const mail = invoiceMail(invoiceDocument({ eInvoice: 'zugferd' }), { pdf: pdfBytes, xml: xmlBytes });
    assert.deepEqual(
      mail.attachments.map((a) => [a.filename, a.contentType]),
      [['RE-2026-00001.pdf', 'application/pdf']],
    );
    assert.equal(mail.attachments[0]?.content, pdfBytes);
  });

  test('attaches the standalone XML for an XRechnung', () => {
    const mail = invoiceMail(invoiceDocument({ eInvoice: 'xrechnung' }), { pdf: pdfBytes, xml: xmlBytes });
    assert.deepEqual(
      mail.attachments.map((a) => [a.filename, a.contentType, a.content]),
      [
        ['RE-2026-00001.pdf', 'application/pdf', pdfBytes],
        ['RE-2026-00001.xml', 'application/xml', xmlBytes],
      ],
    );
    assert.match(mail.text, /XRechnung/);
  });

  test('keeps slashes of a number pattern out of file names', () => {
    const mail = invoiceMail(invoiceDocument({ number: 'RE/2026/7' }), { pdf: pdfBytes, xml: null });
    assert.equal(mail.attachments[0]?.filename, 'RE-2026-7.pdf');
  });

  test('a storno is a Stornorechnung that asks for no payment', () => {
    const mail = invoiceMail(stornoDocument(), { pdf: pdfBytes, xml: null });
    assert.equal(mail.subject, 'Stornorechnung RE-2026-00002 von Muster Software GmbH');
    assert.ok(mail.text.includes('Stornorechnung RE-2026-00002 vom 20.01.2026 zur Rechnung RE-2026-00001 vom 15.01.2026'));
    assert.ok(mail.text.includes('Betrag der Stornorechnung: -1.234,55 €'));
    assert.ok(!mail.text.includes('Verwendungszweck'), 'no payment block on a storno');
    assert.equal(mail.attachments[0]?.filename, 'RE-2026-00002.pdf');
  });

  test('the HTML variant escapes and carries the same content', () => {
    const doc = invoiceDocument();
    const mail = invoiceMail({ ...doc, seller: { ...doc.seller, name: 'A & B <GmbH>' } }, { pdf: pdfBytes, xml: null });
    assert.ok(mail.html?.includes('A &amp; B &lt;GmbH&gt;'));
    assert.ok(mail.html?.includes('1.234,55 €'));
  });

  test('the invoice Message-ID is stable per company and number', () => {
    assert.equal(invoiceMessageId('com_abc', 'RE-2026-00001'), '<RE-2026-00001.com_abc@kontor>');
    assert.equal(invoiceMessageId('com_abc', 'RE/2026 7'), '<RE-2026-7.com_abc@kontor>');
  });
});
