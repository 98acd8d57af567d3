import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assignBankTransaction } from '../../modules/payments/assign-bank-transaction.ts';
import { AssignCreditError } from '../../modules/payments/assign-credit.ts';
import { BankImportError, type BankImportResult, type ImportNote, importBankStatement, StatementError } from '../../modules/payments/index.ts';
import { calendarDate } from '../../shared/clock.ts';
import { formatCents } from '../../shared/money.ts';
import { type Html, html } from '../html.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { actorOf, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { date, euro, money as formatMoney } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// Bank statements: upload a camt.053 or MT940 file, see what matched, and assign the credits
// left over to open invoices by hand (booked like an automatic match), and the debits left
// over (refunds, returns Kontor could not take back from an invoice in full; issue 24) to
// the invoices they take money back from. The import's notes and warnings come as codes
// with values (payments/import-notes.ts) and are shown in the page's language
// (t.books.bankNotes); the command line prints the English sentences.

const MAX_FILE = 20 * 1024 * 1024;

/** The transactions waiting for a person, credits or debits (issue 24), newest first. */
async function unassigned(deps: WebDeps, companyId: string, direction: 'credit' | 'debit') {
  return deps.db
    .selectFrom('bank_transactions as t')
    .innerJoin('bank_entries as e', (join) => join.onRef('e.company_id', '=', 't.company_id').onRef('e.id', '=', 't.entry_id'))
    .select(['t.entry_id', 't.position', 't.unassigned_cents', 't.payer_name', 't.remittance_text', 't.note', 't.notes', 'e.booking_date'])
    .where('t.company_id', '=', companyId)
    .where('t.status', '=', 'unmatched')
    .where('e.direction', '=', direction)
    .orderBy('e.booking_date', 'desc')
    .orderBy('e.statement_id')
    .orderBy('e.position')
    .orderBy('t.position')
    .limit(200)
    .execute();
}

type Unassigned = Awaited<ReturnType<typeof unassigned>>[number];

/** Why a debit waits: its notes in the page's language, else the note a manual assignment left. */
function reasonOf(t: FastifyRequest['t'], row: Unassigned): string {
  const notes = Array.isArray(row.notes) ? (row.notes as ImportNote[]) : [];
  return notes.length ? notes.map((n) => noteWords(t, n)).join(' ') : (row.note ?? '');
}

/** Debits left for a person (a refund or return Kontor could not take back from an invoice in full), with the reason and an assign form. */
function debitsSection(
  t: FastifyRequest['t'],
  csrf: string,
  debits: Unassigned[],
  paid: { number: string | null; amount_paid_cents: number; customer_name: string }[],
): Html {
  const b = t.books;
  return html`<h2 id="debits-heading">${b.bankDebitsHeading}</h2>
<p class="hint">${b.bankDebitsHint}</p>
${
  debits.length === 0
    ? html`<p class="empty">${b.bankNoDebits}</p>`
    : html`<datalist id="paid-invoices">${paid.map((i) => html`<option value="${i.number ?? ''}">${b.bankSuggestPaid(i.customer_name, euro(i.amount_paid_cents))}</option>`)}</datalist>
<div class="table-wrap" role="region" aria-labelledby="debits-heading" tabindex="0"><table class="table">
<thead><tr><th scope="col">${b.bankBookingDate}</th><th scope="col">${b.bankPayee}</th><th scope="col">${t.bankRemittance}</th><th scope="col">${b.bankReason}</th><th scope="col" class="num">${t.bankOpenAmount}</th><th scope="col">${t.bankAssignTo}</th></tr></thead>
<tbody>${debits.map(
        (
          d,
        ) => html`<tr><td>${date(d.booking_date)}</td><td>${d.payer_name ?? '–'}</td><td class="wrap">${d.remittance_text ?? ''}</td><td class="wrap">${reasonOf(t, d)}</td><td class="num">−${euro(d.unassigned_cents)}</td>
<td><form method="post" action="/app/bank/assign" class="inline">${csrfField(csrf)}<input type="hidden" name="entry_id" value="${d.entry_id}"><input type="hidden" name="position" value="${d.position}">
<label class="visually-hidden" for="inv-${d.entry_id}-${d.position}">${b.bankDebitInvoiceFor(d.payer_name ?? '–', euro(d.unassigned_cents))}</label>
<input id="inv-${d.entry_id}-${d.position}" name="invoice_number" list="paid-invoices" required placeholder="${t.number}" size="16"><button type="submit">${t.bankAssign}</button></form></td></tr>`,
      )}</tbody></table></div>`
}`;
}

/** At most this many rows per group of an import's result; the rest is counted (a 10,000-credit file stays a small page). */
const MAX_GROUP_ROWS = 50;

/** A group of the result: its first rows and how many there are in all. */
type Group<R> = { rows: R[]; total: number };
const group = <R>(): Group<R> => ({ rows: [], total: 0 });
function add<R>(into: Group<R>, row: R): void {
  into.total += 1;
  if (into.rows.length < MAX_GROUP_ROWS) into.rows.push(row);
}

type PaidRow = {
  date: string;
  payer: string | null;
  invoiceId: string;
  number: string;
  amount: string;
  effect: 'paid' | 'partially_paid';
  openAfter: string;
  notes: ImportNote[];
};
type TakenBackRow = { date: string; payee: string | null; invoiceId: string; number: string; amount: string; credit: string; statusAfter: string };
type WaitingRow = { date: string; direction: 'credit' | 'debit'; amount: string; payer: string | null; remittance: string | null; notes: ImportNote[] };
type SkippedRow = { date: string; direction: 'credit' | 'debit'; amount: string; payer: string | null; notes: ImportNote[] };

/** What happened to each transaction of the file, in groups: invoices paid, money taken back, left for a person, ignored, imported before. */
function resultGroups(result: BankImportResult) {
  const paid = group<PaidRow>();
  const takenBack = group<TakenBackRow>();
  const waiting = group<WaitingRow>();
  const ignored = group<SkippedRow>();
  const duplicates = group<SkippedRow>();
  let plainDebits = 0;
  for (const entry of result.entries) {
    const base = { date: entry.booking_date, direction: entry.direction };
    if (entry.status === 'duplicate') {
      // The result keeps no transactions of an entry imported before: its date, amount and why.
      add(duplicates, { ...base, amount: entry.amount, payer: null, notes: entry.notes });
      continue;
    }
    if (entry.status === 'ignored') {
      // Plain debits (fees, transfers out) are counted, not listed.
      if (entry.notes.length === 0 || entry.notes.every((n) => n.code === 'debit_ignored')) plainDebits += 1;
      else add(ignored, { ...base, amount: entry.amount, payer: entry.transactions[0]?.payer_name ?? null, notes: entry.notes });
      continue;
    }
    for (const tx of entry.transactions) {
      for (const [i, p] of tx.payments.entries())
        add(paid, {
          date: entry.booking_date,
          payer: tx.payer_name,
          invoiceId: p.invoice_id,
          number: p.invoice_number,
          amount: p.amount,
          effect: p.effect,
          openAfter: p.open_after,
          // The transfer's notes (an over-payment kept as credit) on its last payment.
          notes: i === tx.payments.length - 1 ? tx.notes : [],
        });
      for (const r of tx.reversals)
        add(takenBack, {
          date: entry.booking_date,
          payee: tx.payer_name,
          invoiceId: r.invoice_id,
          number: r.invoice_number,
          amount: r.amount,
          credit: r.credit,
          statusAfter: r.status_after,
        });
      if (tx.status === 'unmatched') {
        // What is left of it: a debit may have taken part back from an invoice already.
        const used = tx.reversals.reduce((sum, r) => sum + amountCents(r.amount) + amountCents(r.credit), 0);
        add(waiting, { ...base, amount: formatCents(amountCents(tx.amount) - used), payer: tx.payer_name, remittance: tx.remittance_text, notes: tx.notes });
      } else if (tx.status === 'ignored' && tx.notes.some((n) => n.code !== 'debit_ignored'))
        add(ignored, { ...base, amount: tx.amount, payer: tx.payer_name, notes: tx.notes });
    }
  }
  return { paid, takenBack, waiting, ignored, duplicates, plainDebits };
}

/** An amount of the result ("85.06", EUR: whole cents) in cents. */
const amountCents = (amount: string): number => Math.round(Number(amount) * 100);

/** A note in the page's language, from its code and values (payments/import-notes.ts). */
function noteWords(t: FastifyRequest['t'], note: ImportNote): string {
  return (t.books.bankNotes[note.code] as (values: unknown) => string)(note.values);
}

const notesOf = (t: FastifyRequest['t'], notes: ImportNote[]) => notes.map((n) => noteWords(t, n)).join(' ');
const signed = (direction: 'credit' | 'debit', amount: string) => `${direction === 'debit' ? '−' : ''}${formatMoney(amount)}`;

/** One group as a table with a heading, its first rows and the count of the rest; nothing when it is empty. */
function groupTable<R>(
  id: string,
  heading: string,
  all: Group<R>,
  head: Html,
  row: (r: R) => Html,
  more: (n: number) => string,
  after: Html | '' = '',
): Html | '' {
  if (all.total === 0) return '';
  return html`<h3 id="${id}">${heading} <span class="muted">(${all.total.toLocaleString('de-DE')})</span></h3>${after}
<div class="table-wrap" role="region" aria-labelledby="${id}" tabindex="0"><table class="table compact">
<thead><tr>${head}</tr></thead>
<tbody>${all.rows.map(row)}</tbody></table></div>
${all.total > all.rows.length ? html`<p class="muted">${more(all.total - all.rows.length)}</p>` : ''}`;
}

function resultSection(t: FastifyRequest['t'], result: BankImportResult, timezone: string, customers: ReadonlyMap<string, string>): Html {
  const totals = result.totals;
  const b = t.books;
  const groups = resultGroups(result);
  const invoiceLink = (id: string, number: string) => html`<a href="/app/invoices/${id}">${number}</a>`;
  const th = (label: string, num = false) => html`<th scope="col"${num ? html` class="num"` : ''}>${label}</th>`;
  return html`<section class="panel" aria-labelledby="result-heading"><h2 id="result-heading">${result.already_imported ? t.bankAlreadyImported : t.bankImported}</h2>
${result.already_imported ? html`<p>${b.bankAlreadyImportedOn(date(calendarDate(new Date(result.imported_at), timezone)))}</p>` : ''}
<dl class="facts">
<div><dt>${t.bankEntries}</dt><dd>${totals.entries}</dd></div>
<div><dt>${t.bankMatched}</dt><dd>${totals.matched + totals.partially_matched}</dd></div>
<div><dt>${t.bankUnmatched}</dt><dd>${totals.unmatched}</dd></div>
<div><dt>${t.bankIgnored}</dt><dd>${totals.ignored}</dd></div>
<div><dt>${t.bankApplied}</dt><dd>${formatMoney(totals.applied)}</dd></div>
<div><dt>${t.bankLeft}</dt><dd>${formatMoney(totals.unassigned)}</dd></div>
${
  totals.paid_out !== '0.00'
    ? html`<div><dt>${b.bankReversed}</dt><dd>${formatMoney(totals.reversed)}</dd></div>
<div><dt>${b.bankCreditRefunded}</dt><dd>${formatMoney(totals.credit_refunded)}</dd></div>
<div><dt>${b.bankDebitsLeft}</dt><dd>${formatMoney(totals.debits_unassigned)}</dd></div>`
    : ''
}
</dl>
${
  result.warning_notes.length > 0
    ? html`<h3>${b.bankWarnings}</h3><ul class="messages">${result.warning_notes.map((w) => html`<li>${noteWords(t, w)}</li>`)}</ul>`
    : ''
}
${groupTable(
  'paid-heading',
  b.bankPaidHeading,
  groups.paid,
  html`${th(b.bankBookingDate)}${th(t.bankPayer)}${th(b.bankInvoice)}${th(b.bankCustomer)}${th(b.bankAmount, true)}${th(b.bankInvoiceState)}${th(b.bankNote)}`,
  (r) =>
    html`<tr><td>${date(r.date)}</td><td>${r.payer ?? '–'}</td><td>${invoiceLink(r.invoiceId, r.number)}</td><td>${customers.get(r.invoiceId) ?? '–'}</td><td class="num">${formatMoney(r.amount)}</td><td>${r.effect === 'paid' ? b.bankStatePaid : b.bankStatePartlyPaid(formatMoney(r.openAfter))}</td><td class="wrap">${notesOf(t, r.notes)}</td></tr>`,
  b.bankMorePaid,
)}
${groupTable(
  'taken-back-heading',
  b.bankTakenBackHeading,
  groups.takenBack,
  html`${th(b.bankBookingDate)}${th(b.bankPayee)}${th(b.bankInvoice)}${th(b.bankCustomer)}${th(b.bankAmount, true)}${th(b.bankInvoiceState)}`,
  (r) =>
    html`<tr><td>${date(r.date)}</td><td>${r.payee ?? '–'}</td><td>${invoiceLink(r.invoiceId, r.number)}</td><td>${customers.get(r.invoiceId) ?? '–'}</td><td class="num">−${formatMoney(r.amount)}${r.credit !== '0.00' ? html`<br><span class="muted">${b.bankCreditPaidBack(formatMoney(r.credit))}</span>` : ''}</td><td>${b.bankStateAfter[r.statusAfter] ?? r.statusAfter}</td></tr>`,
  b.bankMoreTakenBack,
)}
${groupTable(
  'waiting-heading',
  b.bankWaitingHeading,
  groups.waiting,
  html`${th(b.bankBookingDate)}${th(b.bankPayer)}${th(t.bankRemittance)}${th(b.bankAmount, true)}${th(b.bankReason)}`,
  (r) =>
    html`<tr><td>${date(r.date)}</td><td>${r.payer ?? '–'}</td><td class="wrap">${r.remittance ?? ''}</td><td class="num">${signed(r.direction, r.amount)}</td><td class="wrap">${notesOf(t, r.notes)}</td></tr>`,
  b.bankMoreWaiting,
  html`<p class="hint">${b.bankWaitingHint}</p>`,
)}
${groupTable(
  'ignored-heading',
  b.bankIgnoredHeading,
  groups.ignored,
  html`${th(b.bankBookingDate)}${th(b.bankPayer)}${th(b.bankAmount, true)}${th(b.bankReason)}`,
  (r) =>
    html`<tr><td>${date(r.date)}</td><td>${r.payer ?? '–'}</td><td class="num">${signed(r.direction, r.amount)}</td><td class="wrap">${notesOf(t, r.notes)}</td></tr>`,
  b.bankMoreIgnored,
)}
${groupTable(
  'duplicates-heading',
  b.bankDuplicatesHeading,
  groups.duplicates,
  html`${th(b.bankBookingDate)}${th(b.bankAmount, true)}${th(b.bankNote)}`,
  (r) => html`<tr><td>${date(r.date)}</td><td class="num">${signed(r.direction, r.amount)}</td><td class="wrap">${notesOf(t, r.notes)}</td></tr>`,
  b.bankMoreDuplicates,
)}
${groups.plainDebits > 0 ? html`<p class="muted">${b.bankPlainDebits(groups.plainDebits)}</p>` : ''}
</section>`;
}

/** The customers of the invoices the result's shown rows name, by invoice id. */
async function customersOf(deps: WebDeps, companyId: string, result: BankImportResult | null): Promise<Map<string, string>> {
  if (!result) return new Map();
  const groups = resultGroups(result);
  const ids = [...new Set([...groups.paid.rows, ...groups.takenBack.rows].map((r) => r.invoiceId))];
  if (ids.length === 0) return new Map();
  const rows = await deps.db
    .selectFrom('invoices as i')
    .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'i.company_id').onRef('c.id', '=', 'i.customer_id'))
    .select(['i.id', 'c.name'])
    .where('i.company_id', '=', companyId)
    .where('i.id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

export function registerBankPages(web: FastifyInstance, deps: WebDeps): void {
  void web.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: MAX_FILE, files: 1, fields: 5 } });

    const overview = async (request: FastifyRequest, reply: FastifyReply, flash: Flash = null, status = 200, result: BankImportResult | null = null) => {
      const member = memberOrNoCompanyPage(request, reply);
      if (!member) return reply;
      const t = request.t;
      // Suggestions: open invoices for a credit, invoices that received money for a debit.
      // Each with its customer's name, so the suggestion says whose invoice it is.
      const invoicesIn = (statuses: ('issued' | 'sent' | 'partially_paid' | 'paid')[]) =>
        deps.db
          .selectFrom('invoices as i')
          .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'i.company_id').onRef('c.id', '=', 'i.customer_id'))
          .select(['i.number', 'i.total_gross_cents', 'i.amount_paid_cents', 'c.name as customer_name'])
          .where('i.company_id', '=', member.company.id)
          .where('i.type', '=', 'invoice')
          .where('i.status', 'in', statuses)
          .orderBy('i.issue_date', 'desc')
          .limit(500)
          .execute();
      const [credits, debits, unpaid, customers] = await Promise.all([
        unassigned(deps, member.company.id, 'credit'),
        unassigned(deps, member.company.id, 'debit'),
        invoicesIn(['issued', 'sent', 'partially_paid']),
        customersOf(deps, member.company.id, result),
      ]);
      const paid = debits.length ? await invoicesIn(['partially_paid', 'paid']) : [];
      const csrf = member.session.csrfToken;
      const body = html`
<form method="post" action="/app/bank/import" enctype="multipart/form-data" class="filters" data-progress="${t.bankImporting}">
${csrfField(csrf)}
<div><label for="statement">${t.bankFile}</label><input id="statement" name="statement" type="file" accept=".xml,.sta,.mt940,.txt,.940" required></div>
<div class="filter-actions"><button type="submit" class="primary">${t.bankImport}</button></div>
</form>
<p class="hint">${t.bankHint}</p>
${result ? resultSection(t, result, member.company.timezone, customers) : ''}
<h2 id="assign-heading">${t.bankToAssign}</h2>
${
  credits.length === 0
    ? html`<p class="empty">${t.bankNothingToAssign}</p>`
    : html`<datalist id="open-invoices">${unpaid.map((i) => html`<option value="${i.number ?? ''}">${t.books.bankSuggestOpen(i.customer_name, euro(i.total_gross_cents - i.amount_paid_cents))}</option>`)}</datalist>
<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.issueDate}</th><th scope="col">${t.bankPayer}</th><th scope="col">${t.bankRemittance}</th><th scope="col" class="num">${t.bankOpenAmount}</th><th scope="col">${t.bankAssignTo}</th></tr></thead>
<tbody>${credits.map(
        (
          c,
        ) => html`<tr><td>${date(c.booking_date)}</td><td>${c.payer_name ?? '–'}</td><td class="wrap">${c.remittance_text ?? ''}</td><td class="num">${euro(c.unassigned_cents)}</td>
<td><form method="post" action="/app/bank/assign" class="inline">${csrfField(csrf)}<input type="hidden" name="entry_id" value="${c.entry_id}"><input type="hidden" name="position" value="${c.position}">
<label class="visually-hidden" for="inv-${c.entry_id}-${c.position}">${t.bankInvoiceNumberFor(c.payer_name ?? '–', euro(c.unassigned_cents))}</label>
<input id="inv-${c.entry_id}-${c.position}" name="invoice_number" list="open-invoices" required placeholder="${t.number}" size="16"><button type="submit">${t.bankAssign}</button></form></td></tr>`,
      )}</tbody></table></div>`
}
${debitsSection(t, csrf, debits, paid)}`;
      return sendPage(reply, page(shell(request, 'bank'), t.bank, body, flash), status);
    };

    scope.get('/bank', async (request, reply) => {
      const { assigned, reversed } = request.query as { assigned?: string; reversed?: string };
      const t = request.t;
      const flash: Flash = assigned
        ? { kind: 'ok', text: t.bankAssigned(assigned.slice(0, 60)) }
        : reversed
          ? { kind: 'ok', text: t.books.bankDebitAssigned(reversed.slice(0, 60)) }
          : null;
      return overview(request, reply, flash);
    });

    scope.post('/bank/import', async (request, reply) => {
      const member = memberOrNoCompanyPage(request, reply);
      if (!member) return reply;
      const t = request.t;
      if (!request.isMultipart()) return overview(request, reply, { kind: 'error', text: t.bankNoFile }, 400);
      let bytes: Buffer | null = null;
      let fileName: string | null = null;
      let csrf: unknown;
      try {
        for await (const part of request.parts()) {
          if (part.type === 'file') {
            fileName = part.filename;
            bytes = await part.toBuffer();
          } else if (part.fieldname === '_csrf') csrf = part.value;
        }
      } catch {
        return overview(request, reply, { kind: 'error', text: t.bankTooLarge }, 413);
      }
      // The CSRF check of a multipart form: its token arrives with the parts.
      if (csrf !== member.session.csrfToken) return overview(request, reply, { kind: 'error', text: t.csrfFailed }, 403);
      if (!bytes || bytes.length === 0) return overview(request, reply, { kind: 'error', text: t.bankNoFile }, 400);
      try {
        const result = await importBankStatement(deps.db, deps.clock, member.company.id, bytes, { fileName });
        return overview(request, reply, null, 200, result);
      } catch (error) {
        if (error instanceof StatementError || error instanceof BankImportError)
          return overview(request, reply, { kind: 'error', text: t.books.bankRefusal(error.message) }, 422);
        throw error;
      }
    });

    scope.post('/bank/assign', async (request, reply) => {
      const member = memberOrNoCompanyPage(request, reply);
      if (!member) return reply;
      const form = (request.body ?? {}) as Record<string, string | undefined>;
      const position = Number(form.position);
      if (!/^bke_[0-9a-z]{26}$/.test(form.entry_id ?? '') || !Number.isInteger(position) || position < 1)
        return overview(request, reply, { kind: 'error', text: request.t.badRequest }, 400);
      try {
        // A credit pays the invoice, a debit is taken back from it: the same step as `kontor bank assign`.
        const assigned = await assignBankTransaction(
          deps,
          member.company.id,
          { entryId: form.entry_id as string, position },
          String(form.invoice_number ?? '').slice(0, 100),
          {
            ...actorOf(member),
            email: member.session.email,
          },
        );
        const done = assigned.direction === 'debit' ? 'reversed' : 'assigned';
        return redirect(reply, `/app/bank?${done}=${encodeURIComponent(assigned.invoiceNumber)}`);
      } catch (error) {
        if (error instanceof AssignCreditError) return overview(request, reply, { kind: 'error', text: error.message }, 422);
        throw error;
      }
    });
  });
}
