import type { Database } from '../../db/connection.ts';
import type { SmtpSettings } from '../../db/schema.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import { defineJob, enqueueJob, PermanentJobError, sendJobMail } from '../../jobs/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { isValidBic, isValidIban, normalizeBic, normalizeIban } from '../../shared/iban.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { mailHtml } from '../mail/index.ts';

// A partner's payout account, set only by a person (the app; interface §1: never the API).
// The IBAN is checked (ibantools: country format, MOD 97, national check digits), stored
// sealed with the instance secret, and shown masked. Every change is one transaction with
// its audit row and a job that mails the company: a changed payout account is what a fraud
// would change first, so somebody besides the person who did it must hear of it.

export const PAYOUT_NOTICE_JOB = 'partners.payout_account_notice';

export class PayoutAccountError extends Error {
  readonly code: 'iban_invalid' | 'bic_invalid' | 'partner_not_found';
  constructor(code: PayoutAccountError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

/** "DE89 •••• 3000": country, check digits and the last four; never more. */
export function maskIban(iban: string): string {
  return `${iban.slice(0, 4)} •••• ${iban.slice(-4)}`;
}

export type PayoutAccountChange = { partnerId: string; ibanMasked: string | null; bic: string | null; changed: boolean };

/**
 * The payout account as stored: the IBAN in its electronic form, checked; the BIC only with
 * an IBAN, checked; both null for none. Throws PayoutAccountError with a German message.
 */
export function checkedPayoutAccount(input: { iban: string | null; bic: string | null }): { iban: string | null; bic: string | null } {
  if (input.iban === null || input.iban.trim() === '') return { iban: null, bic: null };
  const iban = normalizeIban(input.iban);
  if (!isValidIban(iban)) throw new PayoutAccountError('iban_invalid', 'Die IBAN ist ungültig: Bitte prüfen Sie Länderkennung, Länge und Prüfziffer.');
  if (input.bic === null || input.bic.trim() === '') return { iban, bic: null };
  const bic = normalizeBic(input.bic);
  if (!isValidBic(bic)) throw new PayoutAccountError('bic_invalid', 'Die BIC ist ungültig: 8 oder 11 Zeichen, z. B. COBADEFFXXX.');
  return { iban, bic };
}

/** Sets (or, with iban null, removes) the payout account. German messages in the errors. */
export async function setPayoutAccount(
  deps: { db: Database; clock: Clock; sealer: Sealer },
  companyId: string,
  partnerId: string,
  input: { iban: string | null; bic: string | null },
  actor: Actor & { email: string },
): Promise<PayoutAccountChange> {
  const account = checkedPayoutAccount(input);
  return inTransaction(deps.db, (trx) => setPayoutAccountIn(trx, deps, companyId, partnerId, account, actor));
}

/**
 * setPayoutAccount inside the caller's transaction: the same checks, audit row and notice
 * to the company. A partner's confirmed change request (portal/decide-change-request.ts)
 * sets its account this way, in the transaction that confirms the request;
 * `requestedBy` names the partner account that asked, for the notice.
 */
export async function setPayoutAccountIn(
  trx: Trx,
  deps: { clock: Clock; sealer: Sealer },
  companyId: string,
  partnerId: string,
  input: { iban: string | null; bic: string | null },
  actor: Actor & { email: string },
  requestedBy?: string,
): Promise<PayoutAccountChange> {
  const { iban, bic } = checkedPayoutAccount(input);
  const partner = await trx
    .selectFrom('commission_partners')
    .select(['id', 'name', 'iban_sealed', 'iban_masked', 'bic'])
    .where('company_id', '=', companyId)
    .where('id', '=', partnerId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!partner) throw new PayoutAccountError('partner_not_found', 'Diesen Partner gibt es nicht.');
  const before = partner.iban_sealed ? deps.sealer.open(partner.iban_sealed) : null;
  const masked = iban ? maskIban(iban) : null;
  if (before === iban && partner.bic === bic) return { partnerId, ibanMasked: masked, bic, changed: false };
  const now = deps.clock.now();
  await trx
    .updateTable('commission_partners')
    .set({ iban_sealed: iban ? deps.sealer.seal(iban) : null, iban_masked: masked, bic, payee_changed_at: now, updated_at: now })
    .where('company_id', '=', companyId)
    .where('id', '=', partnerId)
    .execute();
  await recordAudit(trx, actor, now, {
    action: 'partner.payout_account_changed',
    subjectType: 'commission_partner',
    subjectId: partnerId,
    before: { iban: partner.iban_masked, bic: partner.bic },
    after: { iban: masked, bic },
  });
  const payload: NoticePayload = { partner_id: partnerId, by: actor.email, before: partner.iban_masked, after: masked, at: now.toISOString() };
  if (requestedBy) payload.requested_by = requestedBy;
  await enqueueJob(trx, { name: PAYOUT_NOTICE_JOB, companyId, payload, runAt: now });
  return { partnerId, ibanMasked: masked, bic, changed: true };
}

/** `requested_by`: the partner account whose change request `by` confirmed. */
type NoticePayload = { partner_id: string; by: string; before: string | null; after: string | null; at: string; requested_by?: string };

defineJob<NoticePayload>({
  name: PAYOUT_NOTICE_JOB,
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['partner_id', 'by', 'before', 'after', 'at'],
    properties: {
      partner_id: { type: 'string' },
      by: { type: 'string' },
      before: { type: ['string', 'null'] },
      after: { type: ['string', 'null'] },
      at: { type: 'string' },
      requested_by: { type: 'string' },
    },
  },
  async handler({ db, job, mailer }) {
    const companyId = job.company_id;
    if (!companyId) throw new PermanentJobError('the job names no company');
    const row = await db
      .selectFrom('companies as c')
      .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 'c.id'))
      .select(['c.name as company_name', 'c.email as company_email', 'c.smtp', 'c.timezone', 'p.name as partner_name', 'p.kreditorennummer'])
      .where('c.id', '=', companyId)
      .where('p.id', '=', job.payload.partner_id)
      .executeTakeFirst();
    if (!row) throw new PermanentJobError('the partner is gone');
    const company = { id: companyId, name: row.company_name, email: row.company_email, smtp: row.smtp as SmtpSettings | null };
    const messageId = `<payout-account-${job.id}@kontor.invalid>`;
    const when = new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeStyle: 'short', timeZone: row.timezone }).format(new Date(job.payload.at));
    const how = job.payload.requested_by
      ? `auf Antrag des Partners im Partnerportal (${job.payload.requested_by}) von ${job.payload.by} bestätigt und geändert`
      : `von ${job.payload.by} geändert`;
    const lines = [
      `Das Auszahlungskonto des Partners ${row.partner_name} (Kreditor ${row.kreditorennummer}) wurde am ${when} ${how}.`,
      `Vorher: ${job.payload.before ?? 'keines'}`,
      `Jetzt: ${job.payload.after ?? 'keines'}`,
    ];
    const footer = ['Falls Sie diese Änderung nicht erwartet haben, prüfen Sie sie bitte im Protokoll von Kontor, bevor Sie den nächsten Zahllauf ausführen.'];
    await sendJobMail(
      mailer,
      company,
      {
        to: row.company_email,
        subject: `Auszahlungskonto von ${row.partner_name} geändert`,
        text: `${lines.join('\n')}\n\n${footer.join('\n')}\n`,
        html: mailHtml([lines], footer),
        attachments: [],
        messageId,
      },
      'payout account notice',
    );
  },
});
