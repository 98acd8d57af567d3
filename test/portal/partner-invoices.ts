import assert from 'node:assert/strict';
import PDFDocument from 'pdfkit';
import type { TestApp, TestCompany } from '../helpers/app.ts';
import { newKey } from '../invoicing/helpers.ts';

// Invoices a partner hands in, for the upload tests (issue 27 §3): made by Kontor's own
// renderer — the partner's own company in Kontor invoices ours — and a plain PDF without
// e-invoice.

/** An issued invoice of `books` to its customer `customerRef` over `net` at 19 %: its ZUGFeRD PDF and XRechnung XML. */
export async function kontorInvoice(
  t: TestApp,
  books: TestCompany,
  options: { ref: string; net: string; customerRef: string; month: string },
): Promise<{ pdf: Buffer; xml: Buffer; number: string }> {
  const [year, month] = options.month.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const res = await t.request('POST', '/v1/invoices', {
    key: books.apiKey,
    headers: { 'idempotency-key': newKey() },
    body: {
      customer: { source: 'crm', external_ref: options.customerRef },
      external_ref: options.ref,
      issue: true,
      lines: [{ description: `Vermittlungsprovision ${options.month}`, quantity: '1', unit: 'Stück', unit_price_net: options.net, vat_rate: 19 }],
      service_period: { start: `${options.month}-01`, end: `${options.month}-${last}` },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json().id as string;
  const file = async (kind: 'xml' | 'pdf') => {
    const got = await t.request('GET', `/v1/invoices/${id}/${kind}`, { key: books.apiKey });
    assert.equal(got.statusCode, 200, got.body);
    return got.rawPayload;
  };
  return { pdf: await file('pdf'), xml: await file('xml'), number: res.json().number as string };
}

/** A PDF with text only, no embedded e-invoice. */
export function plainPdf(text: string): Promise<Buffer> {
  return new Promise((resolve) => {
    const doc = new PDFDocument();
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.text(text);
    doc.end();
  });
}
