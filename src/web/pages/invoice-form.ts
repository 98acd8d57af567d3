import { appDraftIssues } from '../../modules/invoicing/app-draft-input.ts';
import type { AppDraftBody } from '../../modules/invoicing/index.ts';
import type { ValidationIssue } from '../../shared/errors.ts';
import { type Html, html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { csrfField } from '../layout.ts';
import { decimal, isoOfTyped, typedDecimal } from './money.ts';

// The form of a draft written in the app: what a person types (German numbers and dates)
// turned into the body of POST /invoices that the invoicing module checks and builds
// (create-app-draft.ts), and back. Works without JavaScript: "Weitere Zeile" sends the form
// and gets it back with more empty rows, every value kept.

export type LineForm = { description: string; quantity: string; unit: string; price: string; vat: string; reason: string };
export type DraftForm = { customerId: string; start: string; end: string; terms: string; note: string; lines: LineForm[] };

export const EMPTY_ROWS = 5;
const MAX_ROWS = 100;
const FIELDS = ['description', 'quantity', 'unit', 'price', 'vat', 'reason'] as const;
/** The API's name of each field of a row. */
const API_FIELD: Record<(typeof FIELDS)[number], string> = {
  description: 'description',
  quantity: 'quantity',
  unit: 'unit',
  price: 'unit_price_net',
  vat: 'vat_rate',
  reason: 'tax_exemption_reason',
};

const emptyLine = (): LineForm => ({ description: '', quantity: '', unit: '', price: '', vat: '19', reason: '' });
const isEmpty = (line: LineForm) => !line.description.trim() && !line.quantity.trim() && !line.unit.trim() && !line.price.trim() && !line.reason.trim();

/**
 * "1.234,56" → "1234.56"; "1234,5" → "1234.5"; "12" → "12". The dot only groups thousands
 * (German), so "12.5" is no number here: null, as is anything else that is not one.
 */
export function germanDecimal(text: string): string | null {
  const s = text.replace(/[\s\u00a0€]/g, '');
  const match = /^(-?)((?:[1-9]\d{0,2}(?:\.\d{3})+)|\d+)(?:,(\d+))?$/.exec(s);
  if (!match) return null;
  const integer = (match[2] as string).replace(/\./g, '');
  return `${match[1]}${integer}${match[3] !== undefined ? `.${match[3]}` : ''}`;
}

/** The form as sent; `more` asks for more rows. */
export function readForm(raw: Record<string, string | undefined>): { form: DraftForm; more: boolean } {
  const value = (name: string) => String(raw[name] ?? '').slice(0, 2000);
  const rows = Math.min(MAX_ROWS, Math.max(1, Number.parseInt(value('rows'), 10) || EMPTY_ROWS));
  const lines = Array.from({ length: rows }, (_, i) => {
    const line = emptyLine();
    for (const field of FIELDS) line[field] = value(`l${i}_${field}`) || (field === 'vat' ? '19' : '');
    return line;
  });
  const more = raw.more !== undefined;
  if (more) lines.push(...Array.from({ length: Math.min(3, MAX_ROWS - rows) }, emptyLine));
  return { form: { customerId: value('customer_id'), start: value('start'), end: value('end'), terms: value('terms'), note: value('note'), lines }, more };
}

/** A new form: today's date, empty rows. */
export function newForm(customerId: string, today: string): DraftForm {
  return { customerId, start: today, end: '', terms: '', note: '', lines: Array.from({ length: EMPTY_ROWS }, emptyLine) };
}

/** The form of a stored draft (to change it), with two empty rows to add to it. */
export function formOfDraft(
  draft: { customer_id: string; service_period_start: string; service_period_end: string; payment_terms_days: number; note: string | null },
  lines: { description: string; quantity: string; unit: string | null; unit_price_net: string; vat_rate: number; tax_exemption_reason: string | null }[],
  companyTerms: number,
): DraftForm {
  return {
    customerId: draft.customer_id,
    start: draft.service_period_start,
    end: draft.service_period_end === draft.service_period_start ? '' : draft.service_period_end,
    terms: draft.payment_terms_days === companyTerms ? '' : String(draft.payment_terms_days),
    note: draft.note ?? '',
    lines: [
      ...lines.map((l) => ({
        description: l.description,
        quantity: decimal(l.quantity, 0),
        unit: l.unit ?? '',
        price: decimal(l.unit_price_net, 2),
        vat: String(l.vat_rate),
        reason: l.tax_exemption_reason ?? '',
      })),
      emptyLine(),
      emptyLine(),
    ],
  };
}

export type FormProblem = { key: string; text: string };

/**
 * The draft's body and what is wrong with the form, in German (none: the module may build
 * it). `key` names the field (`start`, `l2_price`, …) to mark it.
 */
export function draftBody(t: Messages, form: DraftForm): { body: AppDraftBody; problems: FormProblem[] } {
  const own: ValidationIssue[] = [];
  const rowOf: number[] = [];
  const lines: AppDraftBody['lines'] = [];
  form.lines.forEach((line, row) => {
    if (isEmpty(line)) return;
    const index = lines.length;
    rowOf.push(row);
    const quantity = line.quantity.trim() === '' ? '1' : typedDecimal(line.quantity);
    const price = typedDecimal(line.price);
    if (quantity === null) own.push({ loc: ['body', 'lines', index, 'quantity'], type: 'decimal', msg: '' });
    if (price === null) own.push({ loc: ['body', 'lines', index, 'unit_price_net'], type: line.price.trim() ? 'decimal' : 'missing', msg: '' });
    lines.push({
      description: line.description.trim(),
      quantity: quantity ?? '0',
      ...(line.unit.trim() ? { unit: line.unit.trim() } : {}),
      unit_price_net: price ?? '0',
      vat_rate: (/^\d{1,3}$/.test(line.vat.trim()) ? Number(line.vat.trim()) : line.vat) as 0 | 7 | 19,
      ...(line.reason.trim() ? { tax_exemption_reason: line.reason.trim() } : {}),
    });
  });
  const start = isoOfTyped(form.start);
  const end = form.end.trim() === '' ? start : isoOfTyped(form.end);
  if (start === null) own.push({ loc: ['body', 'service_period', 'start'], type: 'format', msg: '' });
  if (end === null) own.push({ loc: ['body', 'service_period', 'end'], type: 'format', msg: '' });
  const terms = form.terms.trim();
  const body: AppDraftBody = {
    customer: { id: form.customerId },
    lines,
    service_period: { start: start ?? '2000-01-01', end: end ?? start ?? '2000-01-01' },
    ...(terms ? { payment_terms_days: (/^\d{1,4}$/.test(terms) ? Number(terms) : terms) as number } : {}),
    ...(form.note.trim() ? { note: form.note.trim() } : {}),
  };
  const issues = [...own, ...(form.customerId ? [] : [{ loc: ['body', 'customer'], type: 'missing', msg: '' }])];
  // The module's own check (the API's schema and amount limits), for what the form got right.
  const seen = new Set(issues.map((i) => i.loc.join('.')));
  for (const issue of appDraftIssues(form.customerId ? body : { ...body, customer: { id: 'cus_00000000000000000000000000' } })) {
    if (!seen.has(issue.loc.join('.'))) issues.push(issue);
  }
  return { body, problems: issues.map((issue) => problemOf(t, issue, rowOf)) };
}

/** One issue (the API's loc and rule) as the German sentence and the form field it marks. */
export function problemOf(t: Messages, issue: ValidationIssue, rowOf: number[] = []): FormProblem {
  const e = t.drafts.errors;
  const [, where, index, field] = issue.loc;
  if (where === 'customer') return { key: 'customer', text: e.customer };
  if (where === 'service_period')
    return index === 'start' ? { key: 'start', text: e.serviceStart } : { key: 'end', text: issue.type === 'less_than_minimum' ? e.periodOrder : e.serviceEnd };
  if (where === 'payment_terms_days') return { key: 'terms', text: e.paymentTerms };
  if (where === 'note') return { key: 'note', text: e.note };
  if (where === 'lines' && typeof index === 'number') {
    const row = rowOf[index] ?? index;
    if (field === undefined) return { key: `l${row}_price`, text: e.lineTooHigh(row + 1) };
    const formField = (Object.keys(API_FIELD) as (typeof FIELDS)[number][]).find((f) => API_FIELD[f] === field) ?? 'description';
    const label = {
      description: t.drafts.description,
      quantity: t.drafts.quantity,
      unit: t.drafts.unit,
      price: t.drafts.unitPrice,
      vat: t.drafts.vatRate,
      reason: t.drafts.exemption,
    }[formField];
    const problem =
      formField === 'vat'
        ? e.vatRate
        : ((
            {
              missing: e.missing,
              too_short: e.missing,
              decimal: e.number,
              less_than_minimum: e.negative,
              greater_than_maximum: e.tooLarge,
              too_long: e.tooLong,
              pattern: e.plainText,
            } as Record<string, string>
          )[issue.type] ?? e.invalid);
    return { key: `l${row}_${formField}`, text: e.line(row + 1, label, problem) };
  }
  if (where === 'lines') return { key: 'lines', text: issue.type === 'too_short' ? e.noLines : issue.type === 'too_long' ? e.tooManyLines : e.totalTooHigh };
  return { key: 'other', text: e.other };
}

export type FormView = {
  action: string;
  form: DraftForm;
  customer: { id: string; name: string; kundennummer: number; city: string | null; email: string | null } | null;
  problems: FormProblem[];
  companyTerms: number;
  submit: string;
  /** A new draft may go to another customer; a stored one keeps its customer. */
  otherCustomer: boolean;
};

/** The form: customer, service period, terms, note, the lines table, and the buttons (Enter saves). */
export function draftFormMarkup(t: Messages, csrf: string, view: FormView): Html {
  const d = t.drafts;
  const wrong = new Set(view.problems.map((p) => p.key));
  const invalid = (key: string) => (wrong.has(key) ? html` aria-invalid="true"` : '');
  const { form } = view;
  const customer = view.customer
    ? html`<dl class="facts"><div><dt>${d.invoiceFor}</dt><dd>${view.customer.name} <span class="muted">(${view.customer.kundennummer})</span></dd></div>
<div><dt>${d.customerCity}</dt><dd>${view.customer.city ?? '–'}</dd></div><div><dt>${d.customerEmail}</dt><dd>${view.customer.email ?? '–'}</dd></div></dl>
${view.otherCustomer ? html`<p><a href="/app/invoices/new">${d.otherCustomer}</a></p>` : ''}
<input type="hidden" name="customer_id" value="${view.customer.id}">`
    : html`<p class="panel warn">${d.noCustomerChosen} <a href="/app/invoices/new">${d.chooseCustomer}</a></p>`;
  const cell = (i: number, field: (typeof FIELDS)[number], label: string, attrs: Html | string = '') =>
    html`<label class="visually-hidden" for="l${i}_${field}">${d.fieldOf(label, i + 1)}</label><input id="l${i}_${field}" name="l${i}_${field}" value="${form.lines[i]?.[field] ?? ''}"${attrs}${invalid(`l${i}_${field}`)}>`;
  const vat = (i: number) => {
    const current = form.lines[i]?.vat ?? '19';
    const options = ['19', '7', '0'].includes(current) ? ['19', '7', '0'] : [current, '19', '7', '0'];
    return html`<label class="visually-hidden" for="l${i}_vat">${d.fieldOf(d.vatRate, i + 1)}</label><select id="l${i}_vat" name="l${i}_vat"${invalid(`l${i}_vat`)}>${options.map((o) => html`<option value="${o}"${o === current ? html` selected` : ''}>${o} %</option>`)}</select>`;
  };
  return html`<form method="post" action="${view.action}" novalidate>
${csrfField(csrf)}
${customer}
<div class="form">
<label for="start">${d.serviceStart}</label>
<input id="start" name="start" type="date" value="${form.start}" required${invalid('start')}>
<label for="end">${d.serviceEnd} <span class="muted">(${d.optional})</span></label>
<input id="end" name="end" type="date" value="${form.end}" aria-describedby="end-hint"${invalid('end')}>
<p id="end-hint" class="hint">${d.serviceEndHint}</p>
<label for="terms">${d.paymentTerms} <span class="muted">(${d.optional})</span></label>
<input id="terms" name="terms" inputmode="numeric" value="${form.terms}" aria-describedby="terms-hint"${invalid('terms')}>
<p id="terms-hint" class="hint">${d.paymentTermsHint(view.companyTerms)}</p>
<label for="note">${d.note} <span class="muted">(${d.optional})</span></label>
<input id="note" name="note" maxlength="500" value="${form.note}" aria-describedby="note-hint"${invalid('note')}>
<p id="note-hint" class="hint">${d.noteHint}</p>
</div>
<h2 id="lines-heading">${d.lines}</h2>
<p class="hint" id="lines-hint">${d.linesHint} ${d.exemptionHint}</p>
<div class="table-wrap"><table class="table compact" aria-labelledby="lines-heading" aria-describedby="lines-hint">
<thead><tr><th scope="col">${d.position}</th><th scope="col">${d.description}</th><th scope="col">${d.quantity}</th><th scope="col">${d.unit}</th><th scope="col">${d.unitPrice}</th><th scope="col">${d.vatRate}</th><th scope="col">${d.exemption}</th></tr></thead>
<tbody>${form.lines.map(
    (_, i) =>
      html`<tr><td>${i + 1}</td><td>${cell(i, 'description', d.description, html` size="24"`)}</td><td>${cell(i, 'quantity', d.quantity, html` size="5" inputmode="decimal"`)}</td><td>${cell(i, 'unit', d.unit, html` size="7" list="units"`)}</td><td>${cell(i, 'price', d.unitPrice, html` size="9" inputmode="decimal"`)}</td><td>${vat(i)}</td><td>${cell(i, 'reason', d.exemption, html` size="10"`)}</td></tr>`,
  )}</tbody></table></div>
<datalist id="units">${['Stück', 'Stunde', 'Tag', 'Monat', 'Jahr', 'Pauschale', 'km'].map((u) => html`<option value="${u}"></option>`)}</datalist>
<input type="hidden" name="rows" value="${form.lines.length}">
<p class="actions"><button type="submit" class="primary">${view.submit}</button> <button type="submit" name="more" value="1">${d.moreRows}</button></p>
</form>`;
}

/** The problems as the list above the form (the flash above it says that nothing was saved). */
export function problemList(problems: FormProblem[]): Html {
  if (problems.length === 0) return html``;
  return html`<div class="panel warn"><ul class="messages">${problems.map((p) => html`<li>${p.text}</li>`)}</ul></div>`;
}
