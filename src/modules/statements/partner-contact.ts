import type { Database } from '../../db/connection.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';

// The partner's contact for its e-invoices (issue 24): in a Gutschrift the partner is the
// seller, so BG-6 (seller contact: BT-41 name, BT-42 telephone, BT-43 e-mail) is the
// partner's — never the issuing company's. The e-mail is the partner's `email` (API); the
// contact name and telephone are set by a person (app, `kontor admin partner contact`),
// since the interface's partner has no such fields. XRechnung requires all three
// (BR-DE-5/6/7): a Gutschrift as XRechnung is not issued while one is missing.

export type PartnerContact = { contactName: string | null; phone: string | null };

export type ContactField = 'contact_name' | 'phone';

export class PartnerContactError extends Error {
  readonly code: 'invalid' | 'partner_not_found';
  /** German sentences per field, for the form. */
  readonly fields: Partial<Record<ContactField, string>>;
  constructor(code: PartnerContactError['code'], message: string, fields: Partial<Record<ContactField, string>> = {}) {
    super(message);
    this.name = 'PartnerContactError';
    this.code = code;
    this.fields = fields;
  }
}

/** The partner's contact as set by a person; both null when none was set. */
export async function partnerContact(db: Database | Trx, companyId: string, partnerId: string): Promise<PartnerContact> {
  const row = await db
    .selectFrom('commission_partner_contacts')
    .select(['contact_name', 'phone'])
    .where('company_id', '=', companyId)
    .where('partner_id', '=', partnerId)
    .executeTakeFirst();
  return { contactName: row?.contact_name ?? null, phone: row?.phone ?? null };
}

/** What an XRechnung of the partner lacks (German, in the order BT-42, BT-43); empty when nothing. */
export function xrechnungContactGaps(partner: { email: string | null }, contact: PartnerContact): string[] {
  const gaps: string[] = [];
  if (!contact.phone) gaps.push('Telefonnummer');
  if (!partner.email) gaps.push('E-Mail-Adresse');
  return gaps;
}

/** "Für die XRechnung fehlt beim Partner X: Telefonnummer und E-Mail-Adresse. …" */
export function xrechnungContactSentence(partnerName: string, gaps: readonly string[]): string {
  const missing = gaps.length > 1 ? `${gaps.slice(0, -1).join(', ')} und ${gaps.at(-1)}` : (gaps[0] ?? '');
  return `Für die XRechnung der Gutschrift fehlt beim Partner ${partnerName}: ${missing}. Bitte tragen Sie beim Partner ein, was fehlt (Kontakt für E-Rechnungen; die E-Mail-Adresse über die API), und stellen Sie die Gutschrift dann aus.`;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Bidi_Control}]/u;
const PHONE = /^\+?[0-9 ()/.-]+$/;

/** Blanks folded and trimmed; an empty text is none. */
function readText(value: string | null): string | null {
  const text = (value ?? '').replace(/\s+/g, ' ').trim();
  return text === '' ? null : text;
}

/** Checks and normalises a contact (blank = none); throws PartnerContactError with German field sentences. */
export function checkPartnerContact(input: { contactName: string | null; phone: string | null }): PartnerContact {
  const fields: Partial<Record<ContactField, string>> = {};
  const contactName = readText(input.contactName);
  const phone = readText(input.phone);
  if (contactName !== null && (contactName.length > 200 || CONTROL.test(contactName)))
    fields.contact_name = 'Bitte geben Sie einen Namen mit höchstens 200 Zeichen an (ohne Steuerzeichen).';
  if (phone !== null && (phone.length > 50 || !PHONE.test(phone) || (phone.match(/\d/g) ?? []).length < 3))
    fields.phone =
      'Bitte geben Sie eine Telefonnummer mit mindestens drei Ziffern an, zum Beispiel +49 89 1234567 (erlaubt sind Ziffern, Leerzeichen und + ( ) / - .).';
  if (Object.keys(fields).length > 0) throw new PartnerContactError('invalid', Object.values(fields).join(' '), fields);
  return { contactName, phone };
}

/**
 * Sets the partner's e-invoice contact (a person; audit row `partner.contact_changed` in the
 * same transaction). Returns whether anything changed.
 */
export async function setPartnerContact(
  deps: { db: Database; clock: Clock },
  companyId: string,
  partnerId: string,
  input: { contactName: string | null; phone: string | null },
  actor: Actor,
): Promise<PartnerContact & { changed: boolean }> {
  const contact = checkPartnerContact(input);
  return inTransaction(deps.db, async (trx) => {
    const partner = await trx
      .selectFrom('commission_partners')
      .select('id')
      .where('company_id', '=', companyId)
      .where('id', '=', partnerId)
      .forNoKeyUpdate()
      .executeTakeFirst();
    if (!partner) throw new PartnerContactError('partner_not_found', `no partner ${partnerId}`);
    const before = await partnerContact(trx, companyId, partnerId);
    if (before.contactName === contact.contactName && before.phone === contact.phone) return { ...contact, changed: false };
    const now = deps.clock.now();
    await trx
      .insertInto('commission_partner_contacts')
      .values({
        company_id: companyId,
        partner_id: partnerId,
        contact_name: contact.contactName,
        phone: contact.phone,
        updated_by: actor.userId,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc
          .columns(['company_id', 'partner_id'])
          .doUpdateSet({ contact_name: contact.contactName, phone: contact.phone, updated_by: actor.userId, updated_at: now }),
      )
      .execute();
    await recordAudit(trx, actor, now, {
      action: 'partner.contact_changed',
      subjectType: 'commission_partner',
      subjectId: partnerId,
      before: { contact_name: before.contactName, phone: before.phone },
      after: { contact_name: contact.contactName, phone: contact.phone },
    });
    return { ...contact, changed: true };
  });
}
