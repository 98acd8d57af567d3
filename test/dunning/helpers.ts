import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { inTransaction } from '../../src/db/transaction.ts';
import { runDueWork } from '../../src/jobs/index.ts';
import { updateCompany } from '../../src/modules/access/index.ts';
import '../../src/modules/dunning/index.ts';
import { nextChangeSeq } from '../../src/modules/invoicing/invoice-changes.ts';
import { createMailer, type Mailer } from '../../src/modules/mail/index.ts';
import { sealer, type TestApp, type TestCompany } from '../helpers/app.ts';
import { BUSINESS_CUSTOMER, newKey, postInvoice } from '../invoicing/helpers.ts';
import { extractPages } from '../invoicing/render/pdf-reader.ts';

// Scenario helpers for dunning: a company of its own per scenario (the scheduler runs each
// task once per company and day), invoices issued through the API, days run as
// `kontor jobs run --as-of` runs them, and what reached the customer's mailbox.

export const PRIVATE_CUSTOMER = { ...BUSINESS_CUSTOMER, name: 'Erika Privat', customer_type: 'private', vat_id: null, contact_name: null };

export type Scenario = { company: TestCompany; mailer: Mailer };

export async function scenario(t: TestApp, label: string, dunning?: unknown): Promise<Scenario> {
  const company = await t.newCompany(label);
  if (dunning !== undefined) await updateCompany(t.handle.db, t.clock, sealer, company.companyId, JSON.stringify({ dunning }));
  return { company, mailer: createMailer({ dataDir: t.dataDir, sealer }) };
}

export async function putCustomerOf(t: TestApp, s: Scenario, ref: string, body: Record<string, unknown> = BUSINESS_CUSTOMER) {
  const res = await t.request('PUT', `/v1/customers/by-ref/crm/${ref}`, { body, key: s.company.apiKey });
  if (res.statusCode >= 300) throw new Error(`customer ${ref}: ${res.body}`);
}

/** Issues an invoice of 1,000.00 € net at 19 % (1,190.00 € gross) on the clock's day; payment terms 14 days. */
export async function issueInvoice(t: TestApp, s: Scenario, ref: string, customerRef: string, issuedAt: string) {
  t.clock.set(`${issuedAt}T10:00:00Z`);
  const res = await postInvoice(
    t,
    {
      customer: { source: 'crm', external_ref: customerRef },
      external_ref: ref,
      lines: [{ description: 'Beratung', quantity: '1', unit: 'Stück', unit_price_net: '1000.00', vat_rate: 19 }],
      service_period: { start: issuedAt, end: issuedAt },
      payment_terms_days: 14,
      issue: true,
    },
    newKey(),
    s.company.apiKey,
  );
  if (res.statusCode !== 201) throw new Error(`invoice ${ref}: ${res.statusCode} ${res.body}`);
  return res.json() as { id: string; number: string; due_date: string; total_gross: string };
}

/** One day's `kontor jobs run --as-of DATE` for the scenario's company (clock at noon UTC). */
export function runDay(t: TestApp, s: Scenario, date: string) {
  t.clock.set(`${date}T12:00:00Z`);
  return runDueWork({ db: t.handle.db, clock: t.clock, mailer: s.mailer }, { asOf: date, companyId: s.company.companyId });
}

export async function invoiceOf(t: TestApp, s: Scenario, id: string) {
  const res = await t.request('GET', `/v1/invoices/${id}`, { key: s.company.apiKey });
  if (res.statusCode !== 200) throw new Error(`GET invoice ${id}: ${res.statusCode} ${res.body}`);
  return res.json() as { id: string; status: string; overdue: boolean; dunning_level: number | null; amount_paid: string };
}

export async function eventsOf(t: TestApp, s: Scenario, type: string, subjectId?: string) {
  const rows = await t.handle.db
    .selectFrom('events')
    .select(['id', 'type', 'subject_id', 'data', 'created_at'])
    .where('company_id', '=', s.company.companyId)
    .where('type', '=', type)
    .$if(subjectId !== undefined, (qb) => qb.where('subject_id', '=', subjectId!))
    .orderBy('seq')
    .execute();
  return rows.map((row) => ({ ...row, data: row.data as { dunning_level: number | null; overdue: boolean; id: string } }));
}

export async function noticesOf(t: TestApp, s: Scenario, invoiceId: string) {
  return t.handle.db
    .selectFrom('dunning_notices')
    .select(['level', 'notice_date', 'status', 'open_cents', 'fee_cents', 'fees_cents', 'interest_cents', 'lump_sum_cents', 'total_cents', 'reason'])
    .where('company_id', '=', s.company.companyId)
    .where('invoice_id', '=', invoiceId)
    .orderBy('created_at')
    .orderBy('level')
    .execute();
}

/** The mails in the company's outbox, oldest first, with the PDF's text. */
export async function outbox(t: TestApp, s: Scenario): Promise<(ParsedMail & { pdfText: string })[]> {
  const folder = path.join(t.dataDir, 'outbox', s.company.companyId);
  let files: string[];
  try {
    files = (await readdir(folder)).filter((name) => name.endsWith('.eml')).sort();
  } catch {
    return [];
  }
  const mails = await Promise.all(files.map(async (name) => simpleParser(await readFile(path.join(folder, name)))));
  return mails.map((mail) => {
    const pdf = mail.attachments.find((a) => a.contentType === 'application/pdf');
    return Object.assign(mail, { pdfText: pdf ? extractPages(pdf.content).join('\n').replace(/\s+/g, ' ') : '' });
  });
}

/**
 * Records a payment the way the bank import does (a colleague builds it in parallel): an
 * UPDATE of amount_paid, status, paid_at and the change-feed position; a full payment also
 * ends `overdue`.
 */
export async function recordPayment(t: TestApp, s: Scenario, invoiceId: string, paidCents: number | 'full') {
  const companyId = s.company.companyId;
  await inTransaction(t.handle.db, async (trx) => {
    const invoice = await trx
      .selectFrom('invoices')
      .select(['total_gross_cents'])
      .where('company_id', '=', companyId)
      .where('id', '=', invoiceId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const paid = paidCents === 'full' ? invoice.total_gross_cents : paidCents;
    const full = paid >= invoice.total_gross_cents;
    await trx
      .updateTable('invoices')
      .set({
        amount_paid_cents: paid,
        status: full ? 'paid' : 'partially_paid',
        paid_at: full ? t.clock.now() : null,
        ...(full ? { overdue: false } : {}),
        change_seq: await nextChangeSeq(trx, companyId),
        changed_at: t.clock.now(),
      })
      .where('company_id', '=', companyId)
      .where('id', '=', invoiceId)
      .execute();
  });
}
