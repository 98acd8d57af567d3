import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PayoutAccountError, setPayoutAccount } from '../../modules/commissions/index.ts';
import { maskIban } from '../../modules/commissions/payout-account.ts';
import { type ContactField, PartnerContactError, partnerContact, setPartnerContact, xrechnungContactGaps } from '../../modules/statements/partner-contact.ts';
import { statementEInvoice, statementKind } from '../../modules/statements/statement-terms.ts';
import { isValidBic, isValidIban, normalizeBic, normalizeIban } from '../../shared/iban.ts';
import { type Html, html } from '../html.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { actorOf, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { euro } from './money.ts';
import { changeRequestDone, changeRequestsSection, registerPartnerChangeRequestRoutes } from './partner-change-requests.ts';
import { portalSection, registerPartnerPortalRoutes } from './partner-portal.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// Revenue-share partners with their kept balances, and a partner's payout account: set by an
// admin only (it decides where money goes), IBAN checked, stored sealed, shown masked; every
// change is in the audit trail and mailed to the company (payout-account.ts); replacing (or
// removing) an account asks first, showing old and new masked (issue 25). The kind of
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
${await changeRequestsSection(deps, request, member, id)}
${contactSection}
${await portalSection(deps, request, member, id)}
<p><a href="/app/partners">← ${t.partners}</a></p>`;
    return sendPage(reply, page(shell(request, 'partners'), partner.name, body, flash), status);
  };

  web.get('/partners/:id', async (request, reply) => {
    const { done, email } = request.query as { done?: string; email?: string };
    const text =
      done === '1'
        ? request.t.payoutAccountSaved
        : done === 'contact'
          ? request.t.share.contactSaved
          : done === 'portal-invited'
            ? request.t.share.portal.invited(String(email ?? '').slice(0, 320))
            : done === 'portal-deactivated'
              ? request.t.share.portal.deactivated
              : changeRequestDone(request, done);
    return detail(request, reply, text ? { kind: 'ok', text } : null);
  });

  registerPartnerPortalRoutes(web, deps, (request, reply, flash, status) => detail(request, reply, flash, status));
  registerPartnerChangeRequestRoutes(web, deps, (request, reply, flash, status) => detail(request, reply, flash, status));

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

  /** What replacing the partner's account would change, or null when nothing asks first (no account yet, the same one, or a wrong entry). */
  const replacement = async (companyId: string, partnerId: string, ibanText: string, bicText: string) => {
    const partner = await deps.db
      .selectFrom('commission_partners')
      .select(['name', 'iban_sealed', 'iban_masked', 'bic'])
      .where('company_id', '=', companyId)
      .where('id', '=', partnerId)
      .executeTakeFirst();
    if (!partner) return 'not_found' as const;
    if (!partner.iban_sealed) return null;
    const iban = ibanText.trim() === '' ? null : normalizeIban(ibanText);
    const bic = iban && bicText.trim() !== '' ? normalizeBic(bicText) : null;
    if ((iban && !isValidIban(iban)) || (bic && !isValidBic(bic))) return null;
    if (iban === deps.sealer.open(partner.iban_sealed) && bic === partner.bic) return null;
    return { partnerName: partner.name, oldMasked: partner.iban_masked, oldBic: partner.bic, newMasked: iban ? maskIban(iban) : null, newBic: bic };
  };

  web.post('/partners/:id/payout-account', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!ID.test(id)) return reply.callNotFound();
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    const iban = String(form.iban ?? '').slice(0, 64);
    const bic = String(form.bic ?? '').slice(0, 20);
    // Replacing an account asks first (the first one needs no confirmation); a wrong IBAN or
    // BIC is refused by setPayoutAccount below, before any question.
    if (form.confirm_replace !== '1') {
      const asked = await replacement(member.company.id, id, iban, bic);
      if (asked === 'not_found') return reply.callNotFound();
      if (asked) {
        const t = request.t;
        const account = (masked: string | null, bicOf: string | null) =>
          masked ? html`<span class="mono">${masked}</span>${bicOf ? html` · BIC ${bicOf}` : ''}` : html`${t.noPayoutAccount}`;
        const body = html`<section class="panel warn" aria-labelledby="replace-heading"><h2 id="replace-heading">${t.steps.replaceTitle}</h2>
<p>${t.steps.replaceIntro}</p>
<dl class="facts"><div><dt>${t.steps.oldAccount}</dt><dd>${account(asked.oldMasked, asked.oldBic)}</dd></div><div><dt>${t.steps.newAccount}</dt><dd class="strong">${account(asked.newMasked, asked.newBic)}</dd></div></dl>
<form method="post" action="/app/partners/${id}/payout-account" class="stack">${csrfField(member.session.csrfToken)}
<input type="hidden" name="iban" value="${iban}"><input type="hidden" name="bic" value="${bic}"><input type="hidden" name="confirm_replace" value="1">
<p class="actions"><button type="submit" class="primary">${t.steps.confirmReplace}</button> <a href="/app/partners/${id}">${t.steps.cancel}</a></p>
</form></section>`;
        return sendPage(reply, page(shell(request, 'partners'), asked.partnerName, body));
      }
    }
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
