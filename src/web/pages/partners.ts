import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PayoutAccountError, setPayoutAccount } from '../../modules/commissions/index.ts';
import { type ContactField, PartnerContactError, partnerContact, setPartnerContact, xrechnungContactGaps } from '../../modules/statements/partner-contact.ts';
import { statementEInvoice, statementKind } from '../../modules/statements/statement-terms.ts';
import { type Html, html } from '../html.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { actorOf, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { euro } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// Revenue-share partners with their kept balances, and a partner's payout account: set by an
// admin only (it decides where money goes), IBAN checked, stored sealed, shown masked; every
// change is in the audit trail and mailed to the company (payout-account.ts). The kind of
// statement the partner gets (with why, where its billing mode says otherwise) and its
// contact for e-invoices (issue 24: the seller contact of a Gutschrift is the partner's own).

type ContactForm = { values: { contact_name: string; phone: string }; fields: Partial<Record<ContactField, string>> };

const ID = /^cpt_[0-9a-z]{26}$/;

export function registerPartnerPages(web: FastifyInstance, deps: WebDeps): void {
  web.get('/partners', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t;
    const partners = await deps.db
      .selectFrom('commission_partners')
      .select(['id', 'name', 'kreditorennummer', 'iban_masked', 'balance_open_cents', 'balance_statemented_cents', 'balance_paid_cents', 'status'])
      .where('company_id', '=', member.company.id)
      .orderBy('name')
      .orderBy('id')
      .limit(500)
      .execute();
    const body =
      partners.length === 0
        ? html`<p class="empty">${t.noPartners}</p>`
        : html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.partner}</th><th scope="col">${t.creditorNumber}</th><th scope="col" class="num">${t.balanceOpen}</th><th scope="col" class="num">${t.balanceStatemented}</th><th scope="col" class="num">${t.balancePaid}</th><th scope="col">${t.payoutAccount}</th></tr></thead>
<tbody>${partners.map(
            (p) =>
              html`<tr><td><a href="/app/partners/${p.id}">${p.name}</a>${p.status === 'archived' ? html` <span class="badge">${t.archived}</span>` : ''}</td><td>${p.kreditorennummer}</td><td class="num">${euro(p.balance_open_cents)}</td><td class="num">${euro(p.balance_statemented_cents)}</td><td class="num">${euro(p.balance_paid_cents)}</td><td>${p.iban_masked ?? html`<span class="badge warn">${t.missing}</span>`}</td></tr>`,
          )}</tbody></table></div>`;
    return sendPage(reply, page(shell(request, 'partners'), t.partners, body));
  });

  const detail = async (
    request: FastifyRequest,
    reply: FastifyReply,
    flash: Flash = null,
    status = 200,
    typed?: { iban: string; bic: string },
    contactForm?: ContactForm,
  ) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t;
    const { id } = request.params as { id: string };
    if (!ID.test(id)) return reply.callNotFound();
    const partner = await deps.db
      .selectFrom('commission_partners')
      .select([
        'id',
        'name',
        'kreditorennummer',
        'email',
        'iban_masked',
        'bic',
        'payee_changed_at',
        'payout_rail',
        'balance_open_cents',
        'balance_statemented_cents',
        'balance_paid_cents',
        'tax_status',
        'billing_mode',
        'self_billing_agreed_on',
        'self_billing_objected_at',
        'e_invoice_format',
      ])
      .where('company_id', '=', member.company.id)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!partner) return reply.callNotFound();
    const share = t.share;
    const contact = await partnerContact(deps.db, member.company.id, id);
    const kind = statementKind(partner);
    const kindNote =
      partner.tax_status === 'private_person'
        ? partner.billing_mode !== 'settlement'
          ? share.kindNotes.private_person
          : null
        : partner.billing_mode === 'settlement'
          ? share.kindNotes.settlement_overruled
          : partner.billing_mode === 'self_billing' && kind !== 'self_billing'
            ? partner.self_billing_objected_at
              ? share.kindNotes.objected
              : share.kindNotes.no_agreement
            : null;
    const gaps = statementEInvoice(partner, kind) === 'xrechnung' ? xrechnungContactGaps(partner, contact) : [];
    const contactValues = contactForm?.values ?? { contact_name: contact.contactName ?? '', phone: contact.phone ?? '' };
    const contactField = (name: ContactField, label: string, hint: string) => {
      const error = contactForm?.fields[name];
      return html`<label for="c-${name}">${label}</label><input id="c-${name}" name="${name}" value="${contactValues[name]}" autocomplete="off" aria-describedby="c-${name}-hint${error ? html` c-${name}-error` : ''}"${error ? html` aria-invalid="true"` : ''}${name === 'phone' ? html` type="tel"` : ''}>
<p id="c-${name}-hint" class="hint">${hint}</p>${error ? html`<p id="c-${name}-error" class="hint"><span class="badge error">${share.errorBadge}</span> ${error}</p>` : ''}`;
    };
    const contactSection = html`<section class="panel" aria-labelledby="contact-heading"><h2 id="contact-heading">${share.contactTitle}</h2>
<p class="hint">${share.contactIntro}</p>
<p>${share.partnerEmail(partner.email)}</p>
${gaps.length > 0 ? html`<p class="badge warn">${share.xrechnungMissing(gaps.join(', '))}</p>` : ''}
<form method="post" action="/app/partners/${id}/contact" class="form" novalidate>${csrfField(member.session.csrfToken)}
${contactField('contact_name', share.contactName, share.contactNameHint)}
${contactField('phone', share.phone, share.phoneHint)}
<button type="submit" class="primary">${share.saveContact}</button>
</form></section>`;
    const form: Html =
      member.role === 'admin'
        ? html`<form method="post" action="/app/partners/${id}/payout-account" class="form" novalidate>
${csrfField(member.session.csrfToken)}
<label for="iban">${t.iban}</label>
<input id="iban" name="iban" autocomplete="off" spellcheck="false" value="${typed?.iban ?? ''}" placeholder="DE.." aria-describedby="iban-hint"${status === 422 ? html` aria-invalid="true"` : ''}>
<p id="iban-hint" class="hint">${t.ibanHint}</p>
<label for="bic">${t.bic}</label>
<input id="bic" name="bic" autocomplete="off" spellcheck="false" value="${typed?.bic ?? ''}">
<button type="submit" class="primary">${t.savePayoutAccount}</button>
</form>`
        : html`<p class="muted">${t.payoutAccountAdminOnly}</p>`;
    const body = html`<dl class="facts">
<div><dt>${t.creditorNumber}</dt><dd>${partner.kreditorennummer}</dd></div>
<div><dt>${t.balanceOpen}</dt><dd>${euro(partner.balance_open_cents)}</dd></div>
<div><dt>${t.balanceStatemented}</dt><dd>${euro(partner.balance_statemented_cents)}</dd></div>
<div><dt>${t.balancePaid}</dt><dd>${euro(partner.balance_paid_cents)}</dd></div>
<div><dt>${share.statementKind}</dt><dd>${share.kinds[kind] ?? kind}</dd></div>
</dl>
${kindNote ? html`<p class="panel warn">${kindNote}</p>` : ''}
<section class="panel" aria-labelledby="payout-heading"><h2 id="payout-heading">${t.payoutAccount}</h2>
<p>${partner.iban_masked ? html`<span class="mono">${partner.iban_masked}</span>${partner.bic ? html` · BIC ${partner.bic}` : ''}` : t.noPayoutAccount}</p>
${form}
</section>
${contactSection}
<p><a href="/app/partners">← ${t.partners}</a></p>`;
    return sendPage(reply, page(shell(request, 'partners'), partner.name, body, flash), status);
  };

  web.get('/partners/:id', async (request, reply) => {
    const done = (request.query as { done?: string }).done;
    const text = done === '1' ? request.t.payoutAccountSaved : done === 'contact' ? request.t.share.contactSaved : null;
    return detail(request, reply, text ? { kind: 'ok', text } : null);
  });

  web.post('/partners/:id/contact', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!ID.test(id)) return reply.callNotFound();
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    const values = { contact_name: String(form.contact_name ?? '').slice(0, 400), phone: String(form.phone ?? '').slice(0, 100) };
    try {
      await setPartnerContact(deps, member.company.id, id, { contactName: values.contact_name, phone: values.phone }, actorOf(member));
    } catch (error) {
      if (error instanceof PartnerContactError && error.code === 'partner_not_found') return reply.callNotFound();
      if (error instanceof PartnerContactError)
        return detail(request, reply, { kind: 'error', text: error.message }, 422, undefined, { values, fields: error.fields });
      throw error;
    }
    return redirect(reply, `/app/partners/${id}?done=contact`);
  });

  web.post('/partners/:id/payout-account', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!ID.test(id)) return reply.callNotFound();
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    const iban = String(form.iban ?? '').slice(0, 64);
    const bic = String(form.bic ?? '').slice(0, 20);
    try {
      await setPayoutAccount(deps, member.company.id, id, { iban, bic }, { ...actorOf(member), email: member.session.email });
    } catch (error) {
      if (error instanceof PayoutAccountError && error.code === 'partner_not_found') return reply.callNotFound();
      if (error instanceof PayoutAccountError) return detail(request, reply, { kind: 'error', text: error.message }, 422, { iban, bic });
      throw error;
    }
    return redirect(reply, `/app/partners/${id}?done=1`);
  });
}
