import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { renderInvoiceDocuments, warmUpRenderers } from '../../../src/modules/invoicing/render/index.ts';
import { readCii } from './cii.ts';
import { domesticInvoice, xrechnungInvoice } from './fixtures.ts';
import { attachments } from './pdf-reader.ts';

before(async () => {
  await warmUpRenderers();
});

describe('renderInvoiceDocuments', () => {
  test('zugferd: the PDF is the hybrid and xml is the embedded CII', async () => {
    const { pdf, xml } = await renderInvoiceDocuments(domesticInvoice);
    assert.ok(xml);
    assert.ok(attachments(pdf)[0]!.data.equals(xml));
    assert.equal(readCii(xml).bt24, 'urn:cen.eu:en16931:2017');
  });

  test('xrechnung: a plain PDF without attachment plus the standalone XRechnung CII', async () => {
    const { pdf, xml } = await renderInvoiceDocuments(xrechnungInvoice);
    assert.deepEqual(attachments(pdf), []);
    assert.equal(readCii(xml!).bt24, 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0');
  });

  test('none: only the plain PDF', async () => {
    const { pdf, xml } = await renderInvoiceDocuments({ ...domesticInvoice, eInvoice: 'none' });
    assert.equal(xml, null);
    assert.ok(pdf.subarray(0, 5).toString() === '%PDF-');
    assert.deepEqual(attachments(pdf), []);
  });
});
