import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assignBankTransaction } from '../../modules/payments/assign-bank-transaction.ts';
import { AssignCreditError } from '../../modules/payments/assign-credit.ts';
import { BankImportError, type BankImportResult, type ImportNote, importBankStatement, StatementError } from '../../modules/payments/index.ts';
import { calendarDate } from '../../shared/clock.ts';
import { formatMoney } from '../../shared/german-format.ts';
import { type Html, html } from '../html.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { actorOf, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { date, euro } from './money.ts';
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
    .orderBy('t.entry_id')
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
function debitsSection(t: FastifyRequest['t'], csrf: string, debits: Unassigned[], paid: { number: string | null; amount_paid_cents: number }[]): Html {
  const b = t.books;
  return html`<h2 id="debits-heading">${b.bankDebitsHeading}</h2>
<p class="hint">${b.bankDebitsHint}</p>
${
  debits.length === 0
    ? html`<p class="empty">${b.bankNoDebits}</p>`
    : html`<datalist id="paid-invoices">${paid.map((i) => html`<option value="${i.number ?? ''}">${euro(i.amount_paid_cents)}</option>`)}</datalist>
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

/** One row of the import's notes: an entry (ignored, duplicate) or a transfer of it, with its notes. */
type NoteRow = { date: string; amount: string; direction: 'credit' | 'debit'; payer: string | null; notes: ImportNote[] };

const MAX_NOTE_ROWS = 100;

/** The notes of an import, one row per transfer that has any; plain debits (only "debit ignored") are counted, not listed. */
function noteRows(result: BankImportResult): NoteRow[] {
  const rows: NoteRow[] = [];
  for (const entry of result.entries) {
    const base = { date: entry.booking_date, direction: entry.direction };
    if (entry.status === 'ignored' || entry.status === 'duplicate' || entry.transactions.length === 0) {
      if (entry.notes.length === 0 || entry.notes.every((n) => n.code === 'debit_ignored')) continue;
      rows.push({ ...base, amount: entry.amount, payer: entry.transactions[0]?.payer_name ?? null, notes: entry.notes });
      continue;
    }
    for (const tx of entry.transactions) if (tx.notes.length > 0) rows.push({ ...base, amount: tx.amount, payer: tx.payer_name, notes: tx.notes });
  }
  return rows;
}

/** A note in the page's language, from its code and values (payments/import-notes.ts). */
function noteWords(t: FastifyRequest['t'], note: ImportNote): string {
  return (t.books.bankNotes[note.code] as (values: unknown) => string)(note.values);
}

function resultSection(t: FastifyRequest['t'], result: BankImportResult, timezone: string): Html {
  const totals = result.totals;
  const b = t.books;
  const rows = noteRows(result);
  const shown = rows.slice(0, MAX_NOTE_ROWS);
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
${
  shown.length > 0
    ? html`<h3 id="notes-heading">${b.bankNotesHeading}</h3><div class="table-wrap" role="region" aria-labelledby="notes-heading" tabindex="0"><table class="table compact">
<thead><tr><th scope="col">${b.bankBookingDate}</th><th scope="col" class="num">${b.bankAmount}</th><th scope="col">${b.bankPayer}</th><th scope="col">${b.bankNote}</th></tr></thead>
<tbody>${shown.map(
        (row) =>
          html`<tr><td>${date(row.date)}</td><td class="num">${row.direction === 'debit' ? '−' : ''}${formatMoney(row.amount)}</td><td>${row.payer ?? '–'}</td><td class="wrap">${row.notes.map((n) => noteWords(t, n)).join(' ')}</td></tr>`,
      )}</tbody></table></div>
${rows.length > shown.length ? html`<p class="muted">${b.bankMoreNotes(rows.length - shown.length)}</p>` : ''}`
    : ''
}
</section>`;
}

export function registerBankPages(web: FastifyInstance, deps: WebDeps): void {
  void web.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: MAX_FILE, files: 1, fields: 5 } });

    const overview = async (request: FastifyRequest, reply: FastifyReply, flash: Flash = null, status = 200, result: BankImportResult | null = null) => {
      const member = memberOrNoCompanyPage(request, reply);
      if (!member) return reply;
      const t = request.t;
      // Suggestions: open invoices for a credit, invoices that received money for a debit.
      const invoicesIn = (statuses: ('issued' | 'sent' | 'partially_paid' | 'paid')[]) =>
        deps.db
          .selectFrom('invoices')
          .select(['number', 'total_gross_cents', 'amount_paid_cents'])
          .where('company_id', '=', member.company.id)
          .where('type', '=', 'invoice')
          .where('status', 'in', statuses)
          .orderBy('issue_date', 'desc')
          .limit(500)
          .execute();
      const [credits, debits, unpaid] = await Promise.all([
        unassigned(deps, member.company.id, 'credit'),
        unassigned(deps, member.company.id, 'debit'),
        invoicesIn(['issued', 'sent', 'partially_paid']),
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
${result ? resultSection(t, result, member.company.timezone) : ''}
<h2>${t.bankToAssign}</h2>
${
  credits.length === 0
    ? html`<p class="empty">${t.bankNothingToAssign}</p>`
    : html`<datalist id="open-invoices">${unpaid.map((i) => html`<option value="${i.number ?? ''}">${euro(i.total_gross_cents - i.amount_paid_cents)}</option>`)}</datalist>
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
          return overview(request, reply, { kind: 'error', text: `${t.bankRefused} (${error.message})` }, 422);
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
